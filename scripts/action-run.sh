#!/usr/bin/env bash
# The run step of the composite GitHub Action (action.yml), kept as a script
# so it can be run and tested outside GitHub (tests/integrations.rs).
#
# Inputs arrive as environment variables:
#   BDXLINT_PATHS        files or directories, split on whitespace, newlines
#                        included (default ".")
#   BDXLINT_FORMAT       "github" (annotations) or "sarif" (a file to upload)
#   BDXLINT_ARGS         extra flags for `bdxlint check`, split on whitespace
#                        (newlines included)
#   BDXLINT_SARIF_FILE   where the SARIF log goes (default bdxlint.sarif)
# It writes `exit-code=N` (and `sarif-file=...`, and `sarif-ready=true` once
# a whole log is written) to $GITHUB_OUTPUT when set and exits with
# bdxlint's status, so the step fails on findings. In SARIF mode the action
# uploads the log in a later step that runs regardless, even when some file
# could not be read (exit 2): the log then lists it, and every other file's
# results are still worth having. The step's own log (and the job summary,
# $GITHUB_STEP_SUMMARY) says what was found and where the results went, so
# a red step is never silent.
set -uo pipefail

# -d '': read every line, not only the first, so that a workflow's
# `paths: |` block (one path per line) is checked whole. read then returns
# 1 at the end of its input, which is expected here.
read -r -d '' -a paths <<< "${BDXLINT_PATHS:-.}"
read -r -d '' -a extra <<< "${BDXLINT_ARGS:-}"
format="${BDXLINT_FORMAT:-github}"
sarif="${BDXLINT_SARIF_FILE:-bdxlint.sarif}"
output="${GITHUB_OUTPUT:-/dev/null}"

case "$format" in
    github)
        bdxlint check --output-format github "${extra[@]}" "${paths[@]}"
        code=$?
        ;;
    sarif)
        # --output-file writes the log whole or not at all, and prints the
        # summary line on stderr, into the step's log.
        bdxlint check --output-format sarif --output-file "$sarif" "${extra[@]}" "${paths[@]}"
        code=$?
        echo "sarif-file=$sarif" >> "$output"
        if [ -s "$sarif" ]; then
            echo "sarif-ready=true" >> "$output"
            note="The results are in $sarif, uploaded to code scanning (the Security tab, and the pull request's checks). On a pull request from a fork, GitHub does not allow the upload: run with output-format github there to see annotations."
        else
            note="bdxlint wrote no SARIF log: see the error above."
        fi
        case "$code" in
            0) ;;
            1) echo "bdxlint found problems (exit 1). $note" >&2 ;;
            *) echo "bdxlint could not check everything (exit $code). $note" >&2 ;;
        esac
        if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
            echo "bdxlint exit $code. $note" >> "$GITHUB_STEP_SUMMARY"
        fi
        ;;
    *)
        echo "bdxlint action: output-format must be github or sarif, not \"$format\"" >&2
        code=2
        ;;
esac
echo "exit-code=$code" >> "$output"
exit "$code"
