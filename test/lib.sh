# Shared by the shell tests (test/cluster/, test/memcheck/) and the scripts
# that run them (scripts/test.sh, scripts/demo.sh, bench/sql_bench.sh):
# the PostgreSQL version and port defaults, the one psql wrapper, and
# "ok"/"not ok" lines with the closing count.  Sourced, never run.

# The PostgreSQL major version to build and test against (PG_MAJOR=16 ...
# for another installed one), and its pg_config.
PG_MAJOR="${PG_MAJOR:-15}"
PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}"
# The port of a throwaway cluster: one per run, so that runs can overlap.
PGV_PORT="${PGV_PORT:-$((20000 + $$ % 20000))}"

# q DB SQL [psql options...]: SQL's result in database DB, unaligned and
# without headers, psqlrc ignored; an error stops it (exit status 1, the
# message on stderr).  pg_virtualenv's PGHOST, PGPORT and PGUSER say where.
q() {
  local db=$1 sql=$2
  shift 2
  psql -X -qAt -v ON_ERROR_STOP=1 "$@" -d "$db" -c "$sql"
}

pass=0
fail=0

# check NAME EXPECTED ACTUAL
check() {
  if [ "$2" = "$3" ]; then echo "ok - $1"; pass=$((pass + 1))
  else echo "not ok - $1: expected '$2', got '$3'"; fail=$((fail + 1)); fi
}

# finish: prints "N passed, N failed" and exits 0 when nothing failed
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
