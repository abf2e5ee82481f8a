#!/usr/bin/env bash
# Whole-program benchmark: generates deterministic data (examples/gen_data.rs),
# then runs the parse floor (examples/parse_floor.rs: the csv crate's
# ByteRecord loop, single-threaded) and bdxlint at 1 thread and at every core,
# in the same run, and prints MB/s, rows/s, peak RSS and the ratio to the
# floor. Best of $RUNS runs (default 3). Needs GNU time (/usr/bin/time).
#
# Usage: benches/whole-program.sh [ROWS]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
RUNS=${RUNS:-3}
DATA=benches/data
mkdir -p "$DATA"
cargo build --release --quiet --bin bdxlint --example parse_floor --example gen_data
BIN=target/release/bdxlint
FLOOR=target/release/examples/parse_floor
GEN=target/release/examples/gen_data
CORES=$(nproc)
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT

# One measurement: prints "seconds peak_kb" for the best (fastest) run.
measure() {
    local best="" best_kb=""
    for _ in $(seq "$RUNS"); do
        local out
        /usr/bin/time -f "%e %M" -o "$TIMES" "$@" >/dev/null 2>&1 || true
        out=$(tail -1 "$TIMES")
        local s=${out% *} kb=${out#* }
        if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then
            best=$s best_kb=$kb
        fi
    done
    echo "$best $best_kb"
}

printf '%-13s %-22s %8s %8s %11s %9s %9s\n' format run seconds MB/s rows/s "RSS MiB" "vs floor"
for format in entitlements employees; do
    file="$DATA/$format-$ROWS.csv"
    [ -s "$file" ] || "$GEN" "$format" "$ROWS" > "$file"
    bytes=$(stat -c %s "$file")
    read -r floor_s floor_kb < <(measure "$FLOOR" "$file")
    row() {
        local name=$1 s=$2 kb=$3
        awk -v f="$format" -v n="$name" -v s="$s" -v kb="$kb" -v b="$bytes" -v r="$ROWS" -v fl="$floor_s" \
            'BEGIN { if (s == 0) s = 0.001;
                     printf "%-13s %-22s %8.2f %8.0f %11.0f %9.1f %8.2fx\n", f, n, s, b/1e6/s, r/s, kb/1024, fl/s }'
    }
    row "parse floor (1 thread)" "$floor_s" "$floor_kb"
    read -r s kb < <(measure "$BIN" check --format "$format" --output-format json --threads 1 "$file")
    row "bdxlint --threads 1" "$s" "$kb"
    read -r s kb < <(measure "$BIN" check --format "$format" --output-format json --threads "$CORES" "$file")
    row "bdxlint --threads $CORES" "$s" "$kb"
done
echo "(vs floor: the floor's time divided by this run's; >= 1.00x is at least as fast as the floor)"
