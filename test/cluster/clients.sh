#!/usr/bin/env bash
# The client libraries against this server (run by scripts/test.sh inside a
# throwaway cluster; libpq's PG* variables select it): the checked-in test
# vectors are what the server computes today, then the Python suite (pytest,
# Debian's python3) and the JavaScript suite (node's test runner) with their
# cross-checks against the server enabled, and the JavaScript module in
# headless Chromium against the vectors.  Ends with "N passed, N failed",
# the two suites' counts summed (and one check for the browser's run).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../lib.sh"
start=$(date +%s)
export PGCUCKOO_SERVER_TESTS=1 PYTHONDONTWRITEBYTECODE=1

psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS cuckoo" >/dev/null
check "extension created" 0 $?

# the vectors the clients test against, regenerated from this server (when
# it is of the major version they were made with: value output differs a
# little between versions, e.g. numeric infinities are new in 14)
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
made_on=$(grep -oE '"generated_by": "[^"]*PostgreSQL [0-9]+' "$root/clients/vectors/hashes.json" | grep -oE '[0-9]+$')
server=$(( $(psql -X -At -c "SHOW server_version_num") / 10000 ))
if [ "$made_on" != "$server" ]; then
  echo "# clients/vectors were made on PostgreSQL $made_on, this is $server: not regenerated"
elif bash "$root/clients/vectors/generate.sh" "$fresh" >/dev/null 2>"$fresh/err"; then
  stale=""
  for f in hashes filters ops unions agg invalid ops_v2; do
    grep -v '"generated_by"' "$fresh/$f.json" >"$fresh/$f.new"
    grep -v '"generated_by"' "$root/clients/vectors/$f.json" >"$fresh/$f.old"
    cmp -s "$fresh/$f.new" "$fresh/$f.old" || stale="$stale $f.json"
  done
  check "clients/vectors are what this server computes (else run clients/vectors/generate.sh)" "" "${stale# }"
else
  check "clients/vectors/generate.sh runs" ok failed; sed 's/^/#   /' "$fresh/err" | tail -n 5
fi

# Values probed per family and shape by both clients' cross-checks: 25,000,
# not their default 100,000; they keep every family's special values, e.g.
# float8's NaN, -0 and infinities at every 10,000th row, and take a fourth
# of the time (docs/CONTRIBUTING.md, "The test command's time"; the
# JavaScript suite needs at least 22,001, the highest row its changes name).
probes=${PGCUCKOO_PROBES:-25000}
# Both clients' scale tests of address-budget filters at a smaller size,
# every assertion kept (clients/python/README.md and clients/js/README.md,
# PGCUCKOO_LIGHT; 0: full size)
light=${PGCUCKOO_LIGHT:-1}

# Python: pytest's summary line, e.g. "3 failed, 179 passed, 1 error in 80.1s"
py_out=$(cd "$root/clients/python" && PGCUCKOO_PROBES="$probes" PGCUCKOO_LIGHT="$light" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests 2>&1)
py_line=$(echo "$py_out" | tail -n 1)
echo "$py_out" | grep -E '^(FAILED|ERROR) ' | sed 's/^/not ok - python: /'
py_pass=$(echo "$py_line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0)
py_fail=$(( $(echo "$py_line" | grep -oE '[0-9]+ (failed|error|errors)' | grep -oE '^[0-9]+' | paste -sd+ - | sed 's/^$/0/') ))
py_skip=$(echo "$py_line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || echo 0)
[ "$py_pass" -gt 0 ] || { py_fail=$((py_fail + 1)); echo "$py_out" | tail -n 20 | sed 's/^/#   /'; }
[ "$py_skip" -eq 0 ] || { echo "not ok - python: $py_skip tests skipped"; py_fail=$((py_fail + py_skip)); }
echo "# python (pytest): $py_line"

# JavaScript: node-postgres from the lock file, then node's test runner
js_out=$(cd "$root/clients/js" && npm ci --no-audit --no-fund --loglevel=error 2>&1 &&
  PGCUCKOO_PROBES="$probes" PGCUCKOO_LIGHT="$light" npm test 2>&1)
echo "$js_out" | grep -E '^not ok' | sed 's/^not ok [0-9]* - /not ok - js: /'
js_pass=$(echo "$js_out" | grep -E '^# pass [0-9]+' | tail -n 1 | awk '{print $3}')
js_fail=$(echo "$js_out" | grep -E '^# fail [0-9]+' | tail -n 1 | awk '{print $3}')
js_skip=$(echo "$js_out" | grep -E '^# skipped [0-9]+' | tail -n 1 | awk '{print $3}')
if [ -z "$js_pass" ]; then js_pass=0; js_fail=1; echo "$js_out" | tail -n 20 | sed 's/^/#   /'; fi
[ "${js_skip:-0}" -eq 0 ] || { echo "not ok - js: $js_skip tests skipped"; js_fail=$((js_fail + js_skip)); }
echo "# js (node --test): $js_pass passed, $js_fail failed"

# the JavaScript module in a browser: headless Chromium runs the shared
# vectors through it (clients/js/browser/check.mjs; a few seconds)
if command -v chromium >/dev/null; then
  br_out=$(cd "$root/clients/js" && timeout 180 node browser/check.mjs 2>&1)
  br_rc=$?
  echo "$br_out" | grep '^# ' | head -n 20
  check "js in headless chromium: $(echo "$br_out" | tail -n 1 | sed -E 's/\(Mozilla.*(HeadlessChrome\/[0-9.]+)[^;]*;/(\1;/')" 0 "$br_rc"
else
  echo "# chromium is not installed (scripts/install-deps.sh --test installs it): browser check not run"
fi

pass=$((pass + py_pass + js_pass))
fail=$((fail + py_fail + js_fail))
echo "# clients: $(($(date +%s) - start)) s"
finish
