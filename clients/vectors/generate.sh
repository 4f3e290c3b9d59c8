#!/usr/bin/env bash
# Regenerates the test vectors in this directory from a running server with
# the cuckoo extension installed (libpq's PGHOST, PGPORT, PGUSER, PGDATABASE
# select it), e.g.
#   pg_virtualenv -v 15 bash clients/vectors/generate.sh
# The files are JSON, re-indented so that a change shows as a small diff.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="${1:-$here}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
psql -X -q -A -t -v ON_ERROR_STOP=1 -v dir="$tmp" -f "$here/generate.sql" >/dev/null
for f in hashes filters ops unions agg invalid ops_v2; do
  /usr/bin/python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
doc["generated_by"] = sys.argv[3]
# growing filters without the address budget can no longer be made by the
# server: their frozen answers (legacy_t9.json) are appended, names t9_*
legacy = json.load(open(sys.argv[4])).get(sys.argv[5], [])
if legacy:
    key = {"filters": "filters", "ops_v2": "ops", "unions": "unions"}[sys.argv[5]]
    doc[key] = [v for v in doc[key] if not v["name"].startswith("t9_")] + legacy
# one list entry per line: small diffs, files of a sensible size
with open(sys.argv[2], "w") as out:
    out.write("{\n")
    keys = list(doc)
    for n, key in enumerate(keys):
        out.write(" %s: " % json.dumps(key))
        val = doc[key]
        if isinstance(val, list):
            out.write("[\n" + ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in val) + "\n ]")
        else:
            out.write(json.dumps(val, ensure_ascii=False))
        out.write(",\n" if n + 1 < len(keys) else "\n")
    out.write("}\n")' "$tmp/$f.json" "$out/$f.json" \
    "clients/vectors/generate.sh on PostgreSQL $(psql -X -Atc 'SHOW server_version' | cut -d' ' -f1), cuckoo $(psql -X -Atc "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")" \
    "$here/legacy_t9.json" "$f"
done
echo "wrote $(cd "$out" && ls hashes.json filters.json ops.json unions.json agg.json invalid.json ops_v2.json | tr '\n' ' ')to $out"
