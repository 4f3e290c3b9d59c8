#!/usr/bin/env bash
# One command: every test.  Builds with warnings as errors, runs the core's
# unit tests (plain and under ASan+UBSan) and fuzzers, the pg_regress suite
# (in a private install tree), the README's examples, the pg_dump/restore
# test, the postgres_fdw sharding test and the other cluster tests against
# throwaway clusters, the PGXN archive and the Debian package, and the
# other PostgreSQL versions in Debian trees (scripts/matrix.sh; PG_MATRIX=""
# skips them), in three lanes at once (below), and ends with the line
# "N passed, N failed".
#
# A guest (test/guest.sh): it installs cuckoo into the system PostgreSQL tree
# ("make install", for the cluster tests) and installs and purges the Debian
# package (test/package.sh), but first saves the cuckoo files and packages
# the machine has and at the end (on any exit) puts exactly them back; the
# last check compares.  Logs: test-logs/test-DATE/ (TEST_LOG_DIR to choose), named
# at the start and at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
# PG_MAJOR, PG_CONFIG and PGV_PORT (a temporary cluster's port of its own, so
# that runs can overlap).  The host's port is kept below 24000: the parts
# that run at the same time use 25000 + MAJOR and 26000 + MAJOR
# (scripts/matrix.sh), 25100 + MAJOR (test/package.sh) and 25200 + MAJOR
# (test/pgxn/dist.sh).
export PGV_PORT="${PGV_PORT:-$((20000 + $$ % 4000))}"
. test/lib.sh
. test/guest.sh
export PG_CONFIG
log=${TEST_LOG_DIR:-$PWD/test-logs/test-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$log" && log=$(cd "$log" && pwd)
echo "# logs: $log"
suite_t0=$(date +%s)
passed=0
failed=0

# Three lanes share the 2 cores (docs/CONTRIBUTING.md, "The test command's
# time"): "private" (core unit tests, fuzzers, pg_regress plain and under
# ASan, the Citus emulation: private trees only), "system" (the cluster
# tests, the README's examples, the clients, the PGXN archive and the Debian
# package: the system install) and "matrix" (the Debian trees: debootstrap, which waits on
# the network and the disk, then the tests in them).  A lane is a background
# subshell with counts of its own; its lines are printed when it ends, in
# this order.
lane_pids=()
lane_names=()
# kill_tree PID: PID and the processes it started
kill_tree() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
  kill "$1" 2>/dev/null
}
restored=
restore() {
  [ -n "$restored" ] && return
  restored=1
  local i
  # a lane still running (the run was stopped): ended, its lines so far shown
  for i in "${!lane_pids[@]}"; do
    kill -0 "${lane_pids[i]}" 2>/dev/null || continue
    kill_tree "${lane_pids[i]}"
    echo "# lane ${lane_names[i]}, stopped; its lines so far:"
    sed 's/^/    /' "$log/lane-${lane_names[i]}.out" 2>/dev/null
  done
  [ -n "${guest_saved:-}" ] && guest_restore "$log/guest"
}
trap restore EXIT
trap 'exit 130' INT TERM

# lane NAME FUNCTION: runs FUNCTION in the background; its lines go to
# $log/lane-NAME.out, its counts to $log/lane-NAME.counts
lane() {
  local name=$1 fn=$2
  ( trap - EXIT INT TERM
    passed=0; failed=0; count_t0=$(date +%s); lane_t0=$count_t0
    "$fn"
    echo "# lane $name: $(($(date +%s) - lane_t0)) s"
    echo "$passed $failed" >"$log/lane-$name.counts" ) >"$log/lane-$name.out" 2>&1 &
  lane_pids+=($!); lane_names+=("$name")
}
# join_lane NAME: waits for lane NAME, prints its lines, adds its counts
join_lane() {
  local i p f
  for i in "${!lane_names[@]}"; do
    [ "${lane_names[i]}" = "$1" ] || continue
    wait "${lane_pids[i]}"
    cat "$log/lane-$1.out"
    if read -r p f 2>/dev/null <"$log/lane-$1.counts"; then
      passed=$((passed + p)); failed=$((failed + f))
    else
      echo "not ok - lane $1 ended without its counts"; failed=$((failed + 1))
    fi
  done
}

# step NAME COMMAND...: one pass or fail, output kept in $log/NAME.log
step() {
  local name=$1; shift
  if "$@" >"$log/$name.log" 2>&1; then
    echo "ok - $name"; passed=$((passed + 1))
  else
    echo "not ok - $name"; failed=$((failed + 1))
    tail -n 40 "$log/$name.log" | sed 's/^/    /'
  fi
}

# count NAME FILE: adds the "N passed, N failed" line a runner printed, with
# the seconds since the previous count in its lane (where the suite's time goes)
count_t0=$(date +%s)
count() {
  local line p f now
  now=$(date +%s)
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
  if [ -z "$line" ]; then
    echo "not ok - $1: no summary line"; failed=$((failed + 1)); count_t0=$now; return
  fi
  p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
  echo "# $1: $line ($((now - count_t0)) s)"; count_t0=$now
  passed=$((passed + p)); failed=$((failed + f))
}

# --- Versions (issue 10): Debian trees for PostgreSQL 13, 17, 18 and 19
# (scripts/matrix.sh; PG_MATRIX="" skips them), built from the start (while
# the host's packages install and its suite runs) and tested as soon as they
# are ready.  debootstrap comes first, alone: the host's apt-get and
# scripts/matrix.sh's would otherwise wait on each other's locks.
lane_matrix() {
  local t
  t=$(date +%s)
  bash scripts/matrix.sh prepare >"$log/matrix_prepare.log" 2>&1
  grep -E '^(# tree|    )' "$log/matrix_prepare.log"
  echo "# the trees took $(($(date +%s) - t)) s"
  count_t0=$(date +%s)
  # two trees at once (MATRIX_JOBS; 13 and 18 in one stream, 17 with the
  # package and 19 in the other): by hand, 13 and 18 side by side took 580 s
  # where one after the other took about 1,080 in CI
  MATRIX_JOBS="${MATRIX_JOBS:-2}" bash scripts/matrix.sh test >"$log/matrix.log" 2>&1
  grep -E '^(not ok|# PostgreSQL|    )' "$log/matrix.log"
  count matrix "$log/matrix.log"
}
read -r -a matrix_majors <<<"${PG_MATRIX-13 17 18 19}"
if [ ${#matrix_majors[@]} -gt 0 ]; then
  command -v debootstrap >/dev/null || {
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null; }
  }
  lane matrix lane_matrix
fi

bash scripts/install-deps.sh --test || { echo "not ok - scripts/install-deps.sh --test"; echo "0 passed, 1 failed"; exit 1; }
echo "# this run changes the system install of PostgreSQL $PG_MAJOR (make install, the Debian package)"
echo "# and puts back what was there at the end"
guest_save "$log/guest" || { echo "not ok - save the installed cuckoo files"; echo "0 passed, 1 failed"; exit 1; }
guest_saved=1

make -s clean >/dev/null 2>&1 || true
step build make PG_CONFIG="$PG_CONFIG" COPT=-Werror
step install make PG_CONFIG="$PG_CONFIG" install

# --- The "private" lane: nothing here reads or changes the system install.
lane_private() {
# the private servers listen on no TCP port (their sockets are in private
# directories): a port of their own all the same
PGV_PORT=$((PGV_PORT + 1))
# Core unit tests: optimised, then under the address and UB sanitizers.
make -s -C test/unit clean >/dev/null 2>&1 || true
make -s -C test/unit run >"$log/unit.log" 2>&1
grep -E '^not ok' "$log/unit.log" | sed 's/^/    /'
count unit "$log/unit.log"
# The benchmark programs compile (none of them runs here).
step bench-build sh -c 'make -s -C bench clean && make -s -C bench build-check'
make -s -C test/unit clean >/dev/null 2>&1 || true
# (UNIT_LIGHT: the scale tests that the plain run has are left out there or
# run smaller, and the long random loops take a fourth of their rounds;
# test/unit/unit.h)
UNIT_LIGHT=1 make -s -C test/unit run \
  EXTRA_CFLAGS="-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  >"$log/unit-asan.log" 2>&1
grep -E '^# UNIT_LIGHT' "$log/unit-asan.log" | sed 's/^/    /'
grep -E '^not ok|ERROR: AddressSanitizer|runtime error' "$log/unit-asan.log" | head -20 | sed 's/^/    /'
count unit-asan "$log/unit-asan.log"
make -s -C test/unit clean >/dev/null 2>&1 || true

# libFuzzer on the core: validator/deserialiser and operation sequences
# against an exact model, FUZZ_SECONDS each (default 60; test/fuzz/README.md).
make -s -C test/fuzz clean >/dev/null 2>&1 || true
make -s -C test/fuzz run SECONDS="${FUZZ_SECONDS:-60}" >"$log/fuzz.log" 2>&1
grep -E '^== |executions|FAIL' "$log/fuzz.log" | sed 's/^/    /'
count fuzz "$log/fuzz.log"
make -s -C test/fuzz clean >/dev/null 2>&1 || true

# pg_regress: one result per test file, against a private server running
# this build from a private copy of the install tree (test/regress_private.sh).
bash test/regress_private.sh >"$log/regress.log" 2>&1
grep -E '^not ok|^#   ' "$log/regress.log" | head -n 60 | sed 's/^/    /'
count regress "$log/regress.log"

# The pg_regress suite again, against a private server that has loaded a
# cuckoo.so built with ASan+UBSan (docs/MEMORY_CHECKS.md; the system install
# is not touched).  valgrind: bash test/memcheck/regress_valgrind.sh, by hand (~30 min).
bash test/memcheck/regress_asan.sh >"$log/regress_asan.log" 2>&1
grep -E '^not ok|runtime error|ERROR: AddressSanitizer' "$log/regress_asan.log" | head -20 | sed 's/^/    /'
count regress_asan "$log/regress_asan.log"

# Citus's aggregate calling convention, emulated by a test-only module in a private tree (~10 s).
bash test/cluster/citus_emulation.sh >"$log/citus_emulation.log" 2>&1; grep '^not ok' "$log/citus_emulation.log" | sed 's/^/    /'; count citus_emulation "$log/citus_emulation.log"
}
lane private lane_private

# --- The "system" lane: the system install of $PG_MAJOR (the cluster tests
# use what "make install" put there; test/pgxn/dist.sh and test/package.sh
# replace it, so they come last).

# in_cluster NAME SHOW SCRIPT: runs test/cluster/SCRIPT in a throwaway cluster of its
# own, shows its lines matching SHOW (and every "not ok"), adds its summary.
in_cluster() {
  local name=$1 show=$2 script=$3
  pg_virtualenv -t -c "-p $PGV_PORT" -v "$PG_MAJOR" bash "test/cluster/$script" >"$log/$name.log" 2>&1
  grep -E "^not ok|$show" "$log/$name.log" | sed 's/^/    /'
  count "$name" "$log/$name.log"
}

lane_system() {
# pg_dump / pg_restore round trip.
in_cluster dump_restore '^not ok' dump_restore.sh
# Sharding with postgres_fdw: filters built on the shards, unioned centrally.
in_cluster fdw_shards '^not ok' fdw_shards.sh
# Installing as an ordinary role (trusted extension), planted objects.
in_cluster security '^not ok' security.sh
# ALTER EXTENSION cuckoo UPDATE from every available version (the chain, the
# member objects against a fresh install, the stored data); then the same
# test against simulated broken 1.1 releases, which it must fail.
in_cluster upgrade '^# walked' upgrade.sh
in_cluster upgrade_selftest '^not ok' upgrade_selftest.sh
# Mutated values through binary COPY (cuckoo_recv), cuckoo_union_agg's
# combine and cuckoo_agg's deserialise, then pg_dump | psql.
in_cluster recv_mutations '^# [0-9]+ values' recv_mutations.sh
# A growing filter filled through SQL from capacity 1,000 to 1,000,000 (1.2):
# no error, no false negative, measured rate at or below the target (~30 s).
in_cluster growth_million '^# (target|growth)' growth_million.sh

# The README's examples, as pasted: its sql blocks in a fresh database, its
# python and js blocks with the install steps it gives (test/readme.sh; a
# private server with this build, not the system install; in this lane, as
# its npm install and the clients' "npm ci" must not overlap).
env -u PGHOST -u PGPORT -u PGDATABASE bash test/readme.sh >"$log/readme.log" 2>&1
grep -E '^not ok|^# skip|^#   ' "$log/readme.log" | head -n 40 | sed 's/^/    /'
count readme "$log/readme.log"

in_cluster clients '^# (python|js|clients)' clients.sh  # clients/python, clients/js against the server

# Concurrent load (8 pgbench clients on shared filter rows), then a kill -9
# of the postmaster under load and crash recovery; LOAD_SECONDS per phase.
LOAD_SECONDS="${LOAD_SECONDS:-15}" in_cluster concurrent_load '^# ' concurrent_load.sh
# Stored filters (1.3): 8 clients changing a store of 10 segments for 60 s,
# the stored-filters issue's figure (no deadlock, no false negative), kill -9
# under load (LOAD_SECONDS, 8 s as in the version matrix), pg_dump/pg_restore.
CLIENT_SECONDS="${CLIENT_SECONDS:-60}" LOAD_SECONDS="${LOAD_SECONDS:-8}" in_cluster store '^# ' store.sh
# Living filters (1.3): a tracked table under 8 clients for 60 s of mixed
# writes under READ COMMITTED and 60 s under REPEATABLE READ, the
# living-filters issue's figure; the single statements before them for
# SINGLE_SECONDS and the other load phases (kill -9 under load, the
# partitioned table, the bulk loads) for LOAD_SECONDS (8 s each, as in the
# version matrix), pg_dump/pg_restore of the tracking.
SINGLE_SECONDS="${SINGLE_SECONDS:-8}" CLIENT_SECONDS="${CLIENT_SECONDS:-60}" LOAD_SECONDS="${LOAD_SECONDS:-8}" \
  in_cluster track '^# ' track.sh

# --- Versions and packaging (issue 10): PGXN metadata and release archive,
# the Debian package on the host.
for t in "meta test/pgxn/meta.sh" "dist test/pgxn/dist.sh $PG_MAJOR" "package test/package.sh $PG_MAJOR"; do
  bash ${t#* } >"$log/${t%% *}.log" 2>&1
  grep -E '^(not ok|    )' "$log/${t%% *}.log"
  count "${t%% *}" "$log/${t%% *}.log"
done
}
lane system lane_system

join_lane private
join_lane system
echo "# PostgreSQL $PG_MAJOR (host): $passed passed, $failed failed ($(($(date +%s) - suite_t0)) s)"
join_lane matrix

# The guest leaves: the cuckoo files and packages of before the run, and
# nothing else of cuckoo, are installed.
restore
diffs=$(guest_check "$log/guest")
if [ -z "$diffs" ]; then
  echo "ok - the machine's cuckoo files and packages are as before the run ($(wc -l <"$log/guest/files") files$( [ -s "$log/guest/packages" ] && echo ", $(cut -d' ' -f1 "$log/guest/packages" | xargs)"))"
  passed=$((passed + 1))
else
  echo "not ok - the machine's cuckoo files and packages differ from before the run"; echo "$diffs" | head -n 20 | sed 's/^/    /'
  failed=$((failed + 1))
fi

echo "# logs: $log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
