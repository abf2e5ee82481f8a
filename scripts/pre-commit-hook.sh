#!/usr/bin/env bash
# The pre-commit hook's entry (.pre-commit-hooks.yaml, `language: script`).
# pre-commit runs it from the user's repository with the staged file names
# as arguments; $0 lies in pre-commit's clone of this repository at the
# pinned rev. On first use it builds bdxlint there with `cargo build
# --locked`, so the dependency versions are this repository's Cargo.lock
# (pre-commit's own rust support runs `cargo install` without --locked and
# resolves newer ones); later runs find the binary and start at once.
set -euo pipefail
here="$(cd -- "$(dirname -- "$0")/.." && pwd)"
# The clone's own target directory, whatever CARGO_TARGET_DIR says: a
# target directory shared with other projects could hold another bdxlint.
target="$here/target"
bin="$target/release/bdxlint"
if [ ! -x "$bin" ]; then
    if ! command -v cargo >/dev/null 2>&1; then
        echo "bdxlint hook: cargo is needed to build bdxlint on first use (https://rustup.rs), or use the bdxlint-system hook with a bdxlint on PATH" >&2
        exit 2
    fi
    echo "bdxlint hook: building bdxlint from its Cargo.lock (once, about a minute and a half)" >&2
    cargo build --locked --release --quiet --manifest-path "$here/Cargo.toml" --target-dir "$target" --bin bdxlint >&2
fi
exec "$bin" check --force-exclude --strict-detection "$@"
