#!/usr/bin/env bash
# Sharding with postgres_fdw, inside a throwaway cluster (pg_virtualenv sets
# PGHOST, PGPORT, PGUSER): two shard databases hold halves of a table; the
# coordinator reaches them through loopback foreign servers whose
# "extensions 'cuckoo'" option lets postgres_fdw ship cuckoo's functions, so
# each shard builds its filter remotely and the coordinator unions them.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

for s in 1 2; do
  createdb "shard$s"
  q "shard$s" "CREATE EXTENSION cuckoo;
               CREATE TABLE events (customer_id bigint);
               INSERT INTO events SELECT g FROM generate_series(($s - 1) * 50000 + 1, $s * 50000) g, generate_series(1, 2);
               ANALYZE events;" >/dev/null
done
createdb coord
q coord "CREATE EXTENSION cuckoo; CREATE EXTENSION postgres_fdw;" >/dev/null
for s in 1 2; do
  q coord "CREATE SERVER shard$s FOREIGN DATA WRAPPER postgres_fdw
             OPTIONS (host '${PGHOST:-localhost}', port '${PGPORT:-5432}', dbname 'shard$s', extensions 'cuckoo');
           CREATE USER MAPPING FOR CURRENT_USER SERVER shard$s OPTIONS (user '${PGUSER:-postgres}', password '${PGPASSWORD:-}');
           CREATE FOREIGN TABLE events_shard$s (customer_id bigint) SERVER shard$s OPTIONS (table_name 'events');" >/dev/null
done

# The aggregate is pushed down: the shard computes the filter.
plan=$(q coord "EXPLAIN (VERBOSE, COSTS OFF) SELECT cuckoo_agg(customer_id, 200000, 0.01) FROM events_shard1")
check "cuckoo_agg is shipped to the shard" 1 "$(echo "$plan" | grep -c 'Remote SQL: SELECT public.cuckoo_agg(customer_id, 200000')"
check "no local aggregation" 0 "$(echo "$plan" | grep -c '^ *Aggregate')"
plan=$(q coord "EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM events_shard1 WHERE cuckoo_contains('$(q coord "SELECT cuckoo_agg(g::bigint) FROM generate_series(1, 10) g")'::cuckoofilter, customer_id)")
check "a cuckoo_contains prefilter is shipped too" 1 "$(echo "$plan" | grep -c 'Remote SQL: .*cuckoo_contains')"

# Per-shard filters, built remotely, unioned on the coordinator.
q coord "CREATE TABLE shard_filters AS
         SELECT 1 AS shard, cuckoo_agg(customer_id, 200000, 0.01) AS f FROM events_shard1
         UNION ALL
         SELECT 2, cuckoo_agg(customer_id, 200000, 0.01) FROM events_shard2;" >/dev/null
check "two shard filters" 2 "$(q coord "SELECT count(*) FROM shard_filters WHERE f IS NOT NULL")"
check "each shard filter holds its 50,000 customers" "t" \
  "$(q coord "SELECT bool_and((cuckoo_info(f)).items BETWEEN 49000 AND 50000) FROM shard_filters")"
check "the union finds all 100,000 customers" 100000 \
  "$(q coord "WITH u AS MATERIALIZED (SELECT cuckoo_union_agg(f) AS f FROM shard_filters)
              SELECT count(*) FROM u, generate_series(1, 100000) g WHERE cuckoo_contains(u.f, g::bigint)")"
check "non-customers mostly rejected (fpr below 2%)" "t" \
  "$(q coord "WITH u AS MATERIALIZED (SELECT cuckoo_union_agg(f) AS f FROM shard_filters)
              SELECT count(*) < 2000 FROM u, generate_series(200001, 300000) g WHERE cuckoo_contains(u.f, g::bigint)")"
# The union aggregate itself can run on the shards' filters in one query.
check "union of remote aggregates in one statement" "t" \
  "$(q coord "SELECT cuckoo_union_agg(f) @> 75000::bigint FROM (
                SELECT cuckoo_agg(customer_id, 200000, 0.01) AS f FROM events_shard1
                UNION ALL SELECT cuckoo_agg(customer_id, 200000, 0.01) FROM events_shard2) s")"

finish
