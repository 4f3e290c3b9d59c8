-- Stored filters (cuckoo_store_*, extension 1.3): a filter kept as a table of
-- small segments.  Every function with NULLs, errors (with their SQLSTATEs),
-- rollbacks and savepoints, privileges of a second role, the routing of
-- docs/FORMAT.md section 14 recomputed independently, and growth past the
-- capacity.

-- state(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION state(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;

CREATE SCHEMA st;

-- cuckoo_store_create: a table in the schema the name gives, owned by the
-- caller, one header row and ceil(capacity / n) segment rows
SELECT cuckoo_store_create('st.s', 10000);
SELECT pg_typeof(cuckoo_store_create('st."Mixed Case"', 1));
SELECT c.relname, c.relkind, pg_get_userbyid(c.relowner) = current_user AS mine, c.reloptions
FROM pg_class c WHERE c.relnamespace = 'st'::regnamespace AND c.relkind = 'r' ORDER BY 1;
SELECT attname, format_type(atttypid, atttypmod), attnotnull, attstorage
FROM pg_attribute WHERE attrelid = 'st.s'::regclass AND attnum > 0 ORDER BY attnum;
SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'st.s'::regclass;
SELECT segment, fpr, capacity, segments, (cuckoo_info(f)).items,
       (cuckoo_info(f)).format_version, (cuckoo_info(f)).expansion,
       pg_column_size(f) <= 1200 AS small, octet_length(bytes) = pg_column_size(f) - 4 AS one_chunk
FROM st.s JOIN cuckoo_store_segments('st.s') USING (segment)
WHERE chunk = 0 AND segment IN (-1, 0, 12) ORDER BY segment;
SELECT count(*) AS rows, min(segment), max(segment) FROM st.s;
SELECT * FROM cuckoo_store_info('st.s');
-- without a schema: the first schema of search_path
SET search_path = st, public;
SELECT cuckoo_store_create('t', 100, 0.001);
RESET search_path;
SELECT * FROM cuckoo_store_info('st.t');
-- bad arguments
SELECT state($$SELECT cuckoo_store_create('st.x', 0)$$);
SELECT state($$SELECT cuckoo_store_create('st.x', 100, 0)$$);
SELECT state($$SELECT cuckoo_store_create('st.x', 100, 1.5)$$);
SELECT state($$SELECT cuckoo_store_create('st.s', 100)$$);
SELECT state($$SELECT cuckoo_store_create('no_such_schema.x', 100)$$);
SELECT cuckoo_store_create(NULL, 100), cuckoo_store_create('st.x', NULL);
SELECT to_regclass('st.x');

-- one value at a time
SELECT cuckoo_store_add('st.s', 42);
SELECT cuckoo_store_contains('st.s', 42), cuckoo_store_contains('st.s', 43);
SELECT cuckoo_store_add_if_absent('st.s', 42) AS again, cuckoo_store_add_if_absent('st.s', 44) AS new;
SELECT cuckoo_store_remove('st.s', 42);
SELECT cuckoo_store_remove('st.s', 42);
SELECT cuckoo_store_contains('st.s', 42), cuckoo_store_contains('st.s', 44);
-- duplicates as for a filter: added twice, stored twice
SELECT cuckoo_store_add('st.s', 7), cuckoo_store_add('st.s', 7);
SELECT cuckoo_store_remove('st.s', 7);
SELECT cuckoo_store_contains('st.s', 7);
SELECT cuckoo_store_remove('st.s', 7);
SELECT cuckoo_store_contains('st.s', 7);
-- integer family: int2, int4 and int8 are one key
SELECT cuckoo_store_add('st.s', 1000000000000::int8);
SELECT cuckoo_store_contains('st.s', 44::int2), cuckoo_store_contains('st.s', 44::int8),
       cuckoo_store_contains('st.s', 1000000000000);
-- exactly one segment row changed per change, and only the value's
SELECT count(*) FROM cuckoo_store_segments('st.s') WHERE segment >= 0 AND (cuckoo_info(f)).items > 0;
SELECT items, value_type FROM cuckoo_store_info('st.s');

-- NULLs: a NULL value changes nothing and gives NULL, as does a NULL store
SELECT cuckoo_store_add('st.s', NULL::int) IS NULL AS add,
       cuckoo_store_add_if_absent('st.s', NULL::int) IS NULL AS add_if_absent,
       cuckoo_store_remove('st.s', NULL::int) IS NULL AS remove,
       cuckoo_store_contains('st.s', NULL::int) IS NULL AS contains,
       cuckoo_store_contains(NULL, 1) IS NULL AS null_store,
       cuckoo_store_add_array('st.s', NULL::int[]) IS NULL AS add_array,
       cuckoo_store_contains_array('st.s', NULL::int[]) IS NULL AS contains_array;
SELECT items FROM cuckoo_store_info('st.s');
SELECT cuckoo_store_info(NULL) IS NULL;

-- arrays: NULL elements skipped (and answered NULL), each segment once
SELECT cuckoo_store_add_array('st.s', ARRAY[1, 2, 3, NULL, 3]);
SELECT cuckoo_store_contains_array('st.s', ARRAY[1, 2, 3, NULL, 5]);
SELECT cuckoo_store_contains_array('st.s', ARRAY[[1, 2], [3, 5]]);
SELECT cuckoo_store_contains_array('st.s', '{}'::int[]);
SELECT cuckoo_store_contains_array('st.s', '[3:4]={1,5}'::int[]);
SELECT cuckoo_store_add_if_absent_array('st.s', ARRAY[1, 2, 8, 8, NULL, 9]);
SELECT cuckoo_store_remove_array('st.s', ARRAY[1, 2, 3, 3, 3, 8, 8, 9, NULL]);
SELECT cuckoo_store_contains_array('st.s', ARRAY[1, 2, 3, 8, 9]);
SELECT cuckoo_store_add_array('st.s', '{}'::int[]), cuckoo_store_remove_array('st.s', '{}'::int[]);
-- a thousand values in one call, all found, by one value and by the array form
SELECT cuckoo_store_add_array('st.s', ARRAY(SELECT generate_series(1001, 2000)));
SELECT count(*) FROM generate_series(1001, 2000) v WHERE NOT cuckoo_store_contains('st.s', v);
SELECT array_position(cuckoo_store_contains_array('st.s', ARRAY(SELECT generate_series(1001, 2000))), false);
SELECT cuckoo_store_remove_array('st.s', ARRAY(SELECT generate_series(1001, 2000)));
SELECT items FROM cuckoo_store_info('st.s');

-- the value type: recorded by the first change, 42804 for another family
SELECT state($$SELECT cuckoo_store_add('st.s', 'text'::text)$$);
SELECT state($$SELECT cuckoo_store_contains('st.s', 'text'::text)$$);
SELECT state($$SELECT cuckoo_store_remove('st.s', 1.5)$$);
SELECT state($$SELECT cuckoo_store_add_array('st.s', ARRAY['a', 'b'])$$);
SELECT state($$SELECT cuckoo_store_contains_array('st.s', ARRAY[now()])$$);
-- a new store takes its type from the first value; a text store
SELECT cuckoo_store_add('st.t', 'apple');
SELECT cuckoo_store_add_array('st.t', ARRAY['pear', 'plum']::varchar[]);
SELECT cuckoo_store_contains_array('st.t', ARRAY['apple', 'pear', 'plum', 'fig']);
SELECT state($$SELECT cuckoo_store_add('st.t', 1)$$);
SELECT value_type, items FROM cuckoo_store_info('st.t');
-- before any value, a probe of any type answers false
SELECT cuckoo_store_contains('st."Mixed Case"', 1), cuckoo_store_contains('st."Mixed Case"', 'x'::text),
       cuckoo_store_remove('st."Mixed Case"', 1);
SELECT value_type FROM cuckoo_store_info('st."Mixed Case"');

-- a relation that is not a store: 42809 or 22023, naming it
CREATE TABLE st.plain (segment int, f cuckoofilter);
CREATE TABLE st.nohead (segment int4 PRIMARY KEY, f cuckoofilter NOT NULL, fpr float8,
                        capacity int8, segments int4);
CREATE VIEW st.v AS SELECT * FROM st.s;
SELECT state($$SELECT cuckoo_store_contains('pg_class', 1)$$);
SELECT state($$SELECT cuckoo_store_add('st.plain', 1)$$);
SELECT state($$SELECT cuckoo_store_contains('st.v', 1)$$);
SELECT state($$SELECT cuckoo_store_info('st.nohead')$$);
SELECT state($$SELECT cuckoo_store_add('st.nohead', 1)$$);
SELECT state($$SELECT cuckoo_store_contains(2147483000::oid::regclass, 1)$$);

-- damaged stores: a missing segment row, a damaged header row, a segment of
-- another type, each a clear error and never a wrong answer
CREATE TEMP TABLE hold AS SELECT * FROM st.t;
DELETE FROM st.t WHERE segment = 0;
SELECT state($$SELECT cuckoo_store_contains('st.t', 'apple')$$);
SELECT state($$SELECT cuckoo_store_info('st.t')$$);
INSERT INTO st.t SELECT * FROM hold WHERE segment = 0;
UPDATE st.t SET segments = NULL WHERE segment = -1;
SELECT state($$SELECT cuckoo_store_contains('st.t', 'apple')$$);
UPDATE st.t SET segments = 1 WHERE segment = -1;
UPDATE st.t SET bytes = cuckoo_add(cuckoo_create(10, expansion => 2), 1)::bytea WHERE segment = 0;
SELECT state($$SELECT cuckoo_store_contains('st.t', 'apple')$$);
SELECT state($$SELECT cuckoo_store_add('st.t', 'apple')$$);
SELECT state($$SELECT cuckoo_store_remove_array('st.t', ARRAY['apple'])$$);
UPDATE st.t SET bytes = (SELECT bytes FROM hold WHERE segment = 0) WHERE segment = 0;
SELECT cuckoo_store_contains('st.t', 'apple');

-- transactions: every change is a row update
BEGIN;
SELECT cuckoo_store_add('st.s', 500);
SELECT cuckoo_store_contains('st.s', 500);
ROLLBACK;
SELECT cuckoo_store_contains('st.s', 500);
BEGIN;
SELECT cuckoo_store_add('st.s', 501);
SAVEPOINT a;
SELECT cuckoo_store_add('st.s', 502);
SELECT cuckoo_store_remove('st.s', 44);
SELECT cuckoo_store_contains_array('st.s', ARRAY[501, 502, 44]);
ROLLBACK TO a;
SELECT cuckoo_store_contains_array('st.s', ARRAY[501, 502, 44]);
SAVEPOINT b;
SELECT cuckoo_store_add_array('st.s', ARRAY[503, 504]);
RELEASE b;
COMMIT;
SELECT cuckoo_store_contains_array('st.s', ARRAY[501, 502, 44, 503, 504]);
-- an error inside a savepoint leaves the store as it was
BEGIN;
SAVEPOINT c;
SELECT cuckoo_store_add_array('st.s', ARRAY[505]);
SELECT cuckoo_store_add('st.s', 'x'::text);
ROLLBACK TO c;
SELECT cuckoo_store_contains('st.s', 505);
COMMIT;
-- the first value's type is rolled back with it
BEGIN;
SELECT cuckoo_store_add('st."Mixed Case"', 1);
SELECT value_type FROM cuckoo_store_info('st."Mixed Case"');
ROLLBACK;
SELECT value_type FROM cuckoo_store_info('st."Mixed Case"');
SELECT cuckoo_store_add('st."Mixed Case"', 'now text');
SELECT value_type, items FROM cuckoo_store_info('st."Mixed Case"');

-- a renamed store keeps working (its statements are prepared again)
ALTER TABLE st.t RENAME TO t2;
SELECT cuckoo_store_contains('st.t2', 'apple'), cuckoo_store_add_if_absent('st.t2', 'kiwi');
ALTER TABLE st.t2 SET SCHEMA public;
SELECT cuckoo_store_contains('public.t2', 'kiwi');
DROP TABLE public.t2;

-- privileges: SELECT to probe, SELECT and UPDATE to change, as plain SQL
CREATE ROLE regress_store_user;
GRANT USAGE ON SCHEMA st TO regress_store_user;
SET ROLE regress_store_user;
SELECT state($$SELECT cuckoo_store_contains('st.s', 44)$$);
SELECT state($$SELECT cuckoo_store_info('st.s')$$);
SELECT state($$SELECT cuckoo_store_add('st.s', 1)$$);
SELECT state($$SELECT cuckoo_store_create('st.mine', 10)$$);
RESET ROLE;
GRANT SELECT ON st.s TO regress_store_user;
SET ROLE regress_store_user;
SELECT cuckoo_store_contains('st.s', 44), cuckoo_store_contains_array('st.s', ARRAY[44, 45]);
SELECT state($$SELECT cuckoo_store_add('st.s', 1)$$);
SELECT state($$SELECT cuckoo_store_remove_array('st.s', ARRAY[44])$$);
SELECT state($$UPDATE st.s SET bytes = bytes WHERE segment = 0$$);
RESET ROLE;
GRANT UPDATE ON st.s TO regress_store_user;
SET ROLE regress_store_user;
SELECT cuckoo_store_add_if_absent('st.s', 600), cuckoo_store_remove('st.s', 600);
RESET ROLE;
REVOKE SELECT ON st.s FROM regress_store_user;
SET ROLE regress_store_user;
SELECT state($$SELECT cuckoo_store_add('st.s', 1)$$);
RESET ROLE;
-- a store a role creates is its own
GRANT CREATE ON SCHEMA st TO regress_store_user;
SET ROLE regress_store_user;
SELECT cuckoo_store_create('st.mine', 10);
SELECT cuckoo_store_add('st.mine', 1);
SELECT cuckoo_store_contains('st.mine', 1);
RESET ROLE;
SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'st.mine'::regclass;
DROP TABLE st.mine;
REVOKE ALL ON SCHEMA st FROM regress_store_user;
REVOKE ALL ON st.s FROM regress_store_user;
DROP ROLE regress_store_user;

-- routing (docs/FORMAT.md section 14), recomputed here from cuckoo_hash
-- with numeric and bit(64) arithmetic: every value is in the segment the
-- specification names, and a probe of another segment finds it only as a
-- false positive.
CREATE FUNCTION u64(b bit(64)) RETURNS numeric LANGUAGE sql IMMUTABLE AS
  $$ SELECT b::bigint::numeric + CASE WHEN b::bigint < 0 THEN 18446744073709551616 ELSE 0 END $$;
CREATE FUNCTION b64(n numeric) RETURNS bit(64) LANGUAGE sql IMMUTABLE AS
  $$ SELECT (CASE WHEN n >= 9223372036854775808 THEN n - 18446744073709551616 ELSE n END)::bigint::bit(64) $$;
CREATE FUNCTION mulmod(b bit(64), k numeric) RETURNS bit(64) LANGUAGE sql IMMUTABLE AS
  $$ SELECT b64(mod(u64(b) * k, 18446744073709551616)) $$;
CREATE FUNCTION route(h bigint, s int) RETURNS int LANGUAGE sql IMMUTABLE AS $$
  SELECT floor(u64(x) / 4294967296 * s / 4294967296)::int
  FROM (SELECT x3 # (x3 >> 33) AS x
        FROM (SELECT mulmod(x2 # (x2 >> 33), 14181476777654086739) AS x3
              FROM (SELECT mulmod(x1 # (x1 >> 33), 18397679294719823053) AS x2
                    FROM (SELECT h::bit(64) AS x1) a) b) c) d $$;
-- 0xFF51AFD7ED558CCD = 18397679294719823053, 0xC4CEB9FE1A85EC53 = 14181476777654086739
SELECT cuckoo_store_add_array('st.s', ARRAY(SELECT generate_series(3001, 4000)));
SELECT segments AS nseg FROM cuckoo_store_info('st.s') \gset
CREATE TEMP TABLE segs AS SELECT * FROM cuckoo_store_segments('st.s');
-- (route() in numeric arithmetic is slow: once per value)
CREATE TEMP TABLE routed AS SELECT v, route(cuckoo_hash(v), :nseg) AS seg FROM generate_series(3001, 4000) v;
SELECT count(*) AS values,
       count(*) FILTER (WHERE (SELECT cuckoo_contains(f, v) FROM segs
                               WHERE segment = r.seg)) AS in_routed_segment,
       count(DISTINCT r.seg) = :nseg AS every_segment_used
FROM routed r;
-- (each of the other segments answers like an absent key's probe: at most
-- the target rate, 0.01)
SELECT count(*) FILTER (WHERE cuckoo_contains(s.f, r.v)) < 0.01 * count(*) AS few_elsewhere
FROM routed r JOIN segs s ON s.segment >= 0 AND s.segment <> r.seg;
SELECT route(cuckoo_hash(42::int8), 1024) AS segment_of_42_in_1024;

-- growth: a store for 1,000 values takes 100 times that, every value found,
-- the measured false-positive rate at or below the target
SELECT cuckoo_store_create('st.g', 1000, 0.01);
SELECT segments FROM cuckoo_store_info('st.g');
SELECT cuckoo_store_add_array('st.g', ARRAY(SELECT generate_series(1, 100000)));
SELECT items, segments, expected_fpr <= fpr AS expected_ok FROM cuckoo_store_info('st.g');
SELECT count(*) FROM unnest(cuckoo_store_contains_array('st.g', ARRAY(SELECT generate_series(1, 100000)))) a WHERE NOT a;
SELECT count(*) FILTER (WHERE a)::float8 / count(*) <= 0.01 AS fpr_ok
FROM unnest(cuckoo_store_contains_array('st.g', ARRAY(SELECT generate_series(1000001, 1200000)))) a;
SELECT cuckoo_store_remove_array('st.g', ARRAY(SELECT generate_series(1, 100000)));
SELECT items FROM cuckoo_store_info('st.g');

-- growth 1,000x from a small capacity: at 1x, 10x, 100x and 1,000x the
-- capacity every value added is found and the rate measured on 100,000
-- absent values is at or below the target
CREATE FUNCTION st.grow(s regclass, cap int, target float8)
RETURNS TABLE (growth int, missing bigint, rate_ok boolean, segments int)
LANGUAGE plpgsql AS $$
DECLARE have int := 0;
BEGIN
  FOREACH growth IN ARRAY ARRAY[1, 10, 100, 1000] LOOP
    PERFORM cuckoo_store_add_array(s, ARRAY(SELECT generate_series(have + 1, cap * growth)));
    have := cap * growth;
    SELECT count(*) INTO missing
    FROM unnest(cuckoo_store_contains_array(s, ARRAY(SELECT generate_series(1, have)))) a WHERE NOT a;
    SELECT count(*) FILTER (WHERE a)::float8 / count(*) <= target INTO rate_ok
    FROM unnest(cuckoo_store_contains_array(s, ARRAY(SELECT generate_series(10000001, 10100000)))) a;
    SELECT i.segments INTO segments FROM cuckoo_store_info(s) i;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT cuckoo_store_create('st.k', 100, 0.01), cuckoo_store_create('st.kk', 20, 0.001);
SELECT * FROM st.grow('st.k', 100, 0.01);
SELECT * FROM st.grow('st.kk', 20, 0.001);
SELECT items, expected_fpr <= fpr AS expected_ok FROM cuckoo_store_info('st.k');

-- probes in a scan read each segment once per query (a cache per call site,
-- valid for one snapshot); a loop that changes the store between probes sees
-- every change, and a probe of another type still fails
CREATE TABLE st.keys AS SELECT g::int8 AS k FROM generate_series(3001, 5000) g;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('st.s', k)) AS found FROM st.keys WHERE k <= 4000;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('st.s', k)) < 50 AS few FROM st.keys WHERE k > 4000;
DO $$
DECLARE after_add int := 0; after_remove int := 0;
BEGIN
  FOR i IN 7001 .. 7200 LOOP
    PERFORM cuckoo_store_add('st.s', i);
    IF cuckoo_store_contains('st.s', i) THEN after_add := after_add + 1; END IF;
    PERFORM cuckoo_store_remove('st.s', i);
    IF NOT cuckoo_store_contains('st.s', i) THEN after_remove := after_remove + 1; END IF;
  END LOOP;
  RAISE NOTICE 'of 200: found after add %, gone after remove at least 190 %', after_add, after_remove >= 190;
END $$;
SELECT state($$SELECT count(*) FROM st.keys WHERE cuckoo_store_contains('st.s', k::text)$$);
-- in parallel workers too (each reads the segments it needs)
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('st.s', k)) AS found FROM st.keys WHERE k <= 4000;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- info: items and bytes are the segments' sums
SELECT i.items = (SELECT sum((cuckoo_info(f)).items) FROM cuckoo_store_segments('st.s') WHERE segment >= 0) AS items_ok,
       i.bytes = (SELECT sum(pg_column_size(f)) FROM cuckoo_store_segments('st.s') WHERE segment >= 0) AS bytes_ok,
       i.bytes = (SELECT sum(octet_length(bytes) + CASE WHEN chunk = 0 THEN 4 ELSE 0 END)
                  FROM st.s WHERE segment >= 0) AS bytes_of_chunks
FROM cuckoo_store_info('st.s') i;

DROP SCHEMA st CASCADE;
DROP FUNCTION state(text), route(bigint, int), mulmod(bit(64), numeric), u64(bit(64)), b64(numeric);
