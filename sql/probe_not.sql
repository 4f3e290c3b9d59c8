-- NOT around the probe: WHERE NOT cuckoo_store_contains(store, k), NOT
-- cuckoo_contains(filter, k) and NOT filter @> k go through the batched
-- probe (a CuckooProbe node, "Cuckoo Probe: (NOT ...)").  A row passes when
-- the probe gives false; a NULL key or filter passes neither way (NOT NULL
-- is NULL).  Every result is compared with the unbatched path
-- (cuckoo.batched_probe off), and no value added passes the NOT (no false
-- negative): in a store, an empty store, a grown store, in the transaction
-- that adds (pending changes of a tracked store: sql/track_pending.sql),
-- with NULL keys and a NULL filter.
\set VERBOSITY terse
SET max_parallel_workers_per_gather = 0;

-- Keys 1 .. 20000 in a scrambled order, every 97th NULL.
CREATE TABLE pn_keys (id int PRIMARY KEY, k bigint);
INSERT INTO pn_keys
SELECT id, CASE WHEN id % 97 = 0 THEN NULL ELSE id END
FROM generate_series(1, 20000) id ORDER BY (id * 7919) % 20000;
ANALYZE pn_keys;

SELECT cuckoo_store_create('pn_three', 10000);
SELECT cuckoo_store_add_array('pn_three', ARRAY(SELECT g::bigint FROM generate_series(3, 20000, 3) g));
SELECT cuckoo_store_create('pn_grown', 200);
SELECT cuckoo_store_add_array('pn_grown', ARRAY(SELECT g::bigint FROM generate_series(5, 20000, 5) g));
SELECT cuckoo_store_create('pn_empty', 1000);
CREATE TABLE pn_filters (name text PRIMARY KEY, f cuckoofilter);
INSERT INTO pn_filters
SELECT 'seven', cuckoo_agg(g::bigint) FROM generate_series(7, 20000, 7) g;
INSERT INTO pn_filters VALUES ('null', NULL);

-- The plans: the node over the scan, with the NOT in its probe; a qual
-- cheaper than the probe stays in the scan, one dearer moves to the node.
EXPLAIN (COSTS OFF) SELECT count(*) FROM pn_keys WHERE NOT cuckoo_store_contains('pn_three', k);
EXPLAIN (COSTS OFF) SELECT id FROM pn_keys WHERE NOT cuckoo_store_contains('pn_grown', k) AND k % 2 = 0;
-- pn_explain(q): the plan, with 13-16's way of printing an InitPlan's output
-- ("InitPlan 1 (returns $0)", "$0") rewritten into 17's ("InitPlan 1",
-- "(InitPlan 1).col1") and 19's "InitPlan expr_1" into "InitPlan 1", so one
-- expected file fits every version (as bp_explain in batched_probe.sql).
CREATE FUNCTION pn_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    line := regexp_replace(line, 'InitPlan ([0-9]+) \(returns \$[0-9]+\)', 'InitPlan \1');
    line := regexp_replace(line, '\$0\M', '(InitPlan 1).col1', 'g');
    line := regexp_replace(line, 'InitPlan expr_([0-9]+)', 'InitPlan \1', 'g');
    RETURN NEXT line;
  END LOOP;
END $$;
SELECT pn_explain($q$SELECT count(*) FROM pn_keys
WHERE NOT cuckoo_contains((SELECT f FROM pn_filters WHERE name = 'seven'), k)$q$);
SELECT pn_explain($q$SELECT count(*) FROM pn_keys
WHERE NOT (SELECT f FROM pn_filters WHERE name = 'seven') @> k$q$);
-- "= false" is the same clause to the planner
EXPLAIN (COSTS OFF) SELECT count(*) FROM pn_keys WHERE cuckoo_store_contains('pn_three', k) = false;
-- IS NOT TRUE passes NULL keys too: not the node's test, not batched
EXPLAIN (COSTS OFF) SELECT count(*) FROM pn_keys WHERE cuckoo_store_contains('pn_three', k) IS NOT TRUE;

-- same_rows(q): the rows of q batched and unbatched, in order, are equal
CREATE FUNCTION same_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  SET LOCAL cuckoo.batched_probe = on;
  EXECUTE 'SELECT string_agg(r::text, '','') FROM (' || q || ') r' INTO a;
  SET LOCAL cuckoo.batched_probe = off;
  EXECUTE 'SELECT string_agg(r::text, '','') FROM (' || q || ') r' INTO b;
  SET LOCAL cuckoo.batched_probe = on;
  RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT' END;
END $$;

-- No value added passes the NOT, no NULL key passes; nearly every other does
-- (the non-null keys are 19794; of them multiples of 3: 6598, of 5: 3959,
-- of 7: 2828).
SELECT count(*) FILTER (WHERE k % 3 = 0) AS added, count(*) FILTER (WHERE k IS NULL) AS nulls,
       count(*) >= 19794 - 6598 - 200 AS few_false
FROM pn_keys WHERE NOT cuckoo_store_contains('pn_three', k);
SELECT count(*) FILTER (WHERE k % 5 = 0) AS added, count(*) FILTER (WHERE k IS NULL) AS nulls,
       count(*) >= 19794 - 3959 - 200 AS few_false
FROM pn_keys WHERE NOT cuckoo_store_contains('pn_grown', k);
SELECT count(*) FILTER (WHERE k % 7 = 0) AS added, count(*) FILTER (WHERE k IS NULL) AS nulls,
       count(*) >= 19794 - 2828 - 200 AS few_false
FROM pn_keys WHERE NOT cuckoo_contains((SELECT f FROM pn_filters WHERE name = 'seven'), k);
-- an empty store: every non-null key passes; a NULL filter: none
SELECT count(*) FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k);
SELECT count(*) FROM pn_keys WHERE NOT cuckoo_contains((SELECT f FROM pn_filters WHERE name = 'null'), k);
SELECT count(*) FROM pn_keys WHERE NOT cuckoo_store_contains(NULL::regclass, k);

SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_store_contains('pn_three', k)$$);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_store_contains('pn_grown', k)$$);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k)$$);
SELECT same_rows($$SELECT id, k FROM pn_keys WHERE id > 100 AND NOT cuckoo_store_contains('pn_grown', k) AND k % 2 = 0$$);
SELECT same_rows($$SELECT id, k FROM pn_keys WHERE NOT cuckoo_store_contains('pn_three', k) AND (k % 7 = 0 OR k % 11 = 0)$$);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_store_contains('pn_three', k) ORDER BY id LIMIT 7$$);
SELECT same_rows($$SELECT id FROM pn_keys WHERE cuckoo_store_contains('pn_three', k) = false$$);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_contains((SELECT f FROM pn_filters WHERE name = 'seven'), k)$$);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT (SELECT f FROM pn_filters WHERE name = 'seven') @> k$$);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_contains((SELECT f FROM pn_filters WHERE name = 'null'), k)$$);

-- In the transaction that adds (the pattern of the README's example:
-- INSERT ... WHERE NOT cuckoo_store_contains, then cuckoo_store_add), and
-- after ROLLBACK TO SAVEPOINT.
CREATE TABLE pn_seen (k bigint);
BEGIN;
INSERT INTO pn_seen SELECT k FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k) AND k <= 1000;
SELECT cuckoo_store_add_array('pn_empty', ARRAY(SELECT k FROM pn_seen));
SELECT count(*) FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k) AND k <= 1000;
SELECT count(*) FILTER (WHERE k <= 1000) AS added FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k);
SAVEPOINT a;
SELECT cuckoo_store_remove_array('pn_empty', ARRAY(SELECT k FROM pn_seen));
SELECT count(*) >= 990 - 20 AS passes_again FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k) AND k <= 1000;
ROLLBACK TO SAVEPOINT a;
SELECT count(*) FILTER (WHERE k <= 1000) AS added FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k)$$);
COMMIT;
SELECT count(*) FILTER (WHERE k <= 1000) AS added FROM pn_keys WHERE NOT cuckoo_store_contains('pn_empty', k);

-- A tracked store with pending changes (applied at the commit): a scan of
-- the transaction that changed the column sees them, batched as not.
CREATE TABLE pn_events (id bigint);
SELECT cuckoo_store_create('pn_tracked', 10000);
SELECT cuckoo_store_track('pn_tracked', 'pn_events', 'id');
BEGIN;
INSERT INTO pn_events SELECT g FROM generate_series(1, 20000, 11) g;
SELECT count(*) FILTER (WHERE k % 11 = 1) AS added, count(*) > 0 AS others
FROM pn_keys WHERE NOT cuckoo_store_contains('pn_tracked', k);
SELECT same_rows($$SELECT id FROM pn_keys WHERE NOT cuckoo_store_contains('pn_tracked', k)$$);
COMMIT;
SELECT count(*) FILTER (WHERE k % 11 = 1) AS added FROM pn_keys WHERE NOT cuckoo_store_contains('pn_tracked', k);

-- Off: the NOT stays a filter of the scan.
SET cuckoo.batched_probe = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pn_keys WHERE NOT cuckoo_store_contains('pn_three', k);
RESET cuckoo.batched_probe;

SELECT 'pn_tracked'::regclass::oid AS pn_oid \gset
SELECT count(*) AS pn_trackings FROM cuckoo_store_tracking WHERE store::oid = :pn_oid;
DROP TABLE pn_keys, pn_filters, pn_seen, pn_events, pn_three, pn_grown, pn_empty, pn_tracked;
SELECT count(*) AS pn_trackings_left FROM cuckoo_store_tracking WHERE store::oid = :pn_oid;
DROP FUNCTION same_rows(text);
DROP FUNCTION pn_explain(text);
