#!/usr/bin/env bash
# META.json against the PGXN Meta Spec 1.0.0 (written down as a JSON schema
# in meta-spec-1.0.0.schema.json), plus what a schema cannot check: the
# versions agree with cuckoo.control, the files it names exist.  A few broken
# copies of META.json must fail the schema, so the check itself can fail.
# Ends with "N passed, N failed".  Needs python3-jsonschema (installed if missing).
set -uo pipefail
cd "$(dirname "$0")/../.."
. test/lib.sh
schema=test/pgxn/meta-spec-1.0.0.schema.json
python3 -c 'import jsonschema' 2>/dev/null || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3-jsonschema >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3-jsonschema >/dev/null; }
}

# validate FILE: "valid", or the schema's first complaint
validate() {
  python3 - "$schema" "$1" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
try:
    meta = json.load(open(sys.argv[2]))
except ValueError as e:
    print("not JSON: %s" % e); sys.exit(0)
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(meta), key=lambda e: list(e.path))
print("valid" if not errors else "%s: %s" % ("/".join(map(str, errors[0].path)) or "top", errors[0].message))
PY
}
# field PATH...: a value of META.json
field() { python3 -c 'import json, sys
v = json.load(open("META.json"))
for k in sys.argv[1:]: v = v[k]
print(v)' "$@"; }

check "META.json is valid against the PGXN Meta Spec 1.0.0 schema" valid "$(validate META.json)"

# The same file with one rule broken: each must be refused.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
while IFS='|' read -r what expr; do
  n=$((n + 1))
  python3 -c "import json; m = json.load(open('META.json')); $expr; json.dump(m, open('$tmp/m$n.json', 'w'))"
  out=$(validate "$tmp/m$n.json")
  check "refused: $what" 1 "$([ "$out" != valid ] && echo 1)"
done <<'CASES'
no name|del m['name']
no provides|del m['provides']
version not semantic (1.0)|m['version'] = '1.0'
version with a leading zero|m['version'] = '01.0.0'
license not in the spec's list|m['license'] = 'GPL'
provides without file|del m['provides']['cuckoo']['file']
provides with an unknown key|m['provides']['cuckoo']['doc'] = 'README.md'
meta-spec version other than 1.0.0|m['meta-spec']['version'] = '2.0.0'
unknown top-level key (custom keys need x_)|m['homepage'] = 'https://example.org'
prereqs phase not in the spec|m['prereqs']['install'] = {'requires': {'PostgreSQL': '13.0.0'}}
prereqs version not a range|m['prereqs']['runtime']['requires']['PostgreSQL'] = '13'
tag with a slash|m['tags'].append('a/b')
CASES
check "a custom x_ key is accepted" valid "$(python3 -c "import json; m = json.load(open('META.json')); m['x_ci'] = 1; json.dump(m, open('$tmp/x.json', 'w'))"; validate "$tmp/x.json")"

# Agreement with the extension itself.
extversion=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" cuckoo.control)
semver=$extversion
while [ "$(echo "$semver" | tr -cd . | wc -c)" -lt 2 ]; do semver="$semver.0"; done
check "version is cuckoo.control's default_version as a semantic version ($semver)" "$semver" "$(field version)"
check "provides cuckoo at that version" "$semver" "$(field provides cuckoo version)"
check "provides file is the install script of that version" "cuckoo--$extversion.sql" "$(field provides cuckoo file)"
for key in file docfile; do
  f=$(field provides cuckoo "$key")
  check "provides $key $f exists" 1 "$([ -f "$f" ] && echo 1)"
done
check "PostgreSQL prerequisite matches the oldest version debian/pgversions builds" \
  "$(sed -n 's/^\([0-9]*\)+$/\1.0.0/p' debian/pgversions)" "$(field prereqs runtime requires PostgreSQL)"
check "name is the extension's (cuckoo.control)" cuckoo "$(field name)"

finish
