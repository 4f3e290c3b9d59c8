-- Living filters and MERGE (PostgreSQL 15 and later; the Makefile skips this
-- file before 15): MERGE fires the statement triggers of each action with its
-- transition tables, so its inserts, updates and deletes are followed.
CREATE SCHEMA trm;
SELECT cuckoo_store_create('trm.s', 1000) IS NOT NULL AS created;
CREATE TABLE trm.t (id int PRIMARY KEY, k text);
INSERT INTO trm.t VALUES (1, 'a'), (2, 'b'), (3, 'c');
SELECT cuckoo_store_track('trm.s', 'trm.t', 'k');
CREATE TABLE trm.src (id int, k text, del bool);
INSERT INTO trm.src VALUES (1, 'a2', false), (2, NULL, true), (4, 'd', false);
MERGE INTO trm.t t USING trm.src s ON t.id = s.id
  WHEN MATCHED AND s.del THEN DELETE
  WHEN MATCHED THEN UPDATE SET k = s.k
  WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.k);
SELECT k, cuckoo_store_contains('trm.s', k) FROM unnest(ARRAY['a', 'a2', 'b', 'c', 'd']) k ORDER BY k;
SELECT * FROM cuckoo_store_verify('trm.s');
BEGIN;
MERGE INTO trm.t t USING (VALUES (3, 'c3')) s(id, k) ON t.id = s.id
  WHEN MATCHED THEN UPDATE SET k = s.k;
ROLLBACK;
SELECT cuckoo_store_contains('trm.s', 'c'::text) AS c, cuckoo_store_contains('trm.s', 'c3'::text) AS c3;

-- MERGE into a tracked partitioned table, and into one of its partitions:
-- inserts, deletes, updates in place and updates that move rows between
-- partitions each counted once (the store's items = the rows' non-NULL
-- values, nothing missing)
SELECT cuckoo_store_create('trm.sp', 1000) IS NOT NULL AS created;
CREATE TABLE trm.p (id int, k int8) PARTITION BY RANGE (id);
CREATE TABLE trm.p1 PARTITION OF trm.p FOR VALUES FROM (0) TO (100);
CREATE TABLE trm.p2 PARTITION OF trm.p FOR VALUES FROM (100) TO (200);
INSERT INTO trm.p SELECT g, g * 10 FROM generate_series(1, 150) g;
SELECT cuckoo_store_track('trm.sp', 'trm.p', 'k');
MERGE INTO trm.p t USING (VALUES (5, 0, 'del'), (6, 66, 'upd'), (7, 77, 'move'),
                                 (8, 80, 'move'), (160, 1600, 'ins'), (170, NULL, 'ins')) s(id, k, op)
  ON t.id = s.id
  WHEN MATCHED AND s.op = 'del' THEN DELETE
  WHEN MATCHED AND s.op = 'upd' THEN UPDATE SET k = s.k
  WHEN MATCHED AND s.op = 'move' THEN UPDATE SET id = s.id + 150, k = s.k
  WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.k);
SELECT v, cuckoo_store_contains('trm.sp', v) FROM unnest(ARRAY[50, 60, 66, 70, 77, 80, 1600]::int8[]) v ORDER BY v;
SELECT missing, rows, items, rows = (SELECT count(k) FROM trm.p) AS all_rows FROM cuckoo_store_verify('trm.sp');
MERGE INTO trm.p2 t USING (VALUES (157, 'del'), (158, 'upd'), (180, 'ins')) s(id, op) ON t.id = s.id
  WHEN MATCHED AND s.op = 'del' THEN DELETE
  WHEN MATCHED THEN UPDATE SET k = -t.k
  WHEN NOT MATCHED THEN INSERT VALUES (s.id, 1800);
SELECT v, cuckoo_store_contains('trm.sp', v) FROM unnest(ARRAY[77, 80, -80, 1800]::int8[]) v ORDER BY v;
SELECT missing, rows, items, rows = (SELECT count(k) FROM trm.p) AS all_rows FROM cuckoo_store_verify('trm.sp');
DROP SCHEMA trm CASCADE;
