#!/usr/bin/env bash
# The run step of the composite GitHub Action (action.yml), kept as a script
# so it can be run and tested outside GitHub (tests/it/integrations.rs).
#
# Inputs arrive as environment variables:
#   BDXLINT_PATHS        files or directories, split on whitespace, newlines
#                        included (default ".")
#   BDXLINT_FORMAT       "github" (annotations) or "sarif" (a file to upload)
#   BDXLINT_ARGS         extra flags for `bdxlint check`, split as a shell
#                        splits words (quotes kept together), never run
#   BDXLINT_SARIF_FILE   where the SARIF log goes (default bdxlint.sarif)
#   BDXLINT_CATEGORY     the code-scanning category (default: derived from
#                        the paths, so two uses with other paths keep apart)
# It writes `exit-code=N`, and in SARIF mode `sarif-file=...`, `category=...`
# and `sarif-ready=true` once a whole log is written, to $GITHUB_OUTPUT when
# set, and exits with bdxlint's status, so the step fails on findings. In
# SARIF mode the action uploads the log in a later step that runs
# regardless, even when some file could not be read (exit 2): the log then
# lists it, and every other file's results are still worth having. In
# every mode the step's log and the job summary ($GITHUB_STEP_SUMMARY) get
# the findings per rule and where the results went, so a red step is never
# silent.
set -uo pipefail

# -d '': read every line, not only the first, so that a workflow's
# `paths: |` block (one path per line) is checked whole. read then returns
# 1 at the end of its input, which is expected here.
read -r -d '' -a paths <<< "${BDXLINT_PATHS:-.}"
# xargs splits words as a shell would (quotes and backslashes), without
# running anything: `--baseline "my baseline.json"` stays one argument.
extra=()
if [ -n "${BDXLINT_ARGS:-}" ]; then
    if ! mapfile -d '' extra < <(printf '%s' "$BDXLINT_ARGS" | xargs printf '%s\0'); then
        echo "bdxlint action: cannot split args: $BDXLINT_ARGS" >&2
        echo "exit-code=2" >> "${GITHUB_OUTPUT:-/dev/null}"
        exit 2
    fi
fi
format="${BDXLINT_FORMAT:-github}"
sarif="${BDXLINT_SARIF_FILE:-bdxlint.sarif}"
output="${GITHUB_OUTPUT:-/dev/null}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
report=$(mktemp)
trap 'rm -f "$report"' EXIT

# Findings per rule, most frequent first, from the rule codes the report
# names (`title=C003 ...` in annotations, `"ruleId": "C003"` in SARIF).
per_rule() {
    grep -oE "$1" "$report" | grep -oE '[A-Z][0-9]{3}' | sort | uniq -c | sort -k1,1nr -k2,2
}

case "$format" in
    github)
        bdxlint check --output-format github "${extra[@]}" "${paths[@]}" > "$report"
        code=$?
        cat "$report"
        counts=$(per_rule 'title=[A-Z][0-9]{3} ')
        note="Findings are annotations on the files (GitHub shows the first 10 errors and 10 warnings of a step)."
        ;;
    sarif)
        dir=$(dirname -- "$sarif")
        if [ ! -d "$dir" ]; then
            echo "bdxlint action: the directory of sarif-file ($dir) does not exist; create it in an earlier step or choose another sarif-file" >&2
            echo "exit-code=2" >> "$output"
            exit 2
        fi
        category="${BDXLINT_CATEGORY:-}"
        if [ -z "$category" ]; then
            category="bdxlint:$(printf '%s,' "${paths[@]}" | sed 's/,$//')"
        fi
        # --output-file writes the log whole or not at all, and prints the
        # summary line on stderr, into the step's log.
        bdxlint check --output-format sarif --output-file "$sarif" "${extra[@]}" "${paths[@]}"
        code=$?
        echo "sarif-file=$sarif" >> "$output"
        echo "category=$category" >> "$output"
        if [ -s "$sarif" ]; then
            echo "sarif-ready=true" >> "$output"
            cp -- "$sarif" "$report"
            counts=$(per_rule '"ruleId": "[A-Z][0-9]{3}"')
            note="The results are in $sarif, uploaded to code scanning (category $category: the Security tab, and the pull request's checks). On a pull request from a fork, GitHub does not allow the upload: run with output-format github there to see annotations."
        else
            counts=""
            note="bdxlint wrote no SARIF log: see the error above."
        fi
        ;;
    *)
        echo "bdxlint action: output-format must be github or sarif, not \"$format\"" >&2
        echo "exit-code=2" >> "$output"
        exit 2
        ;;
esac

case "$code" in
    0) verdict="bdxlint found nothing to report (exit 0)." ;;
    1) verdict="bdxlint found problems (exit 1)." ;;
    *) verdict="bdxlint could not check everything (exit $code)." ;;
esac
{
    echo "$verdict $note"
    if [ -n "$counts" ]; then
        echo "Findings per rule:"
        echo "$counts"
    fi
} >&2
{
    echo "### bdxlint"
    echo
    echo "$verdict $note"
    if [ -n "$counts" ]; then
        echo
        echo "| Rule | Findings |"
        echo "|---|---|"
        echo "$counts" | while read -r n rule; do echo "| \`$rule\` | $n |"; done
    fi
} >> "$summary"
echo "exit-code=$code" >> "$output"
exit "$code"
