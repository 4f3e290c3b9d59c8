#!/usr/bin/env bash
# A growing filter filled through SQL from its capacity of 1,000 to
# 1,000,000 values (1,000x), inside a throwaway cluster (pg_virtualenv sets
# PGHOST, PGPORT, PGUSER):
#   - a stored filter per target (0.01 and 0.001), UPDATEd with
#     cuckoo_add_array 10,000 values at a time;
#   - cuckoo_agg(value, 1000, 0.01, 2) over the million rows;
# each with no error, no false negative among the million values, and a
# false-positive rate, measured over 1,000,000 absent keys, at or below the
# target.  Prints the figures (items, growth rounds, bytes, bits per item,
# measured rate).  Ends with "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
started=$(date +%s)
N=1000000
CHUNK=10000

createdb grow1m
q grow1m "CREATE EXTENSION cuckoo;
CREATE TABLE grown (target float8 PRIMARY KEY, f cuckoofilter);
INSERT INTO grown VALUES (0.01, cuckoo_create(1000, 0.01, expansion => 2)),
                         (0.001, cuckoo_create(1000, 0.001, expansion => 2))" >/dev/null

errors=0
first_error=""
for lo in $(seq 1 $CHUNK $N); do
  hi=$((lo + CHUNK - 1))
  if ! q grow1m "UPDATE grown SET f = cuckoo_add_array(f, ARRAY(SELECT generate_series($lo, $hi)))" \
       >/dev/null 2>"$tmp/err"; then
    errors=$((errors + 1))
    [ -z "$first_error" ] && first_error="at $lo: $(head -n 1 "$tmp/err")"
  fi
done
check "1,000,000 values added through UPDATE ... cuckoo_add_array without an error" "0" "$errors${first_error:+ $first_error}"
echo "# filled by UPDATE in $(( $(date +%s) - started )) s"

agg_t0=$(date +%s)
q grow1m "INSERT INTO grown SELECT -0.01, cuckoo_agg(g, 1000, 0.01, 2) FROM generate_series(1, $N) g" >/dev/null 2>"$tmp/err"
check "cuckoo_agg(value, 1000, 0.01, 2) over 1,000,000 rows without an error" "" "$(head -n 1 "$tmp/err")"
echo "# cuckoo_agg over $N rows in $(( $(date +%s) - agg_t0 )) s"

# figures and measured rates: members 1..N, absent keys 2N+1..3N
q grow1m "SELECT '# target ' || abs(target) || CASE WHEN target < 0 THEN ' (cuckoo_agg)' ELSE ' (UPDATE)' END
                 || ': items ' || i.items || ', growth rounds ' || i.growth_rounds
                 || ', buckets ' || i.initial_buckets || ' -> ' || i.buckets
                 || ', bytes ' || i.bytes || ', bits/item ' || round(i.bits_per_item::numeric, 2)
                 || ', load ' || round(i.load_factor::numeric, 3)
          FROM grown, cuckoo_info(f) i ORDER BY target DESC"
for t in 0.01 0.001 -0.01; do
  read -r items fn fp < <(q grow1m "
    SELECT (cuckoo_info(f)).items,
           (SELECT count(*) FROM unnest(cuckoo_contains_array(f, ARRAY(SELECT generate_series(1, $N)))) h WHERE NOT h),
           (SELECT count(*) FROM unnest(cuckoo_contains_array(f, ARRAY(SELECT generate_series(2 * $N + 1, 3 * $N)))) h WHERE h)
    FROM grown WHERE target = $t" | tr '|' ' ')
  target=${t#-}
  echo "# target $target$([ "${t:0:1}" = - ] && echo ' (cuckoo_agg)'): measured false-positive rate $(awk -v fp="$fp" -v n=$N 'BEGIN { printf "%.5f", fp / n }') ($fp of $N absent keys)"
  # cuckoo_agg adds each value unless the filter already reports it: a
  # value that is a false positive when it arrives is not stored again
  if [ "${t:0:1}" = - ]; then
    check "target $t: $N items, less the false positives met on the way" 1 \
      "$(awk -v i="$items" -v n=$N -v t="$target" 'BEGIN { print (i <= n && i >= n * (1 - t)) ? 1 : 0 }')"
  else
    check "target $t: $N items" "$N" "$items"
  fi
  check "target $t: no false negative among the $N values" 0 "$fn"
  check "target $t: measured false-positive rate at or below the target" 1 \
    "$(awk -v fp="$fp" -v n=$N -v t="$target" 'BEGIN { print (fp / n <= t) ? 1 : 0 }')"
done
echo "# growth to 1,000x through SQL: $(( $(date +%s) - started )) s"
finish
