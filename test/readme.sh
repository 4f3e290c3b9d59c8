#!/usr/bin/env bash
# The README's examples, run as a reader pastes them: every ```sql block of
# README.md in order in one fresh database (psql, stopping at the block's
# first error), then those of docs/REFERENCE.md (the reference's long form)
# in the same database, then the ```python and ```js blocks the way the README says
# to run them (PYTHONPATH=clients/python; the JavaScript module installed with
# npm next to node-postgres).  A line "ok"/"not ok" per block, then
# "N passed, N failed".
#
#   pg_virtualenv bash test/readme.sh    against the server libpq's PG* variables
#                                        name (cuckoo installed there)
#   bash test/readme.sh                  against a private server running this
#                                        tree's build (test/pg_private.sh): the
#                                        system install is not touched
#
# README_LANGS="sql python js" (the default) chooses the languages run; a
# language whose runtime is missing (python3 with psycopg and xxhash; node
# and npm) is a failure, not a skip.  KEEP_WORKDIR=1 keeps the blocks and logs.
#
# The markers, an HTML comment on the line before a block's opening fence
# (invisible on GitHub; docs/CONTRIBUTING.md, "README examples"):
#   <!-- readme-test: error SQLSTATE -->  the block must fail, at its last
#                                         statement, with that SQLSTATE
#   <!-- readme-test: skip REASON -->     not run (it needs a server or an
#                                         extension the test has not: Citus,
#                                         pg_cron, a remote host); reported
#   <!-- readme-test: output -->          on a ```text block: the exact
#                                         output of the python or js block
#                                         before it
# README_REFERENCE= (empty) leaves docs/REFERENCE.md out.  Each line names
# its block as FILE:LINE.  Blocks in other languages (sh, plain ```) are not run.  A fence line with
# text after its language (```` ``` some text ````) is reported as an error:
# Markdown reads it as an opening fence and swallows what follows.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
. "$here/lib.sh"
start=$(date +%s)
langs=" ${README_LANGS:-sql python js} "
# the README names Debian's python3 (python3-psycopg, python3-xxhash)
python=${PYTHON:-/usr/bin/python3}
readme="${README:-$root/README.md}"
# then docs/REFERENCE.md, the reference's long form, in the same database
reference="${README_REFERENCE-$root/docs/REFERENCE.md}"

if [ -z "${PGHOST:-}${PGPORT:-}" ]; then
  # no server given: a private one with this tree's build
  . "$here/pg_private.sh"
  pp_setup readme
  pp_build_lib || { check "build" ok failed; tail -n 20 "$pp_work/build.log" | sed 's/^/#   /'; finish; exit 1; }
  pp_make_tree
  pp_initdb || { check "initdb" ok failed; finish; exit 1; }
  pp_start postgres || { check "server starts" ok failed; finish; exit 1; }
  export PGHOST="$pp_sock" PGPORT="$pp_port" PGUSER=postgres
  work="$pp_work/readme"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/cuckoo-readme.XXXXXX")
  if [ -n "${KEEP_WORKDIR:-}" ]; then trap 'echo "# work directory kept: $work"' EXIT
  else trap 'rm -rf "$work"' EXIT; fi
fi
mkdir -p "$work"
chmod 755 "$work"

# 1. Extract the blocks: $work/blocks lists "N LANG LINE MARKER..." and
# $work/N.LANG holds block N (the fence's indentation removed); WHERE is
# FILE:LINE (README.md:123, docs/REFERENCE.md:45).
awk -v dir="$work" -v root="$root/" '
  FNR == 1 { if (infence) printf "%d malformed %s fence never closed\n", ++n, where >> (dir "/blocks"); infence = 0; marker = ""
             name = FILENAME; if (index(name, root) == 1) name = substr(name, length(root) + 1) }
  { where = name ":" FNR }
  function flush() { close(file) }
  infence == 0 && /^ *```/ {
    line = $0; sub(/^ */, "", line); indent = length($0) - length(line)
    info = substr(line, 4)
    if (info !~ /^[A-Za-z0-9_+-]*$/) {
      printf "%d malformed %s fence line with text after the language: %s\n", ++n, where, line >> (dir "/blocks")
      next
    }
    n++; lang = (info == "" ? "plain" : info); file = dir "/" n "." lang
    printf "" > file
    printf "%d %s %s %s\n", n, lang, where, marker >> (dir "/blocks")
    infence = 1; marker = ""; next
  }
  infence == 1 && /^ *``` *$/ { infence = 0; flush(); next }
  infence == 1 && /^ *```/ {
    printf "%d malformed %s closing fence with text after it: %s\n", ++n, where, $0 >> (dir "/blocks")
    infence = 0; flush(); next
  }
  infence == 1 { l = $0; if (substr(l, 1, indent) ~ /^ *$/) l = substr(l, indent + 1); print l >> file; next }
  /<!-- *readme-test:/ { marker = $0; sub(/.*readme-test: */, "", marker); sub(/ *-->.*/, "", marker); next }
  /[^ ]/ { marker = "" }
  END { if (infence) printf "%d malformed %s fence never closed\n", ++n, where >> (dir "/blocks") }
' "$readme" ${reference:+"$reference"}
[ -s "$work/blocks" ] || { check "README.md has code blocks" yes no; finish; exit 1; }

# 2. A fresh database.
db=cuckoo_readme
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >"$work/createdb.log" 2>&1 ||
  { check "CREATE DATABASE $db" ok failed; sed 's/^/#   /' "$work/createdb.log"; finish; exit 1; }
export PGDATABASE=$db

# run_sql N LINE MARKER: block N through psql; the marker says whether it
# must succeed or fail with a given SQLSTATE
run_sql() {
  local n=$1 line=$2 marker=$3 rc want got
  { echo '\set ON_ERROR_STOP 1'; echo '\set VERBOSITY verbose'; cat "$work/$n.sql"; } >"$work/$n.run.sql"
  psql -X -q -f "$work/$n.run.sql" >"$work/$n.out" 2>&1
  rc=$?
  case $marker in
    error\ *)
      want=${marker#error }
      got=$(grep -oE '^(psql:[^ ]* )?ERROR: +[0-9A-Z]{5}:' "$work/$n.out" | grep -oE '[0-9A-Z]{5}:$' | tr -d : | head -n 1)
      # the error must come from the block's last statement: nothing was left unrun
      local last; last=$(grep -oE '^psql:[^:]+:[0-9]+:' "$work/$n.out" | head -n 1 | cut -d: -f3)
      local stmt_end; stmt_end=$(grep -nE ';[[:space:]]*(--.*)?$' "$work/$n.run.sql" | tail -n 1 | cut -d: -f1)
      if [ "$rc" -ne 0 ] && [ "$got" = "$want" ] && [ "${last:-0}" -eq "${stmt_end:-0}" ]; then
        echo "ok - $line: sql block fails as marked ($want)"; pass=$((pass + 1))
      else
        echo "not ok - $line: sql block should fail with $want at its last statement (exit $rc, SQLSTATE '${got}', at line ${last:-none} of ${stmt_end:-?})"
        sed 's/^/#   /' "$work/$n.out" | head -n 20; fail=$((fail + 1))
      fi ;;
    "")
      if [ "$rc" -eq 0 ]; then echo "ok - $line: sql block"; pass=$((pass + 1))
      else
        echo "not ok - $line: sql block (psql exit $rc)"
        sed 's/^/#   /' "$work/$n.out" | head -n 20; fail=$((fail + 1))
      fi ;;
    *) echo "not ok - $line: unknown marker '$marker'"; fail=$((fail + 1)) ;;
  esac
}

# js_setup: the README's install step, in an empty project directory:
# npm install of clients/js and node-postgres
js_dir=""
js_setup() {
  [ -n "$js_dir" ] && return 0
  js_dir="$work/js-project"
  mkdir -p "$js_dir"
  (cd "$js_dir" && echo '{"private": true}' >package.json &&
    npm install --no-audit --no-fund --loglevel=error "$root/clients/js" pg) >"$work/npm.log" 2>&1
}

# run_client N LANG LINE MARKER: a python or js block, its output kept for
# a following "output" block
run_client() {
  local n=$1 lang=$2 line=$3 marker=$4 rc
  case $marker in
    "") ;;
    *) echo "not ok - $line: unknown marker '$marker' on a $lang block"; fail=$((fail + 1)); return ;;
  esac
  if [ "$lang" = python ]; then
    (cd "$root" && PYTHONPATH=clients/python PYTHONDONTWRITEBYTECODE=1 "$python" "$work/$n.python") >"$work/$n.out" 2>"$work/$n.err"
    rc=$?
  else
    if ! js_setup; then
      echo "not ok - $line: npm install clients/js pg"; sed 's/^/#   /' "$work/npm.log" | tail -n 10
      fail=$((fail + 1)); return
    fi
    cp "$work/$n.js" "$js_dir/example.mjs"
    (cd "$js_dir" && node example.mjs) >"$work/$n.out" 2>"$work/$n.err"
    rc=$?
  fi
  if [ "$rc" -eq 0 ]; then
    echo "ok - $line: $lang block"; pass=$((pass + 1)); last_client_out="$work/$n.out"
  else
    echo "not ok - $line: $lang block (exit $rc)"; sed 's/^/#   /' "$work/$n.err" | head -n 15
    fail=$((fail + 1))
  fi
}

# 3. Run them in order.
last_client_out=""
skipped=0
while read -r n lang line marker; do
  case $lang in
    malformed) echo "not ok - $line: $marker"; fail=$((fail + 1)); continue ;;
  esac
  if [ "${marker%% *}" = skip ]; then
    echo "# skip - $line: $lang block (${marker#skip })"; skipped=$((skipped + 1)); continue
  fi
  case $lang in
    sql) [[ $langs == *" sql "* ]] && run_sql "$n" "$line" "$marker" ;;
    python|js) [[ $langs == *" $lang "* ]] && run_client "$n" "$lang" "$line" "$marker" ;;
    text)
      if [ "$marker" = output ]; then
        if [ -z "$last_client_out" ]; then
          # its block was not run (README_LANGS)
          continue
        elif diff -u "$work/$n.text" "$last_client_out" >"$work/$n.diff"; then
          echo "ok - $line: the output shown is the output"; pass=$((pass + 1))
        else
          echo "not ok - $line: the output shown differs"; sed 's/^/#   /' "$work/$n.diff" | head -n 20
          fail=$((fail + 1))
        fi
        last_client_out=""
      fi ;;
  esac
done <"$work/blocks"

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
echo "# README.md and docs/REFERENCE.md: $(grep -c . "$work/blocks") blocks, $skipped skipped by marker, $(($(date +%s) - start)) s"
if [ -n "${pp_pid:-}" ]; then pp_stop; pp_check_no_crash; fi
finish
