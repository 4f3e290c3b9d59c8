-- The batched probe (cuckoo.batched_probe): a CuckooProbe node over a scan
-- filtered by cuckoo_contains(filter, key) with a filter that is the same for
-- the whole scan.  Every result here is compared with the unbatched path
-- (the setting off): same rows, in the same order, same errors.
\set VERBOSITY terse
SET max_parallel_workers_per_gather = 0;

-- Keys 1..20000 in a scrambled order, every 97th NULL; a text column, every
-- 89th NULL.
CREATE TABLE bp_keys (id int PRIMARY KEY, k bigint, t text);
INSERT INTO bp_keys
SELECT id, CASE WHEN id % 97 = 0 THEN NULL ELSE id END,
       CASE WHEN id % 89 = 0 THEN NULL ELSE 'v' || id END
FROM generate_series(1, 20000) id ORDER BY (id * 7919) % 20000;
ANALYZE bp_keys;

-- Filters of every shape holding the multiples of 3 (6666 values).
CREATE TABLE bp_filters (name text PRIMARY KEY, f cuckoofilter);
INSERT INTO bp_filters
SELECT name, cuckoo_add_array(f, ARRAY(SELECT g FROM generate_series(3, 20000, 3) g))
FROM (VALUES
  ('b2 f8',      cuckoo_create(8000, bucket_size => 2, fingerprint_bits => 8)),
  ('b2 f16',     cuckoo_create(8000, bucket_size => 2, fingerprint_bits => 16)),
  ('b4 f4',      cuckoo_create(8000, bucket_size => 4, fingerprint_bits => 4)),
  ('b4 f12',     cuckoo_create(8000, bucket_size => 4, fingerprint_bits => 12)),
  ('b4 f13 semi-sorted', cuckoo_create(8000, bucket_size => 4, fingerprint_bits => 13, semisort => true)),
  ('b4 f32',     cuckoo_create(8000, bucket_size => 4, fingerprint_bits => 32)),
  ('b8 f8',      cuckoo_create(8000, bucket_size => 8, fingerprint_bits => 8)),
  ('b8 f16',     cuckoo_create(8000, bucket_size => 8, fingerprint_bits => 16))
) s(name, f);
-- A full filter, its victim slot in use: multiples of 3 added until full.
INSERT INTO bp_filters VALUES ('b2 f8 full', cuckoo_create(150, bucket_size => 2, fingerprint_bits => 8, max_kicks => 0));
DO $$
BEGIN
  FOR g IN 1..1000 LOOP
    UPDATE bp_filters SET f = cuckoo_add(f, g * 3) WHERE name = 'b2 f8 full';
    EXIT WHEN (SELECT (cuckoo_info(f)).is_full FROM bp_filters WHERE name = 'b2 f8 full');
  END LOOP;
END $$;
-- A filter of text values, an empty one, and a NULL one.
INSERT INTO bp_filters SELECT 'text', cuckoo_agg(t) FROM bp_keys WHERE id % 3 = 0;
INSERT INTO bp_filters VALUES ('empty', cuckoo_create(100)), ('null', NULL);
SELECT name, (cuckoo_info(f)).bucket_size AS b, (cuckoo_info(f)).fingerprint_bits AS f,
       (cuckoo_info(f)).semisort, (cuckoo_info(f)).items, (cuckoo_info(f)).is_full
FROM bp_filters ORDER BY name;

-- bp_run(query, batched): the query's one-value result, planned and run with
-- cuckoo.batched_probe on or off.  bp_plan(query): whether its plan has the node.
CREATE FUNCTION bp_run(q text, batched bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  PERFORM set_config('cuckoo.batched_probe', batched::text, true);
  EXECUTE q INTO r;
  PERFORM set_config('cuckoo.batched_probe', 'on', true);
  RETURN r;
END $$;
CREATE FUNCTION bp_plan(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text; found bool := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    found := found OR line LIKE '%Custom Scan (CuckooProbe)%';
  END LOOP;
  RETURN found;
END $$;
-- bp_explain(query [, analyze]): the plan, with PostgreSQL 13-16's way of
-- printing an InitPlan's output ("InitPlan 1 (returns $0)", "$0") rewritten
-- into 17's ("InitPlan 1", "(InitPlan 1).col1"), and 18's "actual rows=1.00"
-- into "rows=1" (18 also shows buffers unless told not to), and 19's
-- "InitPlan expr_1" into "InitPlan 1", so one expected file fits all.
CREATE FUNCTION bp_explain(q text, with_analyze bool DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (' || CASE WHEN with_analyze THEN 'ANALYZE, BUFFERS OFF, TIMING OFF, SUMMARY OFF, ' ELSE '' END
                      || 'COSTS OFF) ' || q LOOP
    line := regexp_replace(line, 'InitPlan ([0-9]+) \(returns \$[0-9]+\)', 'InitPlan \1');
    line := regexp_replace(line, '\$0\M', '(InitPlan 1).col1', 'g');
    line := regexp_replace(line, 'rows=([0-9]+)\.00 ', 'rows=\1 ', 'g');
    line := regexp_replace(line, 'InitPlan expr_([0-9]+)', 'InitPlan \1', 'g');
    RETURN NEXT line;
  END LOOP;
END $$;
-- bp_compare(query): batched and unbatched results side by side.
CREATE FUNCTION bp_compare(q text, OUT uses_node bool, OUT same bool, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE a text; b text;
BEGIN
  uses_node := bp_plan(q);
  a := bp_run(q, true);
  b := bp_run(q, false);
  same := a IS NOT DISTINCT FROM b;
  result := a;
END $$;

-- Every shape: the ids found, in the scan's order (string_agg without ORDER
-- BY sees the rows as the scan returns them).
SELECT name, c.uses_node, c.same, split_part(c.result, ' ', 1) AS found
FROM bp_filters, LATERAL bp_compare(format($q$
  SELECT count(*) || ' ' || md5(string_agg(id::text, ','))
  FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = %L), k)$q$, name)) c
WHERE name <> 'text' ORDER BY name;
-- No false negatives: every non-null multiple of 3 passes (the full filter
-- holds only the first ones added).
SELECT name, count(*) FILTER (WHERE k % 3 = 0 AND NOT found AND (name <> 'b2 f8 full' OR k <= 3 * (cuckoo_info(f)).items)) AS false_negatives
FROM bp_filters, LATERAL (SELECT k, cuckoo_contains(f, k) AS found FROM bp_keys) s
WHERE name NOT IN ('text', 'empty', 'null') GROUP BY name ORDER BY name;
SELECT * FROM bp_compare($q$SELECT count(*) FROM bp_keys WHERE k % 3 = 0 AND cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k)$q$);

-- Text keys; the operator form; a key expression; other quals before and
-- after the probe (each row meets them in the same order).
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'text'), t)$q$);
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) FROM bp_keys WHERE (SELECT f FROM bp_filters WHERE name = 'b4 f12') @> k$q$);
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k * 2 + 1)$q$);
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) FROM bp_keys WHERE id % 2 = 0 AND cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b8 f8'), k) AND length(t) > 4$q$);
-- Rows returned whole, with a projection.
SELECT * FROM bp_compare($q$SELECT string_agg(format('%s:%s:%s', id, k * 10, t), ',') FROM (SELECT * FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) LIMIT 20) s$q$);

-- Batch sizes, from one row to more than the table.
SET cuckoo.batched_probe_size = 1;
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k)$q$);
SET cuckoo.batched_probe_size = 7;
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k)$q$);
SET cuckoo.batched_probe_size = 8192;
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k)$q$);
RESET cuckoo.batched_probe_size;

-- NULLs: a NULL filter passes no row; NULL keys never pass; with only NULL
-- keys a filter of another type is not even looked at.
SELECT * FROM bp_compare($q$SELECT count(*) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'null'), k)$q$);
-- (A probe inside an OR is not batched.)
SELECT * FROM bp_compare($q$SELECT count(*) FROM bp_keys WHERE k IS NULL OR cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k)$q$);
SELECT * FROM bp_compare($q$SELECT count(*) FROM bp_keys WHERE t IS NULL AND cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), t)$q$);
SELECT * FROM bp_compare($q$SELECT count(*) FROM bp_keys WHERE id < 0 AND cuckoo_contains((SELECT f FROM bp_filters), k)$q$);

-- Errors are the unbatched path's: a filter of another type, an InitPlan of
-- more than one row.
SET cuckoo.batched_probe = on;
SELECT count(*) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), t);
SELECT count(*) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters), k);
SET cuckoo.batched_probe = off;
SELECT count(*) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), t);
SELECT count(*) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters), k);
RESET cuckoo.batched_probe;

-- Parameters: a prepared statement's generic plan shows the node.
SELECT f AS f12 FROM bp_filters WHERE name = 'b4 f12' \gset
SELECT f AS f8full FROM bp_filters WHERE name = 'b2 f8 full' \gset
-- bp_long(t): an expensive qual (plpgsql functions cost 100 operators), so
-- the planner orders it after the probe: the node evaluates it.
CREATE FUNCTION bp_long(t text) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN length(t) > 4; END $$;
PREPARE bp_q(cuckoofilter) AS
  SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) AS r FROM bp_keys WHERE cuckoo_contains($1, k);
PREPARE bp_qk(cuckoofilter, bigint) AS
  SELECT count(*) || ' ' || md5(string_agg(id::text, ',')) AS r FROM bp_keys WHERE id % 2 = 0 AND cuckoo_contains($1, k + $2) AND bp_long(t);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE bp_q(NULL);
EXPLAIN (COSTS OFF) EXECUTE bp_qk(NULL, 0);
EXECUTE bp_q(:'f12') \gset gen_
EXECUTE bp_q(:'f8full') \gset genfull_
EXECUTE bp_qk(:'f12', 1) \gset genk_
EXECUTE bp_q(NULL);
SET plan_cache_mode = force_custom_plan;
EXECUTE bp_q(:'f12') \gset cust_
SELECT :'gen_r' = bp_run(format('SELECT count(*) || %L || md5(string_agg(id::text, %L)) FROM bp_keys WHERE cuckoo_contains(%L::cuckoofilter, k)', ' ', ',', :'f12'), false) AS generic_same,
       :'genfull_r' = bp_run(format('SELECT count(*) || %L || md5(string_agg(id::text, %L)) FROM bp_keys WHERE cuckoo_contains(%L::cuckoofilter, k)', ' ', ',', :'f8full'), false) AS generic_full_same,
       :'genk_r' = bp_run(format('SELECT count(*) || %L || md5(string_agg(id::text, %L)) FROM bp_keys WHERE id %% 2 = 0 AND cuckoo_contains(%L::cuckoofilter, k + 1) AND bp_long(t)', ' ', ',', :'f12'), false) AS generic_key_param_same,
       :'cust_r' = :'gen_r' AS custom_same;
RESET plan_cache_mode;
DEALLOCATE bp_q;
DEALLOCATE bp_qk;

-- Index scans keep their order (no Sort above the node).
SET enable_seqscan = off; SET enable_bitmapscan = off;
PREPARE bp_qi(cuckoofilter) AS SELECT id FROM bp_keys WHERE cuckoo_contains($1, k) ORDER BY id LIMIT 8;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE bp_qi(NULL);
EXECUTE bp_qi(:'f12');
RESET plan_cache_mode;
DEALLOCATE bp_qi;
SELECT * FROM bp_compare($q$SELECT string_agg(id::text, ',') FROM (SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b8 f16'), k) ORDER BY id LIMIT 50) s$q$);
RESET enable_seqscan; RESET enable_bitmapscan;

-- Joins and rescans.  The filter from the outer side: a correlated subquery
-- runs the node again for each filter, with the parameter changed.
SELECT * FROM bp_compare($q$SELECT string_agg(name || '=' || (SELECT count(*) FROM bp_keys WHERE cuckoo_contains(fl.f, k)), ',' ORDER BY name) FROM bp_filters fl WHERE name <> 'text'$q$);
-- The key from the outer side (a parameter of the key expression).
SELECT * FROM bp_compare($q$SELECT string_agg(o || '=' || (SELECT count(*) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b2 f16'), k + o)), ',' ORDER BY o) FROM generate_series(0, 5) o$q$);
-- A filter column of the scanned table is not batched (it changes per row).
SELECT * FROM bp_compare($q$SELECT string_agg(o || '=' || (SELECT count(*) FROM (SELECT f FROM bp_filters WHERE name <> 'text' OFFSET 0) s WHERE cuckoo_contains(f, o)), ',' ORDER BY o) FROM generate_series(1, 9) o$q$);
-- A nested loop rescanning the node without parameters, and a hash join above it.
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(a.id || '/' || b.id, ',')) FROM (SELECT id FROM bp_keys WHERE id <= 5) a, bp_keys b WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), b.k) AND b.id % 1000 = a.id$q$);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;
SELECT * FROM bp_compare($q$SELECT count(*) FROM bp_keys a JOIN bp_keys b ON a.k = b.id WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), a.k + 1)$q$);

-- Data changes through the node.
CREATE TABLE bp_copy AS SELECT * FROM bp_keys;
DELETE FROM bp_copy WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k);
SELECT count(*) AS kept, count(*) FILTER (WHERE k % 3 = 0) AS multiples_of_3_kept FROM bp_copy;
SELECT bp_plan($q$DELETE FROM bp_copy WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k)$q$) AS delete_uses_node;

-- Parallel plans: each worker runs the node over its part of the scan.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
PREPARE bp_qp(cuckoofilter) AS SELECT count(*) FROM bp_keys WHERE cuckoo_contains($1, k);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE bp_qp(NULL);
RESET plan_cache_mode;
DEALLOCATE bp_qp;
SELECT name, c.uses_node, c.same, c.result
FROM bp_filters, LATERAL bp_compare(format($q$
  SELECT count(*) || ' ' || md5(string_agg(id::text, ',' ORDER BY id))
  FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = %L), k)$q$, name)) c
WHERE name IN ('b4 f12', 'b4 f13 semi-sorted', 'b8 f16', 'b2 f8 full') ORDER BY name;
-- The whole query in a worker (force_parallel_mode, called
-- debug_parallel_query from PostgreSQL 16).
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS forced;
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(id::text, ',' ORDER BY id)) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f13 semi-sorted'), k)$q$);
SELECT * FROM bp_compare($q$SELECT string_agg(name || '=' || (SELECT count(*) FROM bp_keys WHERE cuckoo_contains(fl.f, k)), ',' ORDER BY name) FROM bp_filters fl WHERE name <> 'text'$q$);
RESET ALL;

-- Turned off, the plan has no node.
SET cuckoo.batched_probe = off;
PREPARE bp_qo(cuckoofilter) AS SELECT count(*) FROM bp_keys WHERE cuckoo_contains($1, k);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE bp_qo(NULL);
DEALLOCATE bp_qo;
RESET ALL;

-- Cancel: a query that would run for seconds stops at statement_timeout.
SET max_parallel_workers_per_gather = 0;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT id FROM bp_keys WHERE id <= 3000) a, bp_keys b
WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), b.k) AND a.id + b.id < 0;
RESET ALL;

-- WHERE CURRENT OF a cursor over the node changes the row the cursor is on:
-- the node stands for the table's scan (execCurrentOf does not look below a
-- custom scan), in each partition, and a partition the cursor has left is on
-- no row.  The same statements with the setting on and off.
CREATE TABLE bp_cur (id int, k bigint, t text) PARTITION BY RANGE (id);
CREATE TABLE bp_cur1 PARTITION OF bp_cur FOR VALUES FROM (0) TO (50);
CREATE TABLE bp_cur2 PARTITION OF bp_cur FOR VALUES FROM (50) TO (100);
CREATE FUNCTION bp_cursor(batched bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text := ''; i int;
BEGIN
  TRUNCATE bp_cur;
  INSERT INTO bp_cur SELECT id, id, 'v' FROM generate_series(1, 99) id;
  PERFORM set_config('cuckoo.batched_probe', batched::text, true);
  DECLARE bp_c CURSOR FOR SELECT id FROM bp_cur
    WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k);
  BEGIN
    OPEN bp_c;
    FETCH bp_c INTO i; FETCH bp_c INTO i;
    r := r || 'on ' || i;
    UPDATE bp_cur SET t = 'first' WHERE CURRENT OF bp_c;
    FOR j IN 1..16 LOOP FETCH bp_c INTO i; END LOOP;
    r := r || ', on ' || i;
    UPDATE bp_cur SET t = 'second' WHERE CURRENT OF bp_c;
    FETCH bp_c INTO i; FETCH bp_c INTO i;
    DELETE FROM bp_cur WHERE CURRENT OF bp_c;
    r := r || ', deleted ' || i;
    CLOSE bp_c;
  END;
  PERFORM set_config('cuckoo.batched_probe', 'on', true);
  RETURN r || '; changed: ' || (SELECT string_agg(id || '=' || t, ',' ORDER BY id) FROM bp_cur WHERE t <> 'v')
    || '; rows: ' || (SELECT count(*) FROM bp_cur);
END $$;
SELECT bp_plan($q$SELECT id FROM bp_cur WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k)$q$) AS cursor_query_uses_node;
SELECT bp_cursor(true) AS batched, bp_cursor(false) AS unbatched;
SELECT bp_cursor(true) = bp_cursor(false) AS same;
-- At the end of the scan the cursor is on no row.
BEGIN;
DECLARE bp_c CURSOR FOR SELECT id FROM bp_cur WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k);
MOVE FORWARD ALL IN bp_c;
UPDATE bp_cur SET t = 'none' WHERE CURRENT OF bp_c;
ROLLBACK;

-- Wide rows: a batch holds at most about work_mem of row values (here whole
-- rows of 400 kB, detoasted by the scan's projection), however many rows the
-- batch size allows, so a LIMIT 1 reads 3 rows, not 16; the same results.
CREATE TABLE bp_wide (id int, w text);
ALTER TABLE bp_wide ALTER w SET STORAGE EXTERNAL;
INSERT INTO bp_wide SELECT id, repeat(md5(id::text), 12800) FROM generate_series(1, 40) id;
CREATE TABLE bp_wide_f AS SELECT cuckoo_agg(id) AS f FROM bp_wide;
SET work_mem = '1MB';
SET cuckoo.batched_probe_size = 8192;
SELECT bp_explain($q$SELECT length(r::text) FROM bp_wide r WHERE cuckoo_contains((SELECT f FROM bp_wide_f), id) LIMIT 1$q$, true);
SELECT * FROM bp_compare($q$SELECT count(*) || ' ' || md5(string_agg(md5(r::text), ',')) FROM bp_wide r WHERE cuckoo_contains((SELECT f FROM bp_wide_f), id)$q$);
RESET work_mem;
RESET cuckoo.batched_probe_size;

-- Under a LIMIT (or in a cursor, or an EXISTS subquery) the rows read ahead
-- may never be asked for: there the node does not read ahead (a batch of
-- one row) when evaluating the key or the quals left in the scan could
-- raise an error (a function that is not leakproof takes a column), so a
-- query that succeeds with the setting off succeeds with it on.  The key
-- below divides by zero at the scan's second row (every other row's key is
-- 3, in the filter); bp_check, cheaper than the probe and so left in the
-- scan, raises an error at the third row.
SELECT k AS k2 FROM bp_keys OFFSET 1 LIMIT 1 \gset
SELECT k AS k3 FROM bp_keys OFFSET 2 LIMIT 1 \gset
CREATE FUNCTION bp_check(k bigint, bad bigint) RETURNS bool LANGUAGE plpgsql IMMUTABLE COST 0.5 AS $$
BEGIN IF k = bad THEN RAISE EXCEPTION 'bp_check reached %', k; END IF; RETURN true; END $$;
SELECT * FROM bp_compare(format($q$SELECT string_agg(id::text, ',') FROM (SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), 3 + 0 / (k - %s)) LIMIT 1) s$q$, :k2));
SELECT * FROM bp_compare(format($q$SELECT string_agg(id::text, ',') FROM (SELECT id FROM bp_keys WHERE bp_check(k, %s) AND cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) LIMIT 1) s$q$, :k3));
SELECT bp_explain($q$SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k + 0 / (k - 5)) LIMIT 1$q$);
-- A column as key, leakproof quals before the probe: read ahead.
SELECT bp_explain($q$SELECT id FROM bp_keys WHERE k > 5 AND cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) LIMIT 1$q$);
-- Without a LIMIT every row is read anyway: read ahead.  So it is under a
-- LIMIT over an aggregate or a full sort of the only relation.
SELECT bp_explain($q$SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k + 0 / (k - 5))$q$);
SELECT bp_explain($q$SELECT count(*) FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k + 0 / (k - 5)) LIMIT 1$q$);
SELECT bp_explain($q$SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k + 0 / (k - 5)) ORDER BY t LIMIT 1$q$);
-- An index scan in the query's order under a LIMIT stops early: one row.
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT bp_explain($q$SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k + 0 / (k - 5)) ORDER BY id LIMIT 1$q$);
RESET enable_seqscan; RESET enable_bitmapscan;

-- Cursors going backward: the node supports backward scans when the scan
-- below does (no Materialize over it), moving the scan back onto the row it
-- returned last when the cursor turns.  bp_scroll(query, batched) walks a
-- scroll cursor both ways across batches, past both ends, and to absolute
-- and relative positions, listing the rows it was on.
CREATE FUNCTION bp_scroll(q text, batched bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE c refcursor; i int; r text := ''; n int := 0;
BEGIN
  PERFORM set_config('cuckoo.batched_probe', batched::text, true);
  OPEN c SCROLL FOR EXECUTE q;
  FOR s IN 1..20 LOOP FETCH NEXT FROM c INTO i; r := r || coalesce(i::text, '-') || ','; END LOOP;
  FOR s IN 1..5 LOOP FETCH PRIOR FROM c INTO i; r := r || coalesce(i::text, '-') || ','; END LOOP;
  FOR s IN 1..300 LOOP FETCH NEXT FROM c INTO i; r := r || coalesce(i::text, '-') || ','; END LOOP;
  FOR s IN 1..320 LOOP FETCH PRIOR FROM c INTO i; r := r || coalesce(i::text, '-') || ','; END LOOP;
  FOR s IN 1..3 LOOP FETCH NEXT FROM c INTO i; r := r || coalesce(i::text, '-') || ','; END LOOP;
  FETCH LAST FROM c INTO i; r := r || coalesce(i::text, '-') || ',';
  FOR s IN 1..3 LOOP FETCH NEXT FROM c INTO i; r := r || coalesce(i::text, '-') || ','; END LOOP;
  FOR s IN 1..40 LOOP FETCH PRIOR FROM c INTO i; r := r || coalesce(i::text, '-') || ','; END LOOP;
  FETCH ABSOLUTE 100 FROM c INTO i; r := r || coalesce(i::text, '-') || ',';
  FETCH RELATIVE -50 FROM c INTO i; r := r || coalesce(i::text, '-') || ',';
  FETCH RELATIVE 700 FROM c INTO i; r := r || coalesce(i::text, '-') || ',';
  MOVE BACKWARD 30 FROM c; FETCH NEXT FROM c INTO i; r := r || coalesce(i::text, '-') || ',';
  FETCH FIRST FROM c INTO i; r := r || coalesce(i::text, '-') || ',';
  FETCH PRIOR FROM c INTO i; r := r || coalesce(i::text, '-') || ',';
  FETCH NEXT FROM c INTO i; r := r || coalesce(i::text, '-');
  CLOSE c;
  PERFORM set_config('cuckoo.batched_probe', 'on', true);
  RETURN (length(r) - length(replace(r, ',', '')) + 1) || ' fetches ' || md5(r);
END $$;
SELECT bp_explain($q$DECLARE bp_s SCROLL CURSOR FOR SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) AND id % 5 <> 0$q$);
SELECT b AS batched, b = bp_scroll(q, false) AS same FROM (VALUES
  ($q$SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) AND id % 5 <> 0$q$)) v(q),
  LATERAL bp_scroll(q, true) b;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT bp_explain($q$DECLARE bp_s SCROLL CURSOR FOR SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) AND id > 500 ORDER BY id$q$);
SELECT b AS batched, b = bp_scroll(q, false) AS same FROM (VALUES
  ($q$SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) AND id > 500 ORDER BY id$q$)) v(q),
  LATERAL bp_scroll(q, true) b;
RESET enable_seqscan; RESET enable_bitmapscan;
-- Over a bitmap scan (no backward scans) a scroll cursor gets a Materialize.
SET enable_seqscan = off; SET enable_indexscan = off;
SELECT bp_explain($q$DECLARE bp_s SCROLL CURSOR FOR SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) AND id > 500$q$);
RESET enable_seqscan; RESET enable_indexscan;
-- A cursor declared without SCROLL goes backward as over the bare scan.
BEGIN;
DECLARE bp_c CURSOR FOR SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) AND id % 5 <> 0;
FETCH 3 FROM bp_c;
FETCH BACKWARD 2 FROM bp_c;
ROLLBACK;
SET cuckoo.batched_probe = off;
BEGIN;
DECLARE bp_c CURSOR FOR SELECT id FROM bp_keys WHERE cuckoo_contains((SELECT f FROM bp_filters WHERE name = 'b4 f12'), k) AND id % 5 <> 0;
FETCH 3 FROM bp_c;
FETCH BACKWARD 2 FROM bp_c;
ROLLBACK;
RESET cuckoo.batched_probe;

DROP TABLE bp_keys, bp_filters, bp_copy, bp_cur, bp_wide, bp_wide_f;
DROP FUNCTION bp_run(text, bool), bp_plan(text), bp_compare(text), bp_long(text), bp_cursor(bool), bp_scroll(text, bool), bp_check(bigint, bigint);
