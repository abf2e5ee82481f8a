#!/usr/bin/env bash
# Seeds each fuzz target's corpus (fuzz/corpus/<target>/) from testdata/, in
# the input layout its entry point (fuzz/src/lib.rs) reads. Small files
# only: libFuzzer grows the corpus from there.
set -euo pipefail
cd "$(dirname "$0")"
data=../testdata
mkdir -p corpus/{check_file,chunk_boundary,json_cell,filter_grammar,zip_bundle,row_fix}

# The format-picking byte: the table's index in schema::tables(), which is
# the order of TABLES in src/schema/registry.rs; 0 is fine too (libFuzzer
# mutates it).
n=0
for f in "$data"/*/*.csv "$data"/batch/*/*.csv; do
    [ "$(stat -c %s "$f")" -le 4096 ] || continue
    n=$((n + 1))
    name=$(echo "${f#"$data"/}" | tr '/' '_')
    { printf "\\x$(printf %02x $((n % 16)))"; cat "$f"; } > "corpus/check_file/$name"
    # chunk_boundary: a chunk-size byte, then the format byte.
    { printf "\\x$(printf %02x $((n % 128)))\\x$(printf %02x $((n % 16)))"; cat "$f"; } > "corpus/chunk_boundary/$name"
done

# row_fix: the damaged halves of the fix pairs, each with its own format
# byte, in chunks of 8 bytes (a row a chunk) and of 320 (rows fixed before
# others in one chunk; see row_fix in src/lib.rs for the size byte).
python3 - "$data" <<'PY'
import glob, os, re, sys
data = sys.argv[1]
mod = open(os.path.join(data, "..", "src", "schema", "registry.rs")).read()
tables = re.findall(r'\(\s*"([a-z0-9-]+)",\s*include_str', mod[mod.index("const TABLES"):])
for f in sorted(glob.glob(os.path.join(data, "fixes", "*", "*.csv"))):
    if f.endswith(".fixed.csv"):
        continue
    fmt = os.path.basename(os.path.dirname(f))
    body = open(f, "rb").read()
    for size in (7, 36):
        name = f"fix_{fmt}_{os.path.basename(f)}.{size}"
        with open(os.path.join("corpus", "row_fix", name), "wb") as out:
            out.write(bytes([size, tables.index(fmt)]) + body)
PY

# JSON cells and filter values: every quoted cell of the fixtures that
# looks like JSON, unescaped.
python3 - "$data" <<'PY'
import csv, glob, hashlib, os, sys
data = sys.argv[1]
seen = set()
for path in sorted(glob.glob(os.path.join(data, "*", "*.csv"))):
    filters = "/filters/" in path
    try:
        rows = list(csv.reader(open(path, encoding="utf-8", newline="")))
    except (UnicodeDecodeError, csv.Error):
        continue
    for row in rows[1:]:
        for cell in row:
            s = cell.strip()
            if not s or s[0] not in "{[" or len(s) > 4096:
                continue
            key = hashlib.sha1(s.encode()).hexdigest()[:16]
            if key in seen:
                continue
            seen.add(key)
            target = "filter_grammar" if filters else "json_cell"
            with open(os.path.join("corpus", target, key), "w", encoding="utf-8") as f:
                f.write(s)
PY

# Bundles: small archives of the fixtures, as the two bundle kinds hold
# them, stored and deflated; and one whose member is not CSV.
python3 - "$data" <<'PY'
import os, sys, zipfile
data = sys.argv[1]
def read(*p):
    return open(os.path.join(data, *p), "rb").read()
entities = read("entities", "valid.csv")
bundles = {
    "bulk": [("entities.csv", entities), ("relations.csv", read("entity-relations", "valid.csv"))],
    "rbac": [("roles.csv", read("entity-rbac-relations", "valid.csv")), ("entities.csv", entities)],
    "one-member": [("entities.csv", entities)],
    "not-csv": [("notes.txt", b"hello\n"), ("entities.csv", entities)],
}
for name, members in bundles.items():
    for method, tag in [(zipfile.ZIP_STORED, "stored"), (zipfile.ZIP_DEFLATED, "deflated")]:
        with zipfile.ZipFile(os.path.join("corpus", "zip_bundle", f"{name}-{tag}.zip"), "w", method) as z:
            for n, b in members:
                z.writestr(n, b)
PY
for t in corpus/*; do echo "$t: $(ls "$t" | wc -l) files"; done
