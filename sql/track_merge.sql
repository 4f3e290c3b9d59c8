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
DROP SCHEMA trm CASCADE;
