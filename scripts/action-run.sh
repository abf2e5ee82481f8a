#!/usr/bin/env bash
# The run step of the composite GitHub Action (action.yml), kept as a script
# so it can be run and tested outside GitHub (tests/it/integrations.rs).
#
# Inputs arrive as environment variables:
#   BDXLINT_PATHS        files, directories or glob patterns, one a line
#                        (a line is one path, spaces and all; blank lines
#                        and the spaces around a line are dropped; default
#                        "."). A line that names no file but holds `*`, `?`
#                        or `[` is a pattern, expanded here (`**` crosses
#                        directories, hidden files only where the pattern
#                        names them); a pattern that matches nothing is an
#                        error (exit 2), as a missing file is.
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

# One path a line, so that a path with spaces (`HR exports/May.csv`)
# stays one; `lines` keeps them as written, for the default category, and
# `paths` holds what the patterns matched.
lines=()
paths=()
LC_COLLATE=C
shopt -s globstar nullglob
while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [ -n "$line" ] || continue
    lines+=("$line")
    if [ -e "$line" ] || [[ "$line" != *[\*\?\[]* ]]; then
        paths+=("$line")
        continue
    fi
    # Unquoted to expand the pattern, with IFS empty so that its spaces do
    # not split it; sorted bytewise (LC_COLLATE), the same on every runner.
    saved_ifs="$IFS"
    IFS=
    # shellcheck disable=SC2206 # the expansion is the point
    matches=($line)
    IFS="$saved_ifs"
    if [ "${#matches[@]}" -eq 0 ]; then
        echo "bdxlint action: paths: $line matches no file" >&2
        echo "exit-code=2" >> "${GITHUB_OUTPUT:-/dev/null}"
        exit 2
    fi
    paths+=("${matches[@]}")
done <<< "${BDXLINT_PATHS:-.}"
shopt -u globstar nullglob
if [ "${#lines[@]}" -eq 0 ]; then
    lines=(.)
    paths=(.)
fi
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
            category="bdxlint:$(printf '%s,' "${lines[@]}" | sed 's/,$//')"
        fi
        # A log left by an earlier step or run must not pass for this run's:
        # bdxlint leaves an --output-file as it was when it cannot start (a
        # usage error), and the upload step would send the stale one.
        if ! rm -f -- "$sarif" || [ -e "$sarif" ] || [ -L "$sarif" ]; then
            echo "bdxlint action: cannot remove the earlier $sarif; choose another sarif-file" >&2
            echo "exit-code=2" >> "$output"
            exit 2
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
