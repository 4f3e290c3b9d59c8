#!/usr/bin/env bash
# The part of the SQL benchmark that runs inside the throwaway cluster made by
# bench/sql_bench.sh (pg_virtualenv sets PGHOST, PGPORT, PGUSER, ...).
# Writes Markdown tables to $BENCH_OUT (default: stdout) and progress lines to stderr.
#
# Every measurement runs in one psql session: the baseline query and the query
# measured alternate (B T, T B, B T, ...), one untimed warm-up of each first,
# then BENCH_RUNS timed runs of each (psql \timing: parse, plan, execute and
# the round trip, as a client sees it).  The table shows both medians and their
# ratio, so a machine that gets slower during the run moves both alike.
set -euo pipefail

ROWS=${BENCH_ROWS:?set BENCH_ROWS}
if [[ -n ${BENCH_OUT:-} ]]; then exec >"$BENCH_OUT"; fi
RUNS=${BENCH_RUNS:-5}
MEM_RUNS=${BENCH_MEM_RUNS:-3}
NB=$((ROWS / 10))                       # keys in the build set
if ((NB <= 1000000)); then NA=$NB; else NA=100000; fi   # keys in the k = ANY(array) variant
if ((ROWS < 10000000)); then BIG=7500000; else BIG=75000000; fi
if ((ROWS < 10000000)); then HUGE=10000000; else HUGE=100000000; fi
HUGE=${BENCH_HUGE:-$HUGE}               # items in the large probed filter (0: skip)
BIG=${BENCH_BIG:-$BIG}                  # values in the text I/O filter
STORE_ROWS=$((ROWS < 1000000 ? ROWS : 1000000))  # probe rows of the storage section
ONLY=${BENCH_ONLY:-probe,storage,build,memory,io}  # sections to run (also: sweep)
want() { [[ ,$ONLY, == *,$1,* ]]; }
SERIAL="SET max_parallel_workers_per_gather = 0;"

# JIT off: it compiles only plans above jit_above_cost, i.e. in the full run
# and not in the quick one, and adds a compile time unrelated to cuckoo.
export PGOPTIONS="${PGOPTIONS:-} -c jit=off"
PSQL=(psql -X -q -t -A -v ON_ERROR_STOP=1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS

log() { printf '[sql_bench %s +%ds] %s\n' "$(date +%T)" $((SECONDS - started)) "$*" >&2; }

# sql TEXT: run statements (no timing), print their output
sql() { "${PSQL[@]}" -c "$1"; }

# median: of the numbers on stdin, one per line
median() {
  sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan";
    else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

fmt_ms() { awk -v x="$1" 'BEGIN { if (x >= 100) printf "%.0f", x; else if (x >= 10) printf "%.1f", x; else printf "%.2f", x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# measure: runs one comparison; inputs in these globals (reset after use):
#   SETUP  session statements run once, untimed (SET, PREPARE, \gset ...)
#   BASE   the baseline statement          TEST   the statement measured
#   PRE    untimed statement before every run of either (e.g. TRUNCATE)
#   WARM   untimed warm-up runs of each (default 1)
#   PLANQ  statement whose EXPLAIN (COSTS OFF) gives the plan column (default TEST;
#          "-" for none)
#   AFTER  statements run after the timed runs; their output becomes $EXTRA
# Sets T_MS, B_MS (medians, ms), RATIO, RES (last output line of TEST),
# PLAN (one line: node names) and PLANTEXT (the EXPLAIN output), and, where
# the server's /proc/self/schedstat can be read (Linux), TC_MS, BC_MS and
# CRATIO: the same for the CPU time of the session's backend (its own work
# only: a parallel worker's is not counted), which other work on the machine
# moves far less than the wall clock.
SETUP='' BASE='' TEST='' PRE='' WARM=1 PLANQ='' AFTER=''
CPU0='' CPU1=''   # statements around each timed run that read the backend's CPU time (set below)
measure() {
  local f=$work/m.sql out=$work/m.out i
  {
    printf '%s\n' "$SETUP"
    for ((i = 0; i < WARM; i++)); do
      printf '%s\n%s\n%s\n%s\n' "$PRE" "$BASE" "$PRE" "$TEST"
    done
    printf '%s\n' '\timing on'
    for ((i = 0; i < RUNS; i++)); do
      if ((i % 2 == 0)); then
        printf '%s\n%s\\echo @B\n%s\n%s%s\n%s\\echo @T\n%s\n%s' "$PRE" "$CPU0" "$BASE" "$CPU1" "$PRE" "$CPU0" "$TEST" "$CPU1"
      else
        printf '%s\n%s\\echo @T\n%s\n%s%s\n%s\\echo @B\n%s\n%s' "$PRE" "$CPU0" "$TEST" "$CPU1" "$PRE" "$CPU0" "$BASE" "$CPU1"
      fi
    done
    printf '%s\n' '\timing off'
    printf '%s\n' '\echo @P'
    if [[ $PLANQ != - ]]; then
      printf 'EXPLAIN (COSTS OFF) %s\n' "${PLANQ:-$TEST}"
    fi
    printf '%s\n' '\echo @S'
    printf '%s\n' "$AFTER"
  } >"$f"
  "${PSQL[@]}" -f "$f" >"$out"
  # @B / @T: the first "Time:" line after the marker is that run's time;
  # other lines in between are the statement's output.
  awk -v dir="$work" '
    /^@[BTPS]$/ { mode = substr($0, 2); last = mode; next }
    (mode == "B" || mode == "T") && /^Time: / { print $2 > (dir "/times." mode); mode = ""; next }
    mode == "" && /^@cpu [0-9]+$/ && (last == "B" || last == "T") { print $2 / 1e6 > (dir "/cpu." last); next }
    mode == "T" && NF { res = $0 }
    mode == "P" { print > (dir "/plan") }
    mode == "S" { print > (dir "/extra") }
    END { print res > (dir "/res") }' "$out"
  touch "$work/plan" "$work/extra"
  T_MS=$(median <"$work/times.T")
  B_MS=$(median <"$work/times.B")
  RATIO=$(ratio "$T_MS" "$B_MS")
  TC_MS='' BC_MS='' CRATIO=''
  if [[ -s $work/cpu.T && -s $work/cpu.B ]]; then
    TC_MS=$(median <"$work/cpu.T")
    BC_MS=$(median <"$work/cpu.B")
    CRATIO=$(ratio "$TC_MS" "$BC_MS")
  fi
  RES=$(cat "$work/res")
  PLANTEXT=$(cat "$work/plan")
  EXTRA=$(cat "$work/extra")
  # Plan summary: node names (first line, "->" lines, InitPlans), literals dropped.
  PLAN=$(awk '
    NR == 1 || /->/ || /InitPlan|SubPlan/ {
      s = $0; sub(/^ *(-> *)?/, "", s); sub(/ \(returns.*$/, "", s); sub(/ +\(.*$/, "", s)
      sub(/ [0-9]+$/, "", s); out = out (out == "" ? "" : " > ") s }
    /Workers Planned:/ { out = out " (" $NF " workers)" }
    END { print out }' "$work/plan")
  rm -f "$work"/times.* "$work"/cpu.* "$work/plan" "$work/extra" "$work/res"
  SETUP='' BASE='' TEST='' PRE='' WARM=1 PLANQ='' AFTER=''
}

# peak_kb QUERY [SETUP]: peak resident size (VmHWM, kB) of a fresh backend that
# ran QUERY; the median of MEM_RUNS connections.  Sets PEAK_KB, PEAK_RES.
peak_kb() {
  local q=$1 setup=${2:-} f=$work/p.sql i
  export BENCH_HWM_FILE=$work/hwm
  : >"$work/peaks"
  for ((i = 0; i < MEM_RUNS; i++)); do
    cat >"$f" <<EOF
$setup
SELECT pg_backend_pid() AS pid \gset
\setenv BENCH_PID :pid
$q
\! grep VmHWM /proc/\$BENCH_PID/status | awk '{print \$2}' > "\$BENCH_HWM_FILE"
EOF
    PEAK_RES=$("${PSQL[@]}" -f "$f" | tail -n 1)
    cat "$BENCH_HWM_FILE" >>"$work/peaks"
  done
  PEAK_KB=$(median <"$work/peaks")
}

# check_so SECTION: warns (stderr and in the tables) when cuckoo.so is not the
# build the run started with; each psql session loads the file afresh.
check_so() {
  local now
  [[ -n ${BENCH_SO:-} ]] || return 0
  now=$(sha256sum "$BENCH_SO" | cut -c1-12)
  if [[ $now != "${BENCH_SO_SHA:-}" ]]; then
    log "WARNING: $BENCH_SO changed (sha256 $BENCH_SO_SHA -> $now) before: $1"
    echo
    echo "**Warning: cuckoo.so was replaced during the run (sha256 $BENCH_SO_SHA -> $now), noticed at the start of \"$1\": the table just above and those below may mix builds.**"
    BENCH_SO_SHA=$now
  fi
}

# goal WHAT GOAL MEASURED VERDICT: one row of the closing table, which sets
# each goal of issue 15 beside the figure measured in this run.  Any section
# may add rows.
: >"$work/goals"
goal() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >>"$work/goals"; }
# verdict VALUE OP LIMIT: "met" or "not met" (OP is <= or >=)
verdict() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { if (v == "" || v == "n/a") print "not measured";
  else if ((op == "<=" && v + 0 <= l + 0) || (op == ">=" && v + 0 >= l + 0)) print "met"; else print "not met" }'; }

# ---------------------------------------------------------------- setup
log "setup: ROWS=$ROWS, build keys=$NB, array keys=$NA, big filter values=$BIG, huge filter items=$HUGE, runs=$RUNS"
HLL=${BENCH_HLL:-1}
# The backend's CPU time (ns) is the first field of its /proc/self/schedstat.
if [[ $(sql "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1) ~ '^[0-9]+\$'" 2>/dev/null || true) == t ]]; then
  CPU0="SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1) AS cpu0 \\gset"$'\n'
  CPU1="SELECT '@cpu ' || (split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint - :cpu0::bigint);"$'\n'
else
  log "the backend's /proc/self/schedstat cannot be read: no CPU-time ratios"
fi
if ((HLL)); then sql "CREATE EXTENSION cuckoo; CREATE EXTENSION hll;"; else sql "CREATE EXTENSION cuckoo;"; fi
log "creating probe ($ROWS rows, random order) and build ($NB keys)"
"${PSQL[@]}" <<EOF
SELECT setseed(0.42);
CREATE TABLE probe (k bigint);
INSERT INTO probe SELECT g FROM generate_series(1, $ROWS) g ORDER BY random();
-- one key in each run of ten: exactly $NB distinct keys, 10% of probe matches
CREATE TABLE build (k bigint);
INSERT INTO build SELECT (g - 1) * 10 + 1 + floor(random() * 10)::int FROM generate_series(1, $NB) g;
VACUUM ANALYZE probe;
VACUUM ANALYZE build;
CREATE TABLE filters AS SELECT 'b' AS name, cuckoo_agg(k) AS f FROM build;
-- keys for the k = ANY(array) variant (the first $NA build keys)
CREATE TABLE arr AS SELECT array_agg(k) AS a FROM (SELECT k FROM build ORDER BY k LIMIT $NA) s;
-- storage variants (one row per table, so a non-empty TOAST table means "stored out of line"):
-- sparse: the build keys in a filter of 4x their number (load ~0.24, mostly zero bytes);
-- small: 100 keys in a filter for 5000 (6.9 kB, compresses to ~0.5 kB, so it stays inline).
CREATE TABLE fz_ext_pglz (f cuckoofilter);
CREATE TABLE fz_ext_plain (f cuckoofilter);
ALTER TABLE fz_ext_plain ALTER COLUMN f SET STORAGE EXTERNAL;
CREATE TABLE fz_inl_pglz (f cuckoofilter);
CREATE TABLE fz_inl_plain (f cuckoofilter);
ALTER TABLE fz_inl_plain ALTER COLUMN f SET STORAGE PLAIN;
INSERT INTO fz_ext_pglz SELECT cuckoo_agg(k, 4 * $NB, 0.01) FROM build;
INSERT INTO fz_ext_plain SELECT cuckoo_agg(k, 4 * $NB, 0.01) FROM build;
INSERT INTO fz_inl_pglz SELECT cuckoo_agg(k, 5000, 0.01) FROM (SELECT k FROM build ORDER BY k LIMIT 100) s;
INSERT INTO fz_inl_plain SELECT cuckoo_agg(k, 5000, 0.01) FROM (SELECT k FROM build ORDER BY k LIMIT 100) s;
CREATE TABLE probe_store AS SELECT k FROM probe LIMIT $STORE_ROWS;
VACUUM ANALYZE probe_store;
CHECKPOINT;
EOF

echo
echo "### Cluster"
echo
echo "| setting | value |"
echo "|---|---|"
"${PSQL[@]}" -F ' | ' <<'EOF'
SELECT '| server', version() || ' |';
SELECT '| cuckoo / hll', (SELECT extversion FROM pg_extension WHERE extname = 'cuckoo') || ' / ' ||
       coalesce((SELECT extversion FROM pg_extension WHERE extname = 'hll'), 'not installed') || ' |';
SELECT '| ' || name, setting || coalesce(unit, '') || ' |' FROM pg_settings
 WHERE name IN ('shared_buffers', 'work_mem', 'max_parallel_workers_per_gather', 'max_worker_processes', 'jit')
 ORDER BY name;
SELECT '| table sizes', format('probe %s, build %s', pg_size_pretty(pg_table_size('probe')),
       pg_size_pretty(pg_table_size('build'))) || ' |';
EOF
printf '%s\n' "| timing | psql \\timing (client wall clock), median of $RUNS runs after 1 warm-up; baseline interleaved in the same session |"

echo
echo "### Stored filters"
echo
echo "Raw bytes are \`cuckoo_info(f).bytes\`; stored is \`pg_column_size(f)\` (after compression);"
echo "a non-empty TOAST table means the value is stored out of line."
echo
echo "| table | filter | items | raw bytes | stored bytes | compression | TOAST table bytes |"
echo "|---|---|---|---|---|---|---|"
for t in filters fz_ext_pglz fz_ext_plain fz_inl_pglz fz_inl_plain; do
  case $t in
    filters) what="\`cuckoo_agg(k)\` of build" ;;
    fz_ext_*) what="\`cuckoo_agg(k, $((4 * NB)), 0.01)\` of build (load ~0.24)" ;;
    fz_inl_*) what="\`cuckoo_agg(k, 5000, 0.01)\` of 100 build keys" ;;
  esac
  "${PSQL[@]}" -F ' | ' -c "SELECT '| $t', '$what', (cuckoo_info(f)).items, (cuckoo_info(f)).bytes, pg_column_size(f),
      coalesce(pg_column_compression(f), 'none'),
      pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE relname = '$t')) || ' |' FROM $t"
done

# ---------------------------------------------------------------- probe
if want probe; then
check_so "probe"
Q_BASE="SELECT count(*) FROM probe WHERE k <> 0;"
GETF="SELECT f::text AS f FROM filters WHERE name = 'b' \\gset"
probe_rows=''
probe_row() { # LABEL
  local cr=${CRATIO:--}
  [[ $1 != *parallel* ]] || cr='-'   # the backend's CPU time is not a parallel plan's
  probe_rows+="| $1 | $(fmt_ms "$T_MS") | $(fmt_ms "$B_MS") | $RATIO | $cr | $RES | $PLAN |"$'\n'
  log "probe: $1: $(fmt_ms "$T_MS") ms, baseline $(fmt_ms "$B_MS") ms, ratio $RATIO, backend CPU ratio $cr"
}
log "probe ($ROWS rows, serial unless noted)"

SETUP=$SERIAL BASE=$Q_BASE TEST=$Q_BASE
measure; probe_row "baseline: \`WHERE k <> 0\` (against itself: the noise level)"

SETUP=$SERIAL BASE=$Q_BASE
TEST="SELECT count(*) FROM probe WHERE cuckoo_contains((SELECT f FROM filters WHERE name = 'b'), k);"
measure; probe_row "InitPlan: \`cuckoo_contains((SELECT f FROM filters WHERE name='b'), k)\` (filter TOASTed, uncompressed)"

SETUP="SET max_parallel_workers_per_gather = 2;" BASE=$Q_BASE
TEST="SELECT count(*) FROM probe WHERE cuckoo_contains((SELECT f FROM filters WHERE name = 'b'), k);"
measure; probe_row "InitPlan, **parallel** (max_parallel_workers_per_gather=2, default costs; baseline parallel too)"

SETUP=$SERIAL BASE=$Q_BASE
TEST="SELECT count(*) FROM probe WHERE (SELECT f FROM filters WHERE name = 'b') @> k;"
measure; probe_row "operator: \`(SELECT f ...) @> k\`"

SETUP="$SERIAL
$GETF" BASE=$Q_BASE
TEST="SELECT count(*) FROM probe WHERE cuckoo_contains(:'f'::cuckoofilter, k);"
measure; probe_row "literal: \`cuckoo_contains(:'f'::cuckoofilter, k)\` (text form in the query, parsed each time)"

SETUP="$SERIAL
$GETF" BASE=$Q_BASE PLANQ=-
TEST="SELECT :'f'::cuckoofilter IS NOT NULL;"
measure; probe_row "literal alone: \`SELECT :'f'::cuckoofilter IS NOT NULL\` (sending and parsing the literal; no probe)"

SETUP="$SERIAL
$GETF
PREPARE q(cuckoofilter) AS SELECT count(*) FROM probe WHERE cuckoo_contains(\$1, k);" BASE=$Q_BASE
TEST="EXECUTE q(:'f');" WARM=5 PLANQ=-
AFTER="SELECT format('%s generic, %s custom plans', generic_plans, custom_plans) FROM pg_prepared_statements WHERE name = 'q';"
measure; PLAN=$EXTRA; probe_row "prepared, parameter: \`EXECUTE q(:'f')\` after 5 executions (plan_cache_mode=auto)"

SETUP="$SERIAL
SET plan_cache_mode = force_custom_plan;
$GETF
PREPARE q(cuckoofilter) AS SELECT count(*) FROM probe WHERE cuckoo_contains(\$1, k);" BASE=$Q_BASE
TEST="EXECUTE q(:'f');" PLANQ=-
AFTER="SELECT format('%s generic, %s custom plans', generic_plans, custom_plans) FROM pg_prepared_statements WHERE name = 'q';"
measure; PLAN=$EXTRA; probe_row "prepared, force_custom_plan: \`EXECUTE q(:'f')\`"

SETUP=$SERIAL BASE=$Q_BASE
TEST="SELECT count(*) FROM probe, filters WHERE name = 'b' AND cuckoo_contains(filters.f, probe.k);"
measure; probe_row "join column: \`FROM probe, filters WHERE name='b' AND cuckoo_contains(filters.f, probe.k)\`"

SETUP=$SERIAL BASE=$Q_BASE
TEST="SELECT count(*) FROM probe, filters WHERE name = 'b' AND length(filters.name) + probe.k <> 0;"
measure; probe_row "join shape alone: the same join with \`length(filters.name) + probe.k <> 0\` instead (no cuckoo)"

SETUP=$SERIAL BASE=$Q_BASE
TEST="SELECT count(*) FROM probe WHERE cuckoo_contains((SELECT f FROM fz_ext_pglz), k);"
measure; probe_row "TOASTed + compressed (pglz) filter: \`fz_ext_pglz\`, InitPlan (a different, sparse filter; see Stored filters)"

# The probe goals of issue 15: filters of several sizes (the build keys plus
# keys outside the probe range, so the matches are filter b's), each probed
# batched (cuckoo.batched_probe on, the default) and unbatched (off) in the
# same run, each against the bare scan.  Sizes: BENCH_PROBE_SIZES, default
# ROWS/10, 20M and HUGE at 10M rows and more (1M, 20M, 100M: the issue's), else
# ROWS/10, 2 * ROWS and HUGE.
if ((ROWS >= 10000000)); then PSIZES="$NB 20000000 $HUGE"; else PSIZES="$NB $((2 * ROWS)) $HUGE"; fi
PSIZES=${BENCH_PROBE_SIZES:-$PSIZES}
goal_rows=''
probe_goal() { # ITEMS: the issue's goal for a filter of ITEMS items
  case $1 in 1000000) echo "<= 1.3" ;; 20000000) echo "<= 1.5" ;; 100000000) echo "<= 2.0" ;; *) echo "-" ;; esac
}
for items in $PSIZES; do
  ((items >= NB)) || continue
  if ((items == NB)); then
    ptab="filters WHERE name = 'b'"
  else
    log "building the $items-item filter"
    sql "DROP TABLE IF EXISTS pf; CREATE TABLE pf (f cuckoofilter); ALTER TABLE pf ALTER COLUMN f SET STORAGE EXTERNAL;
         INSERT INTO pf SELECT cuckoo_agg(k) FROM (SELECT k FROM build UNION ALL
           SELECT g FROM generate_series($ROWS + 1, $ROWS + $items - $NB) g) s;" >/dev/null
    ptab="pf"
  fi
  pmb=$(sql "SELECT round((cuckoo_info(f)).bytes / 1e6, 1) FROM $ptab")
  PQ="SELECT count(*) FROM probe WHERE cuckoo_contains((SELECT f FROM $ptab), k);"
  SETUP="$SERIAL SET cuckoo.batched_probe = on;" BASE=$Q_BASE TEST=$PQ
  measure; on_ms=$T_MS on_base=$B_MS on_ratio=$RATIO on_res=$RES on_plan=$PLAN on_cratio=${CRATIO:--}
  probe_row "InitPlan, **$items-item filter** ($pmb MB, TOASTed, uncompressed), batched"
  SETUP="$SERIAL SET cuckoo.batched_probe = off;" BASE=$Q_BASE TEST=$PQ
  measure; probe_row "InitPlan, **$items-item filter** ($pmb MB, TOASTed, uncompressed), unbatched (\`cuckoo.batched_probe = off\`)"
  [[ $on_res == "$RES" ]] || { log "batched and unbatched counts differ: $on_res, $RES"; exit 1; }
  goal_rows+="| $items | $pmb | $(probe_goal "$items") | **$on_ratio** | $RATIO | $on_cratio | ${CRATIO:--} | $(fmt_ms "$on_ms") | $(fmt_ms "$T_MS") | $(fmt_ms "$on_base") / $(fmt_ms "$B_MS") | $on_res | $on_plan |"$'\n'
done
sql "DROP TABLE IF EXISTS pf" >/dev/null

SETUP=$SERIAL BASE=$Q_BASE
TEST="SELECT count(*) FROM probe WHERE k IN (SELECT k FROM build);"
measure; probe_row "hash semi-join: \`k IN (SELECT k FROM build)\` (exact)"

SETUP="$SERIAL
SELECT a::text AS a FROM arr \\gset" BASE=$Q_BASE
TEST="SELECT count(*) FROM probe WHERE k = ANY(:'a'::bigint[]);"
measure; probe_row "\`k = ANY(:'a'::bigint[])\`, $NA-key array literal (exact, hashed)"

echo
echo "### Probe: $ROWS rows, $NB build keys (10% of the rows match)"
echo
echo "Serial plans (max_parallel_workers_per_gather=0) unless noted. ratio = ms / baseline ms,"
echo "both medians from the same session. count = rows found (matches + false positives)."
echo
echo "| case | ms | baseline ms | ratio | backend CPU ratio | count | plan |"
echo "|---|---|---|---|---|---|---|"
printf '%s' "$probe_rows"

echo
echo "### Probe goals (issue 15): \`WHERE cuckoo_contains(f, k)\` / \`WHERE k <> 0\`, $ROWS rows"
echo
echo "Serial. The filter holds the build keys plus keys outside the probe range (the matches are filter b's),"
echo "stored out of line, uncompressed, read by an InitPlan. Batched: \`cuckoo.batched_probe = on\` (the"
echo "CuckooProbe node); unbatched: off. Each ratio against the bare scan measured in the same session."
echo
echo "| filter items | MB | goal | batched ratio | unbatched ratio | batched CPU ratio | unbatched CPU ratio | batched ms | unbatched ms | baseline ms (each session) | count | plan (batched) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s' "$goal_rows"

fi
# ---------------------------------------------------------------- storage
if want storage; then
check_so "storage"
store_rows=''
store_row() { # LABEL BASELINE-LABEL
  store_rows+="| $1 | $(fmt_ms "$T_MS") | $2 | $(fmt_ms "$B_MS") | $RATIO | $RES |"$'\n'
  log "storage: $1: $(fmt_ms "$T_MS") ms, $2 $(fmt_ms "$B_MS") ms, ratio $RATIO"
}
log "storage ($STORE_ROWS probe rows)"
SB="SELECT count(*) FROM probe_store WHERE k <> 0;"
sq() { echo "SELECT count(*) FROM probe_store WHERE cuckoo_contains((SELECT f FROM $1), k);"; }

SETUP=$SERIAL BASE=$SB TEST=$(sq fz_ext_plain) PLANQ=-
measure; store_row "sparse, out of line, uncompressed (\`fz_ext_plain\`)" "\`k <> 0\`"
SETUP=$SERIAL BASE=$(sq fz_ext_plain) TEST=$(sq fz_ext_pglz) PLANQ=-
measure; store_row "sparse, out of line, pglz (\`fz_ext_pglz\`)" "the same, uncompressed"
SETUP=$SERIAL BASE=$SB TEST=$(sq fz_inl_plain) PLANQ=-
measure; store_row "small, inline, uncompressed (\`fz_inl_plain\`)" "\`k <> 0\`"
SETUP=$SERIAL BASE=$(sq fz_inl_plain) TEST=$(sq fz_inl_pglz) PLANQ=-
measure; store_row "small, inline, pglz (\`fz_inl_pglz\`)" "the same, uncompressed"
SETUP=$SERIAL BASE="SELECT count(*) FROM probe_store, fz_inl_plain WHERE cuckoo_contains(f, k);" PLANQ=-
TEST="SELECT count(*) FROM probe_store, fz_inl_pglz WHERE cuckoo_contains(f, k);"
measure; store_row "small, inline, pglz, as a join column" "the same, uncompressed"

echo
echo "### Probe: how the stored filter is kept ($STORE_ROWS probe rows, serial, InitPlan \`cuckoo_contains((SELECT f FROM t), k)\`)"
echo
echo "| filter stored | ms | baseline | baseline ms | ratio | count |"
echo "|---|---|---|---|---|---|"
printf '%s' "$store_rows"

fi
# ---------------------------------------------------------------- build
if want build; then
check_so "build"
PAR="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;"
if ((HLL)); then Q_HLL="SELECT pg_column_size(hll_add_agg(hll_hash_bigint(k))) FROM probe;"; HLL_LABEL="hll_add_agg(hll_hash_bigint(k))"
else Q_HLL="SELECT count(k) FROM probe;"; HLL_LABEL="count(k) (postgresql-hll not installed)"; fi
build_rows=''
build_row() { # LABEL
  local partial=no
  grep -q 'Partial Aggregate' <<<"$PLANTEXT" && partial=yes
  # the CPU time of the session's backend only: not a figure of parallel plans
  local cr=${CRATIO:--}
  [[ $1 == serial:* ]] || cr='-'
  build_rows+="| $1 | $partial | $(fmt_ms "$T_MS") | $(fmt_ms "$B_MS") | $RATIO | $cr | $RES |"$'\n'
  log "build: $1: $(fmt_ms "$T_MS") ms, hll $(fmt_ms "$B_MS") ms, ratio $RATIO, backend CPU ratio $cr, partial aggregate: $partial"
}
log "build ($ROWS distinct values)"
for mode in serial parallel; do
  if [[ $mode == serial ]]; then S=$SERIAL; else S=$PAR; fi
  SETUP=$S BASE=$Q_HLL TEST=$Q_HLL
  measure; build_row "$mode: \`$HLL_LABEL\` (baseline against itself)"
  SETUP=$S BASE=$Q_HLL TEST="SELECT pg_column_size(cuckoo_agg(k)) FROM probe;"
  measure; build_row "$mode: \`cuckoo_agg(k)\`"
  [[ $mode == serial ]] && GOAL_AGG=$RATIO GOAL_AGG_CPU=${CRATIO:--}
  SETUP=$S BASE=$Q_HLL TEST="SELECT pg_column_size(cuckoo_agg(k, $ROWS, 0.01)) FROM probe;"
  measure; build_row "$mode: \`cuckoo_agg(k, $ROWS, 0.01)\`"
  [[ $mode == serial ]] && GOAL_AGG_FIXED=$RATIO GOAL_AGG_FIXED_CPU=${CRATIO:--}
  SETUP=$S BASE=$Q_HLL TEST="SELECT count(DISTINCT k) FROM probe;"
  measure; build_row "$mode: \`count(DISTINCT k)\`"
done

echo
echo "### Build: aggregate over probe ($ROWS distinct values)"
echo
echo "Serial: max_parallel_workers_per_gather=0. Parallel: parallel_setup_cost=0, parallel_tuple_cost=0,"
echo "min_parallel_table_scan_size=0, max_parallel_workers_per_gather=2; the baseline (hll) runs with the"
echo "same settings in the same session. Results are wrapped in \`pg_column_size()\`, so the value is not sent"
echo "to the client. result = bytes of the aggregate (or the count)."
echo
echo "| case | Partial Aggregate in plan | ms | hll ms | ratio | backend CPU ratio (serial) | result |"
echo "|---|---|---|---|---|---|---|"
printf '%s' "$build_rows"

# Parallel speed-up: the same aggregate serial (baseline) and with 2 workers,
# alternating in one session; the SETs are untimed (\timing off around them).
par_rows=''
for q in "cuckoo_agg(k)" "cuckoo_agg(k, $ROWS, 0.01)"; do
  SETUP="$PAR
SET max_parallel_workers_per_gather = 0;"
  BASE="SELECT pg_column_size($q) FROM probe;"
  TEST="\\timing off
SET max_parallel_workers_per_gather = 2;
\\timing on
SELECT pg_column_size($q) FROM probe;
\\timing off
SET max_parallel_workers_per_gather = 0;
\\timing on"
  PLANQ="-"
  measure
  speedup=$(ratio "$B_MS" "$T_MS")
  par_rows+="| \`$q\` | $(fmt_ms "$B_MS") | $(fmt_ms "$T_MS") | $speedup |"$'\n'
  log "build: parallel speed-up of $q: serial $(fmt_ms "$B_MS") ms, 2 workers $(fmt_ms "$T_MS") ms, $speedup x"
  [[ $q == "cuckoo_agg(k)" ]] && GOAL_PAR=$speedup
  [[ $q != "cuckoo_agg(k)" ]] && GOAL_PAR_FIXED=$speedup
done
echo
echo "### Build: parallel speed-up (the same aggregate serial and with 2 workers, alternating in one session)"
echo
echo "Parallel costs as above (parallel_setup_cost=0 ...); serial = max_parallel_workers_per_gather=0."
echo "speed-up = serial ms / parallel ms."
echo
echo "| aggregate | serial ms | 2 workers ms | speed-up |"
echo "|---|---|---|---|"
printf '%s' "$par_rows"

if ((HLL)); then
  goal "\`cuckoo_agg(k)\` / \`hll_add_agg(hll_hash_bigint(k))\` (serial)" "<= 1.2" "$GOAL_AGG (backend CPU $GOAL_AGG_CPU)" "$(verdict "$GOAL_AGG" '<=' 1.2)"
  goal "\`cuckoo_agg(k, $ROWS, 0.01)\` (fixed shape) / the same" "<= 1.2" "$GOAL_AGG_FIXED (backend CPU $GOAL_AGG_FIXED_CPU)" "$(verdict "$GOAL_AGG_FIXED" '<=' 1.2)"
else
  goal "\`cuckoo_agg(k)\` / \`hll_add_agg\`" "<= 1.2" "skipped" "postgresql-hll not installed"
  goal "\`cuckoo_agg(k, capacity, fpr)\` / \`hll_add_agg\`" "<= 1.2" "skipped" "postgresql-hll not installed"
fi
goal "parallel (2 workers) \`cuckoo_agg(k)\` speed-up over serial" ">= 1.7" "$GOAL_PAR" "$(verdict "$GOAL_PAR" '>=' 1.7)"
goal "the same for \`cuckoo_agg(k, $ROWS, 0.01)\`" ">= 1.7" "$GOAL_PAR_FIXED" "$(verdict "$GOAL_PAR_FIXED" '>=' 1.7)"

fi
# ---------------------------------------------------------------- memory
if want memory; then
check_so "peak memory"
log "peak memory (VmHWM of a fresh backend, median of $MEM_RUNS connections)"
mem_rows=''
peak_kb "SELECT count(*) FROM probe;" "$SERIAL"
scan_kb=$PEAK_KB
mem_rows+="| \`SELECT count(*) FROM probe\` (reference: the scan's shared buffers count in RSS) | $scan_kb | 0 | | |"$'\n'
mem_case() { # LABEL QUERY(returning bytes)
  peak_kb "$2" "$SERIAL"
  local extra=$((PEAK_KB - scan_kb)) r=''
  [[ $PEAK_RES =~ ^[0-9]+$ ]] && r=$(ratio "$((extra * 1024))" "$PEAK_RES")
  mem_rows+="| $1 | $PEAK_KB | $extra | $PEAK_RES | $r |"$'\n'
  MEM_RATIO=$r
  log "memory: $1: VmHWM $PEAK_KB kB (+$extra kB over the scan), result $PEAK_RES bytes"
}
mem_case "\`cuckoo_agg(k)\`" "SELECT pg_column_size(cuckoo_agg(k)) FROM probe;"
GOAL_MEM=$MEM_RATIO
mem_case "\`cuckoo_agg(k, $ROWS, 0.01)\`" "SELECT pg_column_size(cuckoo_agg(k, $ROWS, 0.01)) FROM probe;"
GOAL_MEM_FIXED=$MEM_RATIO
if ((HLL)); then
  mem_case "\`hll_add_agg(hll_hash_bigint(k))\`" "SELECT pg_column_size(hll_add_agg(hll_hash_bigint(k))) FROM probe;"
fi
goal "peak build memory / final filter size, \`cuckoo_agg(k)\`" "<= 2" "$GOAL_MEM" "$(verdict "$GOAL_MEM" '<=' 2)"
goal "the same, \`cuckoo_agg(k, $ROWS, 0.01)\`" "<= 2" "$GOAL_MEM_FIXED" "$(verdict "$GOAL_MEM_FIXED" '<=' 2)"

echo
echo "### Peak memory of the building backend (serial, $ROWS distinct values)"
echo
echo "VmHWM from /proc/PID/status of a fresh connection after the query (median of $MEM_RUNS"
echo "connections). It includes the shared buffers the backend touched, so the reference row (a"
echo "plain scan of probe) is subtracted: extra = VmHWM - reference. ratio = extra / result bytes."
echo
echo "| query | VmHWM kB | extra kB | result bytes | ratio |"
echo "|---|---|---|---|---|"
printf '%s' "$mem_rows"

fi
# ---------------------------------------------------------------- text I/O
if want io; then
check_so "text I/O"
log "text I/O: building a filter of $BIG values"
t0=$(date +%s.%N)
"${PSQL[@]}" <<EOF
SET max_parallel_workers_per_gather = 0;
CREATE TABLE big AS SELECT cuckoo_agg(g) AS f FROM (SELECT generate_series(1, $BIG::bigint) AS g) s;
-- the same bytes as text, as base64 text and as bytea; out of line, not compressed
CREATE TABLE bigt (t text);
ALTER TABLE bigt ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO bigt SELECT f::text FROM big;
CREATE TABLE bigb64 (t text);
ALTER TABLE bigb64 ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO bigb64 SELECT encode(f::bytea, 'base64') FROM big;
CREATE TABLE bigbytea (b bytea);
ALTER TABLE bigbytea ALTER COLUMN b SET STORAGE EXTERNAL;
INSERT INTO bigbytea SELECT f::bytea FROM big;
-- the COPY targets: both out of line and not compressed, like their sources
-- (a compression attempt on a 100 MB value of random bits costs about a second
-- here, whatever its type)
CREATE UNLOGGED TABLE big2 (LIKE big);
ALTER TABLE big2 ALTER COLUMN f SET STORAGE EXTERNAL;
CREATE UNLOGGED TABLE bigbytea2 (LIKE bigbytea);
ALTER TABLE bigbytea2 ALTER COLUMN b SET STORAGE EXTERNAL;
CHECKPOINT;
EOF
t1=$(date +%s.%N)
BIGBYTES=$(sql "SELECT (cuckoo_info(f)).bytes FROM big")
DATADIR=$(sql "SHOW data_directory")   # COPY TO needs an absolute path; the files go with the cluster
TEXTBYTES=$(sql "SELECT octet_length(t) FROM bigt")
log "text I/O: filter of $BIGBYTES bytes built in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (with the copies)"

io_rows=''
io_row() { # LABEL BASELINE-LABEL
  local mbs bmbs
  mbs=$(awk -v b="$BIGBYTES" -v t="$T_MS" 'BEGIN { printf "%.0f", b / 1e6 / (t / 1000) }')
  bmbs=$(awk -v b="$BIGBYTES" -v t="$B_MS" 'BEGIN { printf "%.0f", b / 1e6 / (t / 1000) }')
  io_rows+="| $1 | $(fmt_ms "$T_MS") | $mbs | $2 | $(fmt_ms "$B_MS") | $bmbs | $RATIO |"$'\n'
  IO_MBS=$mbs
  log "text I/O: $1: $(fmt_ms "$T_MS") ms ($mbs MB/s), $2 $(fmt_ms "$B_MS") ms, ratio $RATIO"
}
SETUP=$SERIAL PLANQ=- BASE="SELECT octet_length(encode(f::bytea, 'base64')) FROM big;"
TEST="SELECT octet_length(f::text) FROM big;"
measure; io_row "output: \`SELECT octet_length(f::text) FROM big\`" "\`encode(f::bytea, 'base64')\`"
GOAL_OUT=$IO_MBS
SETUP=$SERIAL PLANQ=- BASE="SELECT octet_length(decode(t, 'base64')) FROM bigb64;"
TEST="SELECT pg_column_size(t::cuckoofilter) FROM bigt;"
measure; io_row "input: \`SELECT pg_column_size(t::cuckoofilter) FROM bigt\` (bigt.t = f::text)" "\`decode(t, 'base64')\`"
GOAL_IN=$IO_MBS
if [[ -n ${BENCH_BEFORE_SO:-} ]]; then
  # The text I/O functions of another build (bench/sql_bench.sh BENCH_BEFORE_REV),
  # called by name beside the installed ones, in the same session.
  sql "CREATE FUNCTION before_out(cuckoofilter) RETURNS cstring AS '$BENCH_BEFORE_SO', 'cuckoo_out' LANGUAGE C STRICT;
       CREATE FUNCTION before_in(cstring) RETURNS cuckoofilter AS '$BENCH_BEFORE_SO', 'cuckoo_in' LANGUAGE C STRICT;" >/dev/null
  SETUP=$SERIAL PLANQ=- BASE="SELECT octet_length(before_out(f)::text) FROM big;"
  TEST="SELECT octet_length(cuckoo_out(f)::text) FROM big;"
  measure; io_row "output, by name: \`cuckoo_out(f)::text\` (this build)" "the same function of ${BENCH_BEFORE_NAME:-the other build}"
  GOAL_OUT_BEFORE=$(awk -v b="$BIGBYTES" -v t="$B_MS" 'BEGIN { printf "%.0f", b / 1e6 / (t / 1000) }')
  SETUP=$SERIAL PLANQ=- BASE="SELECT pg_column_size(before_in(t::cstring)) FROM bigt;"
  TEST="SELECT pg_column_size(cuckoo_in(t::cstring)) FROM bigt;"
  measure; io_row "input, by name: \`cuckoo_in(t::cstring)\` (this build)" "the same function of ${BENCH_BEFORE_NAME:-the other build}"
  GOAL_IN_BEFORE=$(awk -v b="$BIGBYTES" -v t="$B_MS" 'BEGIN { printf "%.0f", b / 1e6 / (t / 1000) }')
  sql "DROP FUNCTION before_out(cuckoofilter); DROP FUNCTION before_in(cstring);" >/dev/null
fi
SETUP=$SERIAL PLANQ=- BASE="COPY bigbytea TO '$DATADIR/cuckoo_bench_bytea.txt';"
TEST="COPY big TO '$DATADIR/cuckoo_bench_big.txt';"
measure; io_row "\`COPY big TO file\` (text)" "the same bytes as bytea"
SETUP=$SERIAL PLANQ=- PRE="TRUNCATE big2, bigbytea2;" BASE="COPY bigbytea2 FROM '$DATADIR/cuckoo_bench_bytea.txt';"
TEST="COPY big2 FROM '$DATADIR/cuckoo_bench_big.txt';"
measure; io_row "\`COPY big2 FROM file\` (text, unlogged table)" "the same bytes as bytea"
SETUP=$SERIAL PLANQ=- BASE="COPY bigbytea TO '$DATADIR/cuckoo_bench_bytea.bin' (FORMAT binary);"
TEST="COPY big TO '$DATADIR/cuckoo_bench_big.bin' (FORMAT binary);"
measure; io_row "\`COPY big TO file (FORMAT binary)\`" "the same bytes as bytea"
SETUP=$SERIAL PLANQ=- PRE="TRUNCATE big2, bigbytea2;" BASE="COPY bigbytea2 FROM '$DATADIR/cuckoo_bench_bytea.bin' (FORMAT binary);"
TEST="COPY big2 FROM '$DATADIR/cuckoo_bench_big.bin' (FORMAT binary);"
measure; io_row "\`COPY big2 FROM file (FORMAT binary)\`" "the same bytes as bytea"
check=$(sql "SELECT (SELECT f FROM big) = (SELECT f FROM big2)")
[[ $check == t ]] || { echo "COPY round trip changed the filter" >&2; exit 1; }

echo
echo "### Text I/O: one filter of $BIG values ($BIGBYTES bytes; text form $TEXTBYTES bytes)"
echo
echo "MB/s = binary size (10^6 bytes) / median time. COPY files are in the data directory."
echo "ratio = ms / baseline ms."
echo
echo "| case | ms | MB/s | baseline | baseline ms | baseline MB/s | ratio |"
echo "|---|---|---|---|---|---|---|"
printf '%s' "$io_rows"
check_so "the end of the run"
echo
goal "text output (\`f::text\`), MB/s of the binary form" ">= 300" "$GOAL_OUT${GOAL_OUT_BEFORE:+ (${BENCH_BEFORE_NAME:-before}: $GOAL_OUT_BEFORE by name)}" "$(verdict "$GOAL_OUT" '>=' 300)"
goal "text input (\`t::cuckoofilter\`), MB/s" ">= 300" "$GOAL_IN${GOAL_IN_BEFORE:+ (${BENCH_BEFORE_NAME:-before}: $GOAL_IN_BEFORE by name)}" "$(verdict "$GOAL_IN" '>=' 300)"
fi
# ---------------------------------------------------------------- sweep
# Probe and build ratios per filter size (BENCH_ONLY=sweep; bench/plots.sh
# draws them).  For each size N: a table of N keys (1..N, random order); the
# build of cuckoo_agg(k) over it against hll_add_agg(hll_hash_bigint(k)) (or
# count(k) without postgresql-hll) over the same table; the probe of all ROWS
# probe rows by the filter of those N keys against WHERE k <> 0.  Data lines
# go to $BENCH_PLOT_DIR/sweep.dat when BENCH_PLOT_DIR is set.
if want sweep; then
check_so "sweep"
SIZES=${BENCH_SWEEP_SIZES:-1000 10000 100000 1000000 10000000}
if ((HLL)); then SWEEP_BASE_LABEL="hll_add_agg(hll_hash_bigint(k))"; else SWEEP_BASE_LABEL="count(k)"; fi
sweep_rows=''
sweep_dat="# items filter_bytes probe_ratio build_ratio probe_ms scan_ms build_ms base_ms"$'\n'
for N in $SIZES; do
  log "sweep: $N items"
  "${PSQL[@]}" >/dev/null <<EOF
DROP TABLE IF EXISTS sweep_keys, sweep_f;
SELECT setseed(0.17);
CREATE TABLE sweep_keys AS SELECT g::bigint AS k FROM generate_series(1, $N) g ORDER BY random();
VACUUM ANALYZE sweep_keys;
CREATE TABLE sweep_f (f cuckoofilter);
ALTER TABLE sweep_f ALTER COLUMN f SET STORAGE EXTERNAL;
INSERT INTO sweep_f SELECT cuckoo_agg(k) FROM sweep_keys;
EOF
  fbytes=$(sql "SELECT (cuckoo_info(f)).bytes FROM sweep_f")
  if ((HLL)); then QB="SELECT pg_column_size(hll_add_agg(hll_hash_bigint(k))) FROM sweep_keys;"
  else QB="SELECT count(k) FROM sweep_keys;"; fi
  SETUP=$SERIAL PLANQ=- BASE=$QB TEST="SELECT pg_column_size(cuckoo_agg(k)) FROM sweep_keys;"
  measure; b_ratio=$RATIO b_ms=$T_MS bb_ms=$B_MS
  SETUP=$SERIAL PLANQ=- BASE="SELECT count(*) FROM probe WHERE k <> 0;"
  TEST="SELECT count(*) FROM probe WHERE cuckoo_contains((SELECT f FROM sweep_f), k);"
  measure; p_ratio=$RATIO p_ms=$T_MS pb_ms=$B_MS
  sweep_rows+="| $N | $fbytes | $(fmt_ms "$p_ms") | $(fmt_ms "$pb_ms") | $p_ratio | $(fmt_ms "$b_ms") | $(fmt_ms "$bb_ms") | $b_ratio |"$'\n'
  sweep_dat+="$N $fbytes $p_ratio $b_ratio $p_ms $pb_ms $b_ms $bb_ms"$'\n'
  log "sweep: $N items ($fbytes bytes): probe ratio $p_ratio, build ratio $b_ratio"
done
sql "DROP TABLE IF EXISTS sweep_keys, sweep_f" >/dev/null
if [[ -n ${BENCH_PLOT_DIR:-} ]]; then printf '%s' "$sweep_dat" >"$BENCH_PLOT_DIR/sweep.dat"; fi
echo
echo "### Probe and build per filter size ($ROWS probe rows, serial)"
echo
echo "probe: \`count(*) FROM probe WHERE cuckoo_contains((SELECT f FROM sweep_f), k)\` against \`WHERE k <> 0\`;"
echo "build: \`cuckoo_agg(k)\` over a table of the N keys against \`$SWEEP_BASE_LABEL\` over the same table."
echo
echo "| items | filter bytes | probe ms | scan ms | probe ratio | build ms | $SWEEP_BASE_LABEL ms | build ratio |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s' "$sweep_rows"
fi
# ---------------------------------------------------------------- goals
# Issue 15's table: each goal beside this run's figure.  The probe rows come
# from the probe table (its InitPlan rows); the core rows from the core
# benchmark (make -C bench ref, run separately: it needs a copy of the
# reference implementation).
mv "$work/goals" "$work/goals.rest"
if want probe && [[ -n ${goal_rows:-} ]]; then
  # one goal per row of the probe goals table (batched, as queries run by default)
  while IFS='|' read -r _ items _ pgoal pratio punb pcpu _; do
    items=${items// /}; pgoal=$(echo $pgoal); pratio=${pratio//[* ]/}; punb=${punb// /}; pcpu=${pcpu// /}
    [[ -n $items ]] || continue
    goal "\`WHERE cuckoo_contains(f, k)\`, ${items}-item filter, / \`WHERE k <> 0\`" "$pgoal" "$pratio (batched; backend CPU ${pcpu}; $punb with cuckoo.batched_probe off)" "$( [[ $pgoal == -* ]] && echo "no goal at this size" || verdict "$pratio" '<=' "${pgoal#<= }")"
  done <<<"$goal_rows"
fi
cat "$work/goals.rest" >>"$work/goals"
if [[ -s $work/goals ]]; then
  echo
  echo "### Goals of issue 15, measured in this run"
  echo
  echo "Goals from issue 15 (20M- and 100M-item probe goals: 1.5 and 2.0; a probe filter of fewer"
  echo "than 50M items is held to 1.5). The core rows (lookup, insert and delete against"
  echo "efficient/cuckoofilter) follow when CUCKOO_REF_DIR names a copy of it (\`make -C bench ref\`)."
  echo
  echo "| what | goal | measured | verdict |"
  echo "|---|---|---|---|"
  cat "$work/goals"
  echo
fi
log "done in $((SECONDS - started)) s"
