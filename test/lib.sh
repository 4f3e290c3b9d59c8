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

# wait_server_gone DATADIR: after a kill -9 of the postmaster, waits (up to
# 60 s) until no process is left attached to the killed server's shared
# memory (its key is on line 7 of DATADIR/postmaster.pid): backends forked
# after a list of them was taken, busy ones, the postmaster itself; until
# then a new postmaster refuses to start ("pre-existing shared memory block
# is still in use", seen in the Debian 11 tree).  Those still there after
# 10 s are killed too, as the crash already killed their server.
wait_server_gone() {
  local dir=$1 key hex i pids
  key=$(sed -n '7p' "$dir/postmaster.pid" 2>/dev/null | awk '{print $1}')
  [ -n "$key" ] || return 0
  hex=$(printf 'SYSV%08x' "$key")
  for i in $(seq 1 60); do
    pids=$(grep -l "$hex" /proc/[0-9]*/maps 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
    [ -z "${pids// /}" ] && return 0
    [ "$i" -gt 10 ] && kill -9 $pids 2>/dev/null
    sleep 1
  done
  return 1
}
