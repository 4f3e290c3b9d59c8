#!/usr/bin/env bash
# SQL-level benchmark of the *installed* cuckoo extension (whatever build is in
# /usr/lib/postgresql/15; this script never builds or installs it).
#
#   bash bench/sql_bench.sh [ROWS]     (as root; ROWS defaults to 10000000)
#   bash bench/sql_bench.sh 1000000    quick mode, about 2 to 3 minutes
#
# Installs postgresql-15-hll (the build baseline) if missing, then runs
# bench/sql_bench_inner.sh in one throwaway cluster made by pg_virtualenv.
# Markdown tables go to stdout, progress lines to stderr; see docs/BENCHMARKS.md.
# Environment: BENCH_RUNS (timed runs per case, default 5), BENCH_MEM_RUNS
# (connections per peak-memory figure, default 3), BENCH_BIG (values in the
# text I/O filter; default 7,500,000 below 10M rows, else 75,000,000),
# BENCH_BEFORE_REV (a git revision whose text I/O functions are measured
# beside the installed ones), BENCH_ONLY (sections, comma-separated:
# probe,storage,build,memory,io; also sweep), CUCKOO_REF_DIR (a checkout of
# efficient/cuckoofilter: the core rows, by make -C bench ref, with
# BENCH_REF_ARGS, default "24 3"). The goals table sets each goal of issue 15
# beside the figure measured in this run.
set -euo pipefail
cd "$(dirname "$0")/.."

ROWS=${1:-10000000}
if ! [[ $ROWS =~ ^[0-9]+$ ]] || ((ROWS < 10000)); then
  echo "usage: bash bench/sql_bench.sh [ROWS]   (ROWS >= 10000, default 10000000)" >&2
  exit 2
fi
. test/lib.sh    # PG_MAJOR, PGV_PORT
PGBIN=/usr/lib/postgresql/$PG_MAJOR
# A temporary cluster (-t) on a port of its own, so it can run beside other clusters.
PORT=$PGV_PORT

log() { printf '[sql_bench %s] %s\n' "$(date +%T)" "$*" >&2; }

if [[ $(id -u) != 0 ]]; then
  echo "run as root (it may apt-get install postgresql-15-hll)" >&2
  exit 1
fi
if [[ ! -f $PGBIN/lib/cuckoo.so ]]; then
  echo "cuckoo is not installed in $PGBIN (make install)" >&2
  exit 1
fi
if [[ ! -f /usr/share/postgresql/$PG_MAJOR/extension/hll.control ]]; then
  log "installing postgresql-$PG_MAJOR-hll"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y "postgresql-$PG_MAJOR-hll" >/dev/null 2>&1; then
    apt-get update >/dev/null 2>&1 || true
    apt-get install -y "postgresql-$PG_MAJOR-hll" >/dev/null 2>&1 || true
  fi
fi
# Without postgresql-hll the build rows use count(k) as their baseline and the
# goal rows against hll say "skipped".
if [[ -f /usr/share/postgresql/$PG_MAJOR/extension/hll.control ]]; then BENCH_HLL=1; else
  BENCH_HLL=0; log "postgresql-$PG_MAJOR-hll is not available: the rows against hll are skipped"; fi
export BENCH_HLL

# BENCH_BEFORE_REV=REV: build that revision's cuckoo.so (git archive, in a
# temporary directory; never installed) and measure its text output and input
# functions beside the installed build's, in the same session.
if [[ -n ${BENCH_BEFORE_REV:-} ]]; then
  before_dir=$(mktemp -d)
  chmod 755 "$before_dir"
  log "building $BENCH_BEFORE_REV in $before_dir for the before/after text I/O rows"
  git archive "$BENCH_BEFORE_REV" | tar -x -C "$before_dir"
  make -C "$before_dir" -j2 >/dev/null 2>&1
  export BENCH_BEFORE_SO=$before_dir/cuckoo.so
  BENCH_BEFORE_NAME=$(git rev-parse --short "$BENCH_BEFORE_REV")
  export BENCH_BEFORE_NAME
fi

so=$PGBIN/lib/cuckoo.so
# Every psql session loads cuckoo.so afresh, so a `make install` during the run
# changes the build measured from then on; the inner script checks this hash.
BENCH_SO_SHA=$(sha256sum "$so" | cut -c1-12)
export BENCH_SO=$so BENCH_SO_SHA
head_rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# the settings that change what runs, as they would be typed
cmd_env=''
for v in BENCH_ONLY BENCH_BEFORE_REV BENCH_HUGE BENCH_BIG BENCH_RUNS BENCH_SWEEP_SIZES CUCKOO_REF_DIR BENCH_REF_ARGS; do
  if [[ -n ${!v:-} ]]; then cmd_env+="$v=${!v} "; fi
done
cmd_env=${cmd_env% }
dirty=$(git status --porcelain -- src 2>/dev/null | wc -l)
cat <<EOF
## cuckoo SQL benchmark, ROWS=$ROWS

Command: \`${cmd_env:+$cmd_env }bash bench/sql_bench.sh $ROWS\`

### Machine

| | |
|---|---|
| date | $(date -u '+%Y-%m-%d %H:%M UTC') |
| nproc | $(nproc) |
| CPU | $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') |
| memory | $(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) |
| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |
| PostgreSQL | $("$PGBIN/bin/postgres" --version) |
| hll package | $(dpkg-query -W -f '${Version}' "postgresql-$PG_MAJOR-hll" 2>/dev/null || echo '?') |
| cuckoo.so measured | sha256 $BENCH_SO_SHA, modified $(date -u -r "$so" '+%Y-%m-%d %H:%M UTC') |
| repository HEAD | $head_rev ($dirty changed files under src/; the installed build may differ) |
EOF

# The inner script writes its tables to BENCH_OUT; pg_virtualenv's own messages
# ("Creating new PostgreSQL cluster ...") go to stderr with the progress lines.
BENCH_OUT=$(mktemp)
trap 'rm -f "$BENCH_OUT"; [[ -z ${before_dir:-} ]] || rm -rf "$before_dir"' EXIT
export BENCH_ROWS=$ROWS BENCH_OUT
log "ROWS=$ROWS; cluster on port $PORT"
start=$SECONDS
if ! pg_virtualenv -t -c "-p $PORT" -v "$PG_MAJOR" \
  -o shared_buffers=1GB -o work_mem=256MB -o max_parallel_workers_per_gather=2 \
  bash bench/sql_bench_inner.sh >&2; then
  cat "$BENCH_OUT"
  echo
  echo "**The benchmark failed after $((SECONDS - start)) s; the tables above are what it finished (see stderr).**"
  exit 1
fi
cat "$BENCH_OUT"
# The core rows of issue 15's table: our core beside the reference
# implementation, when a copy of it is named (bench/ref_bench.cc).
if [[ -n ${CUCKOO_REF_DIR:-} ]]; then
  log "core against the reference in $CUCKOO_REF_DIR (make -C bench ref)"
  echo
  make -s -C bench ref CUCKOO_REF_DIR="$CUCKOO_REF_DIR" REF_ARGS="${BENCH_REF_ARGS:-24 3}" | sed 's/^## /### /'
fi
echo "Total time: $((SECONDS - start)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
log "finished in $((SECONDS - start)) s"
