-- Living filters: cuckoo_store_rebuild(store), extension 1.6 (issue 22,
-- docs/DESIGN.md "Living filters", "Rebuild").  A tracked store counts at
-- most two copies of a value (half a pair): a value held by three rows
-- stays after its rows are deleted (sticky).  The rebuild empties every
-- segment and adds the tracked columns' values again, as the first fill of
-- cuckoo_store_track does: the result is byte for byte a store created and
-- tracked afresh.  Also: a grown store's chunk rows, a partitioned table,
-- two tracked columns, direct adds not kept, privileges, pending changes,
-- rollback, savepoints, REPEATABLE READ, NULL, not a store, no tracking.

-- rb_state(sql): 'ok', or the SQLSTATE and message of its error
CREATE FUNCTION rb_state(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;
CREATE SCHEMA rb;
-- rb.differ(a, b): how many segments (the header included) of two stores differ
CREATE FUNCTION rb.differ(a regclass, b regclass) RETURNS bigint LANGUAGE sql AS
  $$ SELECT count(*) FROM cuckoo_store_segments(a) x FULL JOIN cuckoo_store_segments(b) y USING (segment)
     WHERE x.f::bytea IS DISTINCT FROM y.f::bytea $$;

-- sticky values: 1,000 values each held by 3 rows, then 500 of them deleted
SELECT cuckoo_store_create('rb.s', 2000) IS NOT NULL AS created;
CREATE TABLE rb.t (id int8 PRIMARY KEY, k int8);
INSERT INTO rb.t SELECT g, g % 1000 FROM generate_series(1, 3000) g;
SELECT cuckoo_store_track('rb.s', 'rb.t', 'k');
SELECT items FROM cuckoo_store_info('rb.s');
DELETE FROM rb.t WHERE k >= 500;
-- the deleted values stay (two copies each): items unchanged, all found
SELECT items FROM cuckoo_store_info('rb.s');
SELECT count(*) FILTER (WHERE cuckoo_store_contains('rb.s', g::int8)) AS deleted_found
FROM generate_series(500, 999) g;
SELECT cuckoo_store_rebuild('rb.s');
SELECT items FROM cuckoo_store_info('rb.s');
-- the deleted values found only at the fpr (1%: about 5 of 500)
SELECT count(*) FILTER (WHERE cuckoo_store_contains('rb.s', g::int8)) <= 20 AS deleted_found_few
FROM generate_series(500, 999) g;
SELECT missing, rows, items, trackings FROM cuckoo_store_verify('rb.s');
-- what untrack, drop, create and track would give: the same bytes
SELECT cuckoo_store_create('rb.fresh', 2000) IS NOT NULL AS created;
SELECT cuckoo_store_track('rb.fresh', 'rb.t', 'k');
SELECT rb.differ('rb.s', 'rb.fresh') AS segments_differing;
-- a rebuild of an exact store changes nothing
SELECT cuckoo_store_rebuild('rb.s');
SELECT rb.differ('rb.s', 'rb.fresh') AS segments_differing;
-- the store keeps following the table
INSERT INTO rb.t VALUES (5000, 123456);
DELETE FROM rb.t WHERE id <= 10;
SELECT cuckoo_store_contains('rb.s', 123456::int8) AS new_found;
SELECT missing, rows, items FROM cuckoo_store_verify('rb.s');

-- direct adds are not kept
SELECT cuckoo_store_add('rb.s', 777777::int8);
SELECT cuckoo_store_contains('rb.s', 777777::int8) AS direct_before;
SELECT cuckoo_store_rebuild('rb.s');
SELECT cuckoo_store_contains('rb.s', 777777::int8) AS direct_after;

-- a grown store: 20,000 values into a store for 1,000, then all but 500 gone;
-- the rebuild deletes the extra chunk rows
SELECT cuckoo_store_create('rb.g', 1000) IS NOT NULL AS created;
CREATE TABLE rb.gt (id int8 PRIMARY KEY, k int8);
SELECT cuckoo_store_track('rb.g', 'rb.gt', 'k');
INSERT INTO rb.gt SELECT g, g FROM generate_series(1, 20000) g;
SELECT count(*) > 0 AS grown FROM rb.g WHERE chunk > 0;
DELETE FROM rb.gt WHERE id > 500;
SELECT cuckoo_store_rebuild('rb.g');
SELECT count(*) AS extra_chunks FROM rb.g WHERE chunk > 0;
SELECT items, segments FROM cuckoo_store_info('rb.g');
SELECT missing, rows, items FROM cuckoo_store_verify('rb.g');
SELECT cuckoo_store_create('rb.gfresh', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_track('rb.gfresh', 'rb.gt', 'k');
SELECT rb.differ('rb.g', 'rb.gfresh') AS segments_differing;

-- ROLLBACK leaves the store as it was; so does a savepoint rolled back
CREATE TABLE rb.before AS SELECT segment, f::bytea AS b FROM cuckoo_store_segments('rb.s');
INSERT INTO rb.t SELECT g, 900 FROM generate_series(10001, 10003) g;
DELETE FROM rb.t WHERE id > 10000;
SELECT cuckoo_store_contains('rb.s', 900::int8) AS sticky_900;
DROP TABLE rb.before;
CREATE TABLE rb.before AS SELECT segment, f::bytea AS b FROM cuckoo_store_segments('rb.s');
BEGIN;
SELECT cuckoo_store_rebuild('rb.s');
SELECT cuckoo_store_contains('rb.s', 900::int8) AS sticky_900_in;
ROLLBACK;
SELECT count(*) AS segments_changed FROM cuckoo_store_segments('rb.s') x FULL JOIN rb.before y USING (segment)
WHERE x.f::bytea IS DISTINCT FROM y.b;
SELECT cuckoo_store_contains('rb.s', 900::int8) AS sticky_900_after;
BEGIN;
SAVEPOINT a;
SELECT cuckoo_store_rebuild('rb.s');
ROLLBACK TO SAVEPOINT a;
COMMIT;
SELECT count(*) AS segments_changed FROM cuckoo_store_segments('rb.s') x FULL JOIN rb.before y USING (segment)
WHERE x.f::bytea IS DISTINCT FROM y.b;
-- changes after the rebuild in the same transaction are followed
BEGIN;
SELECT cuckoo_store_rebuild('rb.s');
INSERT INTO rb.t VALUES (6000, 654321);
DELETE FROM rb.t WHERE k = 1;
COMMIT;
SELECT cuckoo_store_contains('rb.s', 654321::int8) AS later_insert_found,
       cuckoo_store_contains('rb.s', 900::int8) AS sticky_900_gone_or_fpr;
SELECT missing, rows, items FROM cuckoo_store_verify('rb.s');

-- pending changes of the store in the transaction: refused
BEGIN;
INSERT INTO rb.t VALUES (7000, 1);
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.s')$$);
ROLLBACK;
-- a tracking made in the same transaction has its first fill pending
BEGIN;
SELECT cuckoo_store_create('rb.p', 2000) IS NOT NULL AS created;
SELECT cuckoo_store_track('rb.p', 'rb.t', 'k') > 0 AS tracked;
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.p')$$);
ROLLBACK;
-- changes rolled back to a savepoint are no longer pending
BEGIN;
SAVEPOINT a;
INSERT INTO rb.t VALUES (7000, 1);
ROLLBACK TO SAVEPOINT a;
SELECT cuckoo_store_rebuild('rb.s') > 0 AS rebuilt;
COMMIT;

-- REPEATABLE READ and SERIALIZABLE: refused
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.s')$$);
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.s')$$);
ROLLBACK;

-- a partitioned table (a partition attached later included) and a second
-- tracked column of the same store
SELECT cuckoo_store_create('rb.ps', 4000) IS NOT NULL AS created;
CREATE TABLE rb.pt (id int8, k int8) PARTITION BY RANGE (id);
CREATE TABLE rb.pt1 PARTITION OF rb.pt FOR VALUES FROM (0) TO (2000);
SELECT cuckoo_store_track('rb.ps', 'rb.pt', 'k');
CREATE TABLE rb.pt2 (id int8, k int8);
ALTER TABLE rb.pt ATTACH PARTITION rb.pt2 FOR VALUES FROM (2000) TO (4000);
CREATE TABLE rb.u (id int8 PRIMARY KEY, a int8, b int8);
SELECT cuckoo_store_track('rb.ps', 'rb.u', 'a');
SELECT cuckoo_store_track('rb.ps', 'rb.u', 'b');
INSERT INTO rb.pt SELECT g, g % 300 FROM generate_series(0, 3999) g;
INSERT INTO rb.u SELECT g, 100000 + g % 200, 200000 + g % 200 FROM generate_series(1, 600) g;
DELETE FROM rb.pt WHERE k >= 100;
DELETE FROM rb.u WHERE id % 200 >= 50;
SELECT items FROM cuckoo_store_info('rb.ps');
SELECT cuckoo_store_rebuild('rb.ps');
-- 100 + 50 + 50 values, two copies each (400 items), but for values that
-- share a bucket and a fingerprint, copies of one entry: what a store
-- created and tracked afresh holds, byte for byte
SELECT items FROM cuckoo_store_info('rb.ps');
BEGIN;
SELECT cuckoo_store_create('rb.psfresh', 4000) IS NOT NULL AS created;
SELECT cuckoo_store_track('rb.psfresh', 'rb.pt', 'k');
SELECT cuckoo_store_track('rb.psfresh', 'rb.u', 'a');
SELECT cuckoo_store_track('rb.psfresh', 'rb.u', 'b');
COMMIT;
SELECT items FROM cuckoo_store_info('rb.psfresh');
SELECT rb.differ('rb.ps', 'rb.psfresh') AS segments_differing;
SELECT missing, rows, items, trackings FROM cuckoo_store_verify('rb.ps');
SELECT count(*) FILTER (WHERE cuckoo_store_contains('rb.ps', g::int8)) <= 20 AS deleted_found_few
FROM (SELECT generate_series(100, 299) UNION ALL SELECT generate_series(100050, 100199)
      UNION ALL SELECT generate_series(200050, 200199)) v(g);

-- privileges: the rebuild asks what cuckoo_store_track asks
CREATE ROLE regress_rb_owner;
CREATE ROLE regress_rb_other;
GRANT USAGE ON SCHEMA rb TO regress_rb_owner, regress_rb_other;
SELECT cuckoo_store_create('rb.o', 2000) IS NOT NULL AS created;
ALTER TABLE rb.o OWNER TO regress_rb_owner;
CREATE TABLE rb.ot (id int8 PRIMARY KEY, k int8);
ALTER TABLE rb.ot OWNER TO regress_rb_owner;
INSERT INTO rb.ot SELECT g, g FROM generate_series(1, 100) g;
SET ROLE regress_rb_owner;
SELECT cuckoo_store_track('rb.o', 'rb.ot', 'k');
SELECT cuckoo_store_rebuild('rb.o');
RESET ROLE;
GRANT SELECT, UPDATE ON rb.o TO regress_rb_other;
GRANT SELECT, INSERT, UPDATE, DELETE ON rb.ot TO regress_rb_other;
SET ROLE regress_rb_other;
-- may write the table, may update the store, does not own the table
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.o')$$);
RESET ROLE;
REVOKE SELECT, UPDATE ON rb.o FROM regress_rb_other;
GRANT regress_rb_owner TO regress_rb_other;
REVOKE SELECT, UPDATE ON rb.o FROM regress_rb_owner;
SET ROLE regress_rb_owner;
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.o')$$);
RESET ROLE;
GRANT SELECT, UPDATE ON rb.o TO regress_rb_owner;
SET ROLE regress_rb_other;
-- a member of the table's owner, with the owner's rights on the store
SELECT cuckoo_store_rebuild('rb.o');
RESET ROLE;

-- NULL, not a store, no tracking, a relation that does not exist
SELECT cuckoo_store_rebuild(NULL) IS NULL AS null_is_null;
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.t')$$);
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.pt')$$);
SELECT cuckoo_store_create('rb.none', 1000) IS NOT NULL AS created;
SELECT rb_state($$SELECT cuckoo_store_rebuild('rb.none')$$);
SELECT rb_state($$SELECT cuckoo_store_rebuild(0)$$);

DROP SCHEMA rb CASCADE;
DROP FUNCTION rb_state(text);
DROP ROLE regress_rb_other;
DROP ROLE regress_rb_owner;
