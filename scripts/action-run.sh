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
# It writes `exit-code=N` (and `sarif-file=...`) to $GITHUB_OUTPUT when set
# and exits with bdxlint's status, so the step fails on findings. In SARIF
# mode the action uploads the file in a later step that runs regardless.
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
        bdxlint check --output-format sarif "${extra[@]}" "${paths[@]}" > "$sarif"
        code=$?
        echo "sarif-file=$sarif" >> "$output"
        ;;
    *)
        echo "bdxlint action: output-format must be github or sarif, not \"$format\"" >&2
        code=2
        ;;
esac
echo "exit-code=$code" >> "$output"
exit "$code"
