#!/usr/bin/env bash
# The install steps of the composite GitHub Action (action.yml), kept as a
# script so the download can be tested against a local server
# (tests/dist/dist.rs).
#
#   action-install.sh locate    writes dir=, key= and cacheable= to
#                               $GITHUB_OUTPUT: where this ref's bdxlint
#                               goes, for the cache step
#   action-install.sh install   puts bdxlint in $BDXLINT_INSTALL_DIR/bin
#                               (unless the cache restored it there) and
#                               that directory on $GITHUB_PATH
#
# Which release: the action's own repository and ref, from the directory
# the runner checked the action out to ($GITHUB_ACTION_PATH ends in
# _actions/OWNER/REPO/REF), or from `github.action_repository` and
# `github.action_ref` (BDXLINT_ACTION_REPOSITORY, BDXLINT_ACTION_REF) when
# they agree with it: in a composite action nested in another, those two
# name the outer action. Where the release lives: $GITHUB_SERVER_URL (the
# runner's, a GitHub Enterprise server's, or a test's), so no address is
# written here. A release is the tag's SHA256SUMS and one archive per
# platform, as .github/workflows/release.yml attaches them:
# bdxlint-TARGET.tar.gz (bdxlint-TARGET.zip on Windows), bdxlint inside.
#
# What happens:
#   - a release with this platform's archive: downloaded, its SHA-256
#     checked against SHA256SUMS (a mismatch or a missing archive fails the
#     step: nothing unverified runs), unpacked;
#   - no release for this ref (a commit SHA, a branch; SHA256SUMS answers
#     404) or none for this platform: built from the action's own source
#     with `cargo install --locked`, as before releases existed;
#   - any other answer from the server: the step fails and says so, rather
#     than spend minutes building because of a network error.
# A tag or a commit SHA always names the same code, so its binary is
# cached (cacheable=true); a branch moves, and is built each time.
set -euo pipefail

mode="${1:-}"
output="${GITHUB_OUTPUT:-/dev/null}"

fail() {
    echo "bdxlint action: $*" >&2
    exit 1
}

# The Rust target of the runner's platform, or "" for one the release
# workflow builds nothing for.
target() {
    case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
        Linux/X64) echo x86_64-unknown-linux-gnu ;;
        Linux/ARM64) echo aarch64-unknown-linux-gnu ;;
        macOS/X64) echo x86_64-apple-darwin ;;
        macOS/ARM64) echo aarch64-apple-darwin ;;
        Windows/X64) echo x86_64-pc-windows-msvc ;;
        *) echo "" ;;
    esac
}

# Sets `repo` (OWNER/REPO) and `ref` for the action as checked out, or
# leaves them empty for an action used from a local path (`uses: ./`).
where_from() {
    repo=""
    ref=""
    local path="${GITHUB_ACTION_PATH:-}"
    path="${path//\\//}"
    path="${path%/}"
    local given_repo="${BDXLINT_ACTION_REPOSITORY:-}" given_ref="${BDXLINT_ACTION_REF:-}"
    if [ -n "$given_repo" ] && [ -n "$given_ref" ] && [[ "$path" == */"$given_repo/$given_ref" ]]; then
        repo="$given_repo"
        ref="$given_ref"
        return
    fi
    # _actions/OWNER/REPO/REF, where REF may hold slashes (release/v1).
    if [[ "$path" == */_actions/*/*/* ]]; then
        local rest="${path##*/_actions/}"
        local owner="${rest%%/*}"
        rest="${rest#*/}"
        local name="${rest%%/*}"
        ref="${rest#*/}"
        repo="$owner/$name"
    fi
}

is_sha() {
    [[ "$1" =~ ^[0-9a-f]{40}$ ]]
}

# A tag vX.Y.Z or a commit SHA names the same code on every run.
fixed_ref() {
    [ -n "$ref" ] && { is_sha "$ref" || [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; }
}

locate() {
    where_from
    local t
    t=$(target)
    local base="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}"
    local cacheable=false
    fixed_ref && cacheable=true
    local label="${ref:-local}"
    label="${label//\//-}"
    local dir="$base/bdxlint/$label/${t:-$(uname -m)}"
    {
        echo "dir=$dir"
        echo "key=bdxlint-${repo//\//-}-$label-${t:-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}}"
        echo "cacheable=$cacheable"
    } >> "$output"
}

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

# GETs $1 into $2; prints the HTTP status (000 when no answer came).
get() {
    curl --silent --show-error --location --retry 3 --connect-timeout 20 \
        --output "$2" --write-out '%{http_code}' "$1" || true
}

build() {
    echo "bdxlint action: $1; building bdxlint from the action's source (cargo install --locked)" >&2
    command -v cargo >/dev/null 2>&1 ||
        fail "cargo is needed to build bdxlint here; use a release tag (uses: OWNER/REPO@vX.Y.Z) on a platform the release has a binary for"
    cargo install --locked --quiet --path "$GITHUB_ACTION_PATH" --root "$dir" >&2
}

# Downloads, checks and unpacks the release archive into $dir/bin; returns
# 1 (after saying why) when there is no release to download from.
download() {
    local t="$1"
    [ -n "$t" ] || { build "the release has no binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"; return; }
    [ -n "$ref" ] || { build "the action is used from a local path, not a release"; return; }
    is_sha "$ref" && { build "$ref is a commit, not a release tag"; return; }
    local server="${GITHUB_SERVER_URL:-}"
    [ -n "$server" ] || { build "GITHUB_SERVER_URL is not set, so no release can be found"; return; }
    local url="${server%/}/$repo/releases/download/$ref"
    local tmp
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064 # expand now: tmp is local
    trap "rm -rf '$tmp'" EXIT
    local code
    code=$(get "$url/SHA256SUMS" "$tmp/SHA256SUMS")
    case "$code" in
        200) ;;
        404) build "no release named $ref in $repo"; return ;;
        *) fail "could not read $url/SHA256SUMS (HTTP $code); rerun the job, or pin a commit SHA to build from source" ;;
    esac
    local asset="bdxlint-$t.tar.gz"
    [ "${RUNNER_OS:-}" = Windows ] && asset="bdxlint-$t.zip"
    local want
    want=$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1; exit }' "$tmp/SHA256SUMS")
    [ -n "$want" ] || { build "release $ref lists no $asset"; return; }
    code=$(get "$url/$asset" "$tmp/$asset")
    [ "$code" = 200 ] || fail "release $ref lists $asset but the server answered HTTP $code for it"
    local got
    got=$(sha256 "$tmp/$asset")
    [ "$got" = "$want" ] ||
        fail "$asset of release $ref has SHA-256 $got, but SHA256SUMS says $want: not installing it"
    mkdir -p "$tmp/unpacked"
    case "$asset" in
        *.zip) unzip -q -o "$tmp/$asset" -d "$tmp/unpacked" ;;
        *) tar -xzf "$tmp/$asset" -C "$tmp/unpacked" ;;
    esac
    local bin
    bin=$(find "$tmp/unpacked" -type f \( -name bdxlint -o -name bdxlint.exe \) | head -n 1)
    [ -n "$bin" ] || fail "$asset of release $ref holds no bdxlint binary"
    chmod +x "$bin"
    mkdir -p "$dir/bin"
    mv -f "$bin" "$dir/bin/"
    echo "bdxlint action: installed $asset from release $ref (SHA-256 $got)" >&2
}

install() {
    dir="${BDXLINT_INSTALL_DIR:?BDXLINT_INSTALL_DIR is the dir= that locate wrote}"
    where_from
    local exe=bdxlint
    [ "${RUNNER_OS:-}" = Windows ] && exe=bdxlint.exe
    if fixed_ref && [ -x "$dir/bin/$exe" ] && "$dir/bin/$exe" --version >/dev/null 2>&1; then
        echo "bdxlint action: $("$dir/bin/$exe" --version) from the cache" >&2
    else
        # A branch's binary left by an earlier job on a self-hosted runner
        # is older code: never reuse it.
        rm -rf "${dir:?}/bin"
        download "$(target)"
    fi
    "$dir/bin/$exe" --version >&2 || fail "the installed bdxlint does not run"
    echo "$dir/bin" >> "${GITHUB_PATH:-/dev/null}"
}

case "$mode" in
    locate) locate ;;
    install) install ;;
    *) fail "usage: action-install.sh locate|install" ;;
esac
