-- Living filters on partitioned tables (cuckoo_store_track of a partitioned
-- table): the whole tree, every level, is followed, whether a statement names
-- the partitioned table or a partition; ATTACH, DETACH, CREATE TABLE ...
-- PARTITION OF and DROP of a partition; untrack, verify.  After each change
-- the store's items are exactly the rows' non-NULL values, but for the
-- copies of a value once held by two rows at once (tp.sticky), and nothing
-- is missing.  (MERGE on a partitioned table: track_merge.sql, 15 and later.)

-- tpstate(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION tpstate(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;

CREATE SCHEMA tp;
SELECT cuckoo_store_create('tp.s', 20000) IS NOT NULL AS created;

-- probe(v): is v in the store
CREATE FUNCTION tpprobe(v int8) RETURNS bool LANGUAGE sql AS
  $$ SELECT cuckoo_store_contains('tp.s', v) $$;
-- the tracking triggers of the tables of schema tp
CREATE VIEW tp.triggers AS
  SELECT c.relname, count(*) AS n, min(t.tgname) AS first
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  WHERE t.tgname LIKE 'cuckoo_track_%' AND c.relnamespace = 'tp'::regnamespace
  GROUP BY c.relname ORDER BY c.relname;

-- three levels: t (range of id) > p1, p2 (range) > p2a, p2b
CREATE TABLE tp.t (id int, k int8, other text) PARTITION BY RANGE (id);
CREATE UNIQUE INDEX ON tp.t (id);
CREATE TABLE tp.p1 PARTITION OF tp.t FOR VALUES FROM (1) TO (1001);
CREATE TABLE tp.p2 PARTITION OF tp.t FOR VALUES FROM (1001) TO (2001) PARTITION BY RANGE (id);
CREATE TABLE tp.p2a PARTITION OF tp.p2 FOR VALUES FROM (1001) TO (1501);
CREATE TABLE tp.p2b PARTITION OF tp.p2 FOR VALUES FROM (1501) TO (2001);
-- odd ids: the moves below go to even ones
INSERT INTO tp.t SELECT g, g * 10, 'x' FROM generate_series(1, 1990, 2) g;
UPDATE tp.t SET k = NULL WHERE id IN (7, 1207, 1707);

-- tp.sticky: values held by two rows at once, so their count saturated at
-- 2 copies (b / 2) that stay whatever rows hold them after (docs/DESIGN.md,
-- "Duplicates")
CREATE TABLE tp.sticky (k int8, copies int);
-- tpcheck(): the verification of tp.s, and whether it is exact: nothing
-- missing, the store's items = the values scanned (beside the copies of
-- tp.sticky, for the rows that hold them) = the non-NULL values of tp.t
-- counted by PostgreSQL
CREATE FUNCTION tpcheck() RETURNS text LANGUAGE sql AS $$
  SELECT format('missing %s rows %s items %s exact %s', v.missing, v.rows, v.items,
                v.missing = 0 AND v.rows = (SELECT count(k) FROM tp.t) AND
                v.items = v.rows + (SELECT coalesce(sum(s.copies - (SELECT count(*) FROM tp.t WHERE t.k = s.k)), 0)
                                    FROM tp.sticky s))
  FROM cuckoo_store_verify('tp.s') v $$;

-- a partition cannot be tracked on its own
SELECT tpstate($$SELECT cuckoo_store_track('tp.s', 'tp.p2a', 'k')$$);
SELECT tpstate($$SELECT cuckoo_store_track('tp.s', 'tp.p2', 'k')$$);
-- the partitioned table: every value of every level, once
SELECT cuckoo_store_track('tp.s', 'tp.t', 'k');
SELECT tpcheck();
SELECT * FROM tp.triggers;
SELECT store, tab, col FROM cuckoo_store_tracking;

-- INSERT through the root (rows routed to every leaf), into an intermediate
-- table, into a leaf: each row counted once
INSERT INTO tp.t VALUES (1991, 19910, 'i'), (1992, 19920, 'i'), (11, 999, 'conflict'), (12, 110, 'dup of 11') ON CONFLICT DO NOTHING;
INSERT INTO tp.sticky VALUES (110, 2);
INSERT INTO tp.p2 VALUES (1993, 19930, 'i');
INSERT INTO tp.p2b VALUES (1994, 19940, 'i'), (1995, NULL, 'i');
SELECT tpprobe(19910), tpprobe(19930), tpprobe(19940), tpprobe(999) AS conflict;
SELECT tpcheck();
-- INSERT ... ON CONFLICT DO UPDATE through the root
INSERT INTO tp.t VALUES (1991, 19911, 'u') ON CONFLICT (id) DO UPDATE SET k = excluded.k;
SELECT tpprobe(19910) AS old, tpprobe(19911) AS new;
SELECT tpcheck();

-- COPY through the root and into a leaf
COPY tp.t (id, k) FROM STDIN;
1996	19960
1997	\N
\.
COPY tp.p2a (id, k) FROM STDIN;
1100	11001
\.
SELECT tpcheck();

-- UPDATE through the root, in place
UPDATE tp.t SET k = k + 1 WHERE id BETWEEN 995 AND 1005;
SELECT tpprobe(9950) AS old, tpprobe(9951) AS new;
SELECT tpcheck();
-- UPDATE of the partition key: rows move between partitions (p1 to p2b,
-- p2a to p1) and the update trigger of the root sees each once; a move that
-- leaves k alone changes no segment
CREATE TEMP TABLE seg_xmin AS SELECT segment, xmin::text AS x FROM tp.s;
UPDATE tp.t SET id = id + 1001 WHERE id BETWEEN 601 AND 699;
UPDATE tp.t SET id = id - 1001 WHERE id BETWEEN 1051 AND 1061;
SELECT count(*) AS segments_rewritten FROM tp.s JOIN seg_xmin USING (segment) WHERE tp.s.xmin::text <> seg_xmin.x;
SELECT count(*) AS moved_to_p2b FROM tp.p2b WHERE id BETWEEN 1602 AND 1700 AND id % 2 = 0;
SELECT tpcheck();
-- a move with a new value (p1 to p2a); a move inside the intermediate
-- table (p2a to p2b)
UPDATE tp.t SET id = id + 1001, k = -k WHERE id BETWEEN 201 AND 209;
UPDATE tp.p2 SET id = id + 401, k = k + 3 WHERE id BETWEEN 1401 AND 1405;
SELECT tpprobe(-2010) AS moved_new, tpprobe(2010) AS moved_old;
SELECT tpcheck();
-- UPDATE of a leaf; of another column only
UPDATE tp.p2b SET k = k * 7 WHERE id BETWEEN 1801 AND 1810;
UPDATE tp.t SET other = 'y';
SELECT tpcheck();

-- DELETE through the root, through the intermediate table, of a leaf
DELETE FROM tp.t WHERE id BETWEEN 300 AND 320;
DELETE FROM tp.p2 WHERE id BETWEEN 1480 AND 1520;
DELETE FROM tp.p2b WHERE id = 1994;
SELECT tpprobe(3100) AS deleted, tpprobe(19940) AS deleted_leaf;
SELECT tpcheck();

-- ROLLBACK and savepoints leave no trace
CREATE TEMP TABLE items0 AS SELECT items FROM cuckoo_store_info('tp.s');
BEGIN;
INSERT INTO tp.t VALUES (1998, 777001, 'r');
SAVEPOINT a;
UPDATE tp.t SET id = id + 1001 WHERE id BETWEEN 101 AND 149;
DELETE FROM tp.p1;
ROLLBACK TO a;
UPDATE tp.p2a SET k = 777002 WHERE id = 1101;
SELECT tpprobe(777001), tpprobe(777002);
SELECT tpcheck();
ROLLBACK;
SELECT tpprobe(777001), tpprobe(777002), (SELECT items FROM cuckoo_store_info('tp.s')) = (SELECT items FROM items0) AS same_items;
SELECT tpcheck();
-- a TRUNCATE of the root rolled back
BEGIN;
TRUNCATE tp.t;
SELECT tpcheck();
ROLLBACK;
SELECT tpcheck();

-- TRUNCATE of a leaf, and of the intermediate table (which fires the
-- truncate triggers of its partitions too: each row removed once)
TRUNCATE tp.p2b;
SELECT tpcheck();
INSERT INTO tp.p2b SELECT g, g * 10, 'z' FROM generate_series(1501, 1600) g;
TRUNCATE tp.p2;
SELECT tpprobe(15010), tpcheck();
INSERT INTO tp.t SELECT g, g * 10, 'z' FROM generate_series(1401, 1700) g;
SELECT tpcheck();

-- CREATE TABLE ... PARTITION OF: the new partition, and a partitioned one
-- with a partition of its own, get the triggers; a statement naming them is
-- followed
CREATE TABLE tp.p3 PARTITION OF tp.t FOR VALUES FROM (2001) TO (3001);
CREATE TABLE tp.p4 PARTITION OF tp.t FOR VALUES FROM (3001) TO (4001) PARTITION BY RANGE (id);
CREATE TABLE tp.p4x PARTITION OF tp.p4 FOR VALUES FROM (3001) TO (3501);
SELECT * FROM tp.triggers;
INSERT INTO tp.p3 VALUES (2001, 20010, 'c');
INSERT INTO tp.p4x VALUES (3002, 30020, 'c');
INSERT INTO tp.t VALUES (3004, 30040, 'c');
SELECT tpprobe(20010), tpprobe(30020), tpprobe(30040);
SELECT tpcheck();

-- ATTACH PARTITION of a table with rows (a NULL, a dropped column: its
-- column numbers differ from the root's): its values are added and it gets
-- the triggers
CREATE TABLE tp.a (gone int, id int, k int8, other text);
ALTER TABLE tp.a DROP COLUMN gone;
INSERT INTO tp.a SELECT g, g * 10, 'a' FROM generate_series(4001, 4100) g;
INSERT INTO tp.a VALUES (4101, NULL, 'a');
ALTER TABLE tp.t ATTACH PARTITION tp.a FOR VALUES FROM (4001) TO (5001);
SELECT tpprobe(40010), tpprobe(41000);
SELECT tpcheck();
SELECT * FROM tp.triggers WHERE relname = 'a';
INSERT INTO tp.a VALUES (4200, 42000, 'a');
UPDATE tp.a SET k = k + 5 WHERE id BETWEEN 4001 AND 4010;
DELETE FROM tp.a WHERE id BETWEEN 4011 AND 4020;
SELECT tpcheck();
-- ATTACH of a partitioned table with rows in its partitions, as a partition
-- of an intermediate table (below the root): every level gets the triggers
CREATE TABLE tp.b (id int, k int8, other text) PARTITION BY RANGE (id);
CREATE TABLE tp.b1 PARTITION OF tp.b FOR VALUES FROM (3501) TO (3751);
CREATE TABLE tp.b2 PARTITION OF tp.b FOR VALUES FROM (3751) TO (4001);
INSERT INTO tp.b SELECT g, g * 10, 'b' FROM generate_series(3501, 4000, 4) g;
ALTER TABLE tp.p4 ATTACH PARTITION tp.b FOR VALUES FROM (3501) TO (4001);
SELECT * FROM tp.triggers WHERE relname LIKE 'b%';
SELECT tpprobe(35010), tpprobe(39970);
INSERT INTO tp.b1 VALUES (3503, 35031, 'b');
SELECT tpcheck();

-- DETACH PARTITION: its values are removed (still found if another row
-- holds them) and its triggers taken off; then its changes are not followed
ALTER TABLE tp.t DETACH PARTITION tp.a;
SELECT tpprobe(40050) AS detached_value, tpcheck();
SELECT count(*) AS triggers_on_a FROM pg_trigger WHERE tgrelid = 'tp.a'::regclass;
CREATE TEMP TABLE items1 AS SELECT items FROM cuckoo_store_info('tp.s');
INSERT INTO tp.a VALUES (4300, 43000, 'a');
SELECT (SELECT items FROM cuckoo_store_info('tp.s')) = (SELECT items FROM items1) AS not_followed;
-- DETACH of a partitioned table: every level of it
ALTER TABLE tp.p4 DETACH PARTITION tp.b;
SELECT * FROM tp.triggers WHERE relname LIKE 'b%';
SELECT tpcheck();
-- attached again: its values come back, once
ALTER TABLE tp.t ATTACH PARTITION tp.a FOR VALUES FROM (4001) TO (5001);
SELECT tpcheck();

-- DROP TABLE of a partition is refused (its values would stay): detach first
SELECT tpstate($$DROP TABLE tp.p3$$);
SELECT tpstate($$DROP TABLE tp.p4$$);
SELECT tpstate($$DROP TABLE tp.p4x$$);
ALTER TABLE tp.t DETACH PARTITION tp.p3;
DROP TABLE tp.p3;
SELECT tpcheck();
-- so is DROP SCHEMA ... CASCADE of a partition's schema
CREATE SCHEMA tpo;
CREATE TABLE tpo.p5 PARTITION OF tp.t FOR VALUES FROM (5001) TO (6001);
INSERT INTO tp.t VALUES (5001, 50010, 'o');
SELECT tpstate($$DROP SCHEMA tpo CASCADE$$);
ALTER TABLE tp.t DETACH PARTITION tpo.p5;
DROP SCHEMA tpo CASCADE;
SELECT tpcheck();
-- a tracked partitioned table cannot become a partition; nor can a table
-- that is in a tracked tree be tracked on its own
CREATE TABLE tp.top (id int, k int8, other text) PARTITION BY RANGE (id);
-- (the SQLSTATE only: on 13 the core refuses it first, with its own message)
SELECT left(tpstate($$ALTER TABLE tp.top ATTACH PARTITION tp.t FOR VALUES FROM (0) TO (100000)$$), 5);
DROP TABLE tp.top;
-- inheritance stays refused
CREATE TABLE tp.h (id int, k int8);
CREATE TABLE tp.hc () INHERITS (tp.h);
SELECT tpstate($$SELECT cuckoo_store_track('tp.s', 'tp.h', 'k')$$);
SELECT tpstate($$SELECT cuckoo_store_track('tp.s', 'tp.hc', 'k')$$);

-- a writer without rights on the store writes through the root and a leaf
CREATE ROLE regress_track_part_writer;
GRANT USAGE ON SCHEMA tp TO regress_track_part_writer;
GRANT INSERT, UPDATE, DELETE, SELECT ON tp.t, tp.p1 TO regress_track_part_writer;
SET ROLE regress_track_part_writer;
SELECT tpstate($$INSERT INTO tp.t VALUES (1999, 19990, 'w')$$);
SELECT tpstate($$UPDATE tp.p1 SET k = k + 2 WHERE id BETWEEN 1 AND 5$$);
SELECT tpstate($$SELECT cuckoo_store_add('tp.s', 1::int8)$$) LIKE '42501%' AS no_store_rights;
RESET ROLE;
SELECT tpprobe(19990), tpcheck();
-- a partition owned by another role: its TRUNCATE reads it with its owner's
-- rights, the store is changed with the tracked table's owner's
ALTER TABLE tp.p1 OWNER TO regress_track_part_writer;
TRUNCATE tp.p1;
SELECT tpcheck();
INSERT INTO tp.t SELECT g, g * 10, 'o' FROM generate_series(1, 99) g;
SELECT tpcheck();

-- two stores track the tree: one set of triggers, each store follows it
SELECT cuckoo_store_create('tp.s3', 5000) IS NOT NULL AS created;
SELECT cuckoo_store_track('tp.s3', 'tp.t', 'k') = (SELECT count(k) FROM tp.t) AS added_all;
SELECT count(*) AS tables, sum(n) AS triggers FROM tp.triggers;
INSERT INTO tp.p2a VALUES (1002, 144401, 'two');
SELECT tpprobe(144401), cuckoo_store_contains('tp.s3', 144401::int8);
SELECT missing, items = rows AS exact FROM cuckoo_store_verify('tp.s3');
SELECT tpcheck();
SELECT cuckoo_store_untrack('tp.s3', 'tp.t', 'k');
SELECT count(*) AS tables, sum(n) AS triggers FROM tp.triggers;

-- verify warns of a partition that lacks the triggers (dropped by hand)
DROP TRIGGER cuckoo_track_part_update ON tp.p2a;
SELECT missing FROM cuckoo_store_verify('tp.s');

-- untrack takes every trigger off, every level; tracking again adds the
-- values once more (counted copies)
SELECT cuckoo_store_untrack('tp.s', 'tp.t', 'k');
SELECT count(*) AS tracking_triggers FROM tp.triggers;
SELECT cuckoo_store_track('tp.s', 'tp.t', 'k') = (SELECT count(k) FROM tp.t) AS added_all;
SELECT (SELECT count(*) FROM tp.triggers) AS tables_with_triggers,
       (SELECT count(*) FROM pg_partition_tree('tp.t')) AS tables_in_tree;

-- DROP of the store: the trackings go, and the triggers with them; a
-- partition can then be dropped
DROP TABLE tp.s;
SELECT count(*) AS trackings FROM cuckoo_store_tracking;
SELECT count(*) AS tracking_triggers FROM tp.triggers;
DROP TABLE tp.p4x;
-- DROP of a tracked partitioned table drops its partitions with it
SELECT cuckoo_store_create('tp.s2', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_track('tp.s2', 'tp.t', 'k') > 0 AS tracked;
SELECT cuckoo_store_track('tp.s2', 'tp.t', 'id') > 0 AS tracked;
-- (dropping a tracked column drops its tracking; the other keeps the triggers)
ALTER TABLE tp.t DROP COLUMN k;
SELECT store, tab, col FROM cuckoo_store_tracking;
SELECT count(*) AS tables, sum(n) AS triggers FROM tp.triggers;
DROP TABLE tp.t;
SELECT count(*) AS trackings FROM cuckoo_store_tracking;

DROP SCHEMA tp CASCADE;
DROP OWNED BY regress_track_part_writer;
DROP ROLE regress_track_part_writer;
DROP FUNCTION tpstate(text);
DROP FUNCTION tpcheck();
DROP FUNCTION tpprobe(int8);
