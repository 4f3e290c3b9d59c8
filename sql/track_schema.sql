-- Living filters and the DDL that reaches a tracked tree from outside it:
-- CREATE SCHEMA ... CREATE TABLE subcommands (a partition of a tracked
-- tree gets the partition triggers and its values are added; a child of a
-- tracked table by INHERITS is refused), CREATE FOREIGN TABLE ... PARTITION
-- OF (refused), and DROP SCHEMA ... CASCADE / DROP
-- OWNED BY (a partition dropped with its tracked root goes; one whose root
-- stays is refused, whatever else the command drops).  After each change
-- the store's items are exactly the rows' non-NULL values, nothing missing.

-- tsstate(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION tsstate(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;

CREATE SCHEMA ts;
SELECT cuckoo_store_create('ts.s', 10000) IS NOT NULL AS created;
CREATE TABLE ts.t (id int, k int8) PARTITION BY RANGE (id);
CREATE TABLE ts.p1 PARTITION OF ts.t FOR VALUES FROM (1) TO (101);
INSERT INTO ts.t SELECT g, g * 10 FROM generate_series(1, 100) g;
SELECT cuckoo_store_track('ts.s', 'ts.t', 'k');

-- tscheck(): exact (nothing missing, items = values scanned = non-NULL values)
CREATE FUNCTION tscheck() RETURNS text LANGUAGE sql AS $$
  SELECT format('missing %s rows %s items %s exact %s', v.missing, v.rows, v.items,
                v.missing = 0 AND v.items = v.rows AND v.rows = (SELECT count(k) FROM ts.t))
  FROM cuckoo_store_verify('ts.s') v $$;
-- the tracking triggers of every table in the schemas ts*
CREATE VIEW ts.triggers AS
  SELECT n.nspname || '.' || c.relname AS tab, count(*) AS n
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE t.tgname LIKE 'cuckoo_track_%' AND n.nspname LIKE 'ts%'
  GROUP BY 1 ORDER BY 1;
SELECT tscheck();

-- CREATE SCHEMA ... CREATE TABLE ... PARTITION OF the tracked root: the new
-- partition, and one below it (created in the same command), get the
-- triggers; rows written after are followed
CREATE SCHEMA ts_a
  CREATE TABLE p2 PARTITION OF ts.t FOR VALUES FROM (101) TO (301) PARTITION BY RANGE (id)
  CREATE TABLE p2a PARTITION OF p2 FOR VALUES FROM (101) TO (201)
  CREATE TABLE p2b PARTITION OF p2 FOR VALUES FROM (201) TO (301);
SELECT * FROM ts.triggers;
INSERT INTO ts.t SELECT g, g * 10 FROM generate_series(101, 300) g;
SELECT cuckoo_store_contains('ts.s', 1500::int8) AS p2a_value,
       cuckoo_store_contains('ts.s', 2500::int8) AS p2b_value;
SELECT tscheck();
-- statements naming the new partitions (their own triggers)
INSERT INTO ts_a.p2a VALUES (199, 1990001);
INSERT INTO ts_a.p2 VALUES (299, 2990001);
SELECT cuckoo_store_contains('ts.s', 1990001::int8) AS p2a_insert,
       cuckoo_store_contains('ts.s', 2990001::int8) AS p2_insert;
DELETE FROM ts_a.p2a WHERE id BETWEEN 101 AND 150;
UPDATE ts_a.p2b SET k = k + 1 WHERE id BETWEEN 201 AND 220;
SELECT tscheck();
DELETE FROM ts.t WHERE id BETWEEN 151 AND 160;
SELECT tscheck();

-- an ordinary table made by CREATE SCHEMA (ATTACH is no schema element),
-- filled, then attached: its values are added by the ATTACH
CREATE SCHEMA ts_b
  CREATE TABLE q (id int, k int8);
INSERT INTO ts_b.q SELECT g, g * 10 FROM generate_series(301, 320) g;
ALTER TABLE ts.t ATTACH PARTITION ts_b.q FOR VALUES FROM (301) TO (401);
SELECT tscheck();

-- CREATE FOREIGN TABLE ... PARTITION OF the tracked root: refused (its
-- statement triggers could not have transition tables), nothing left
CREATE FOREIGN DATA WRAPPER ts_fdw;
CREATE SERVER ts_server FOREIGN DATA WRAPPER ts_fdw;
SELECT tsstate($$CREATE FOREIGN TABLE ts.f PARTITION OF ts.t FOR VALUES FROM (901) TO (1001) SERVER ts_server$$);
SELECT count(*) AS foreign_tables FROM pg_class WHERE relname = 'f' AND relnamespace = 'ts'::regnamespace;
-- a foreign table outside a tracked tree is none of its business
CREATE FOREIGN TABLE ts.f2 (id int) SERVER ts_server;
DROP FOREIGN TABLE ts.f2;
DROP SERVER ts_server;
DROP FOREIGN DATA WRAPPER ts_fdw;

-- CREATE SCHEMA ... CREATE TABLE ... INHERITS a tracked ordinary table: refused
CREATE TABLE ts.plain (id int, k int8);
INSERT INTO ts.plain VALUES (1, 7);
SELECT cuckoo_store_create('ts.s2', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_track('ts.s2', 'ts.plain', 'k');
SELECT tsstate($$CREATE SCHEMA ts_c CREATE TABLE child (extra int) INHERITS (ts.plain)$$);
SELECT count(*) AS ts_c_schemas FROM pg_namespace WHERE nspname = 'ts_c';
-- and CREATE TABLE works after it
CREATE TABLE ts.after (id int);
DROP TABLE ts.after;

-- DROP SCHEMA ... CASCADE of a schema that holds a partition of a tracked
-- tree (its root elsewhere) and a tracked table of another store: the
-- partition's root stays, so it is refused
CREATE SCHEMA ts_d;
CREATE TABLE ts_d.p4 PARTITION OF ts.t FOR VALUES FROM (401) TO (501);
INSERT INTO ts.t SELECT g, g * 10 FROM generate_series(401, 420) g;
CREATE TABLE ts_d.other (k int8);
INSERT INTO ts_d.other VALUES (5), (6);
SELECT cuckoo_store_create('ts_d.s3', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_track('ts_d.s3', 'ts_d.other', 'k');
SELECT tsstate($$DROP SCHEMA ts_d CASCADE$$);
SELECT tscheck();
-- also when the tracked table dropped is another tracked root
CREATE TABLE ts_d.t2 (id int, k int8) PARTITION BY LIST (id);
CREATE TABLE ts_d.t2a PARTITION OF ts_d.t2 FOR VALUES IN (1);
SELECT cuckoo_store_track('ts_d.s3', 'ts_d.t2', 'k');
SELECT tsstate($$DROP SCHEMA ts_d CASCADE$$);
-- DROP OWNED BY a role that owns the partition and the other tree: refused
CREATE ROLE regress_track_schema_owner;
ALTER TABLE ts_d.p4 OWNER TO regress_track_schema_owner;
ALTER TABLE ts_d.t2 OWNER TO regress_track_schema_owner;
SELECT tsstate($$DROP OWNED BY regress_track_schema_owner$$);
ALTER TABLE ts_d.p4 OWNER TO CURRENT_USER;
ALTER TABLE ts_d.t2 OWNER TO CURRENT_USER;
DROP ROLE regress_track_schema_owner;
SELECT tscheck();
-- detached first, the schema goes
ALTER TABLE ts.t DETACH PARTITION ts_d.p4;
DROP SCHEMA ts_d CASCADE;
SELECT tscheck();
SELECT tab::text, col FROM cuckoo_store_tracking ORDER BY 1, 2;

-- DROP SCHEMA ... CASCADE that drops a tracked root and its partitions in
-- other schemas: allowed, the tracking goes
CREATE SCHEMA ts_e;
CREATE TABLE ts_e.r (id int, k int8) PARTITION BY LIST (id);
CREATE SCHEMA ts_f;
CREATE TABLE ts_f.ra PARTITION OF ts_e.r FOR VALUES IN (1);
INSERT INTO ts_e.r VALUES (1, 11);
SELECT cuckoo_store_track('ts.s2', 'ts_e.r', 'k');
SELECT * FROM ts.triggers WHERE tab LIKE 'ts_f.%';
DROP SCHEMA ts_e CASCADE;
SELECT count(*) AS ra_left FROM pg_class WHERE relname = 'ra' AND relnamespace = 'ts_f'::regnamespace;
SELECT tab::text, col FROM cuckoo_store_tracking ORDER BY 1, 2;
-- and one that drops a partition's schema and its root's schema together
CREATE TABLE ts_f.r2 (id int, k int8) PARTITION BY LIST (id);
CREATE SCHEMA ts_g CREATE TABLE r2a PARTITION OF ts_f.r2 FOR VALUES IN (1);
SELECT cuckoo_store_track('ts.s2', 'ts_f.r2', 'k');
SELECT * FROM ts.triggers WHERE tab LIKE 'ts_g.%';
DROP SCHEMA ts_f, ts_g CASCADE;
SELECT tab::text, col FROM cuckoo_store_tracking ORDER BY 1, 2;

-- DROP OWNED BY a role that owns a tracked root and its partition: allowed
CREATE ROLE regress_track_schema_owner2;
CREATE TABLE ts.r3 (id int, k int8) PARTITION BY LIST (id);
CREATE TABLE ts_a.r3a PARTITION OF ts.r3 FOR VALUES IN (1);
SELECT cuckoo_store_track('ts.s2', 'ts.r3', 'k');
ALTER TABLE ts.r3 OWNER TO regress_track_schema_owner2;
ALTER TABLE ts_a.r3a OWNER TO regress_track_schema_owner2;
DROP OWNED BY regress_track_schema_owner2;
DROP ROLE regress_track_schema_owner2;
SELECT count(*) AS r3_left FROM pg_class WHERE relname IN ('r3', 'r3a');
SELECT tab::text, col FROM cuckoo_store_tracking ORDER BY 1, 2;

SELECT tscheck();
DROP SCHEMA ts_a, ts_b, ts CASCADE;
SELECT count(*) AS trackings FROM cuckoo_store_tracking;
DROP FUNCTION tsstate(text);
DROP FUNCTION tscheck();
