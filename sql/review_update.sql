-- Review (issue 21, the value path): the 1.2 -> 1.3 update run by an
-- ordinary role (cuckoo is trusted, so the script runs as a superuser) that
-- planted functions and operators in the extension's schema, in a database
-- of its own.  Checks which columns are switched to EXTERNAL (plain,
-- domains over domains, partitioned tables and their partitions,
-- inheritance parents and children, typed tables, materialized views,
-- quoted names, another role's table) and which are not (arrays, a column
-- set to MAIN on purpose), that nothing planted ran, and that a value
-- compressed under 1.2 is still read right.
\set regdb :DBNAME
CREATE DATABASE rv_upd;
CREATE ROLE regress_rv_owner;
CREATE ROLE regress_rv_other;
GRANT CREATE ON DATABASE rv_upd TO regress_rv_owner;
\c rv_upd
CREATE SCHEMA ext AUTHORIZATION regress_rv_owner;
CREATE SCHEMA app AUTHORIZATION regress_rv_owner;
CREATE SCHEMA oth AUTHORIZATION regress_rv_other;
GRANT USAGE ON SCHEMA ext TO regress_rv_other;
SET ROLE regress_rv_owner;
CREATE EXTENSION cuckoo VERSION '1.2' SCHEMA ext;
SELECT extversion FROM pg_extension WHERE extname = 'cuckoo';
SET search_path = app, ext;
CREATE DOMAIN app.d1 AS ext.cuckoofilter;
CREATE DOMAIN app.d2 AS app.d1;
CREATE TABLE app.plain (id int, f cuckoofilter, g app.d2, h cuckoofilter[], m cuckoofilter);
ALTER TABLE app.plain ALTER COLUMN m SET STORAGE MAIN;
CREATE TABLE app.parted (k int, f cuckoofilter) PARTITION BY RANGE (k);
CREATE TABLE app.parted_1 PARTITION OF app.parted FOR VALUES FROM (0) TO (10);
CREATE TABLE app.parent (f cuckoofilter);
CREATE TABLE app.child (x int) INHERITS (app.parent);
CREATE TYPE app.comp AS (f cuckoofilter);
CREATE TABLE app.typed OF app.comp;
CREATE TABLE app."odd ""name""" ("a b" app.d1);
-- a sparse filter, compressed under 1.2's EXTENDED default
INSERT INTO app.plain (id, f)
  SELECT 1, cuckoo_add_array(cuckoo_create(400000, 0.01), ARRAY(SELECT x::bigint FROM generate_series(1, 100) x));
CREATE MATERIALIZED VIEW app.mv AS SELECT f FROM app.plain;
-- planted where the script runs: functions and operators of the names it
-- uses, in the extension's schema (first on its search_path)
CREATE TABLE app.planted_ran (what text);
GRANT INSERT ON app.planted_ran TO PUBLIC;
CREATE FUNCTION ext.format(text, regclass, name) RETURNS text LANGUAGE sql
  AS $$ INSERT INTO app.planted_ran VALUES ('format') RETURNING 'SELECT 1' $$;
CREATE FUNCTION ext.format(text, regtype) RETURNS text LANGUAGE sql
  AS $$ INSERT INTO app.planted_ran VALUES ('format') RETURNING 'SELECT 1' $$;
CREATE FUNCTION ext.planted_eq(oid, oid) RETURNS bool LANGUAGE sql
  AS $$ INSERT INTO app.planted_ran VALUES ('=') RETURNING true $$;
CREATE OPERATOR ext.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = ext.planted_eq);
CREATE FUNCTION ext.planted_char_eq("char", "char") RETURNS bool LANGUAGE sql
  AS $$ INSERT INTO app.planted_ran VALUES ('char =') RETURNING true $$;
CREATE OPERATOR ext.= (LEFTARG = "char", RIGHTARG = "char", FUNCTION = ext.planted_char_eq);
RESET ROLE;
-- another role's table
SET ROLE regress_rv_other;
CREATE TABLE oth.t (f ext.cuckoofilter);
RESET ROLE;

SET ROLE regress_rv_owner;
ALTER EXTENSION cuckoo UPDATE TO '1.3';
RESET ROLE;
SELECT extversion FROM pg_extension WHERE extname = 'cuckoo';
SELECT count(*) AS planted_calls FROM app.planted_ran;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_rv_owner';
SELECT typname, typstorage FROM pg_type
 WHERE typnamespace = 'ext'::regnamespace AND typname IN ('cuckoofilter', '_cuckoofilter')
 ORDER BY typname;
SELECT c.oid::regclass AS rel, c.relkind, a.attname, format_type(a.atttypid, NULL) AS type, a.attstorage
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
 WHERE c.relnamespace IN ('app'::regnamespace, 'oth'::regnamespace)
   AND c.relkind IN ('r', 'p', 'm', 'c') AND a.attnum > 0 AND NOT a.attisdropped
   AND a.attname NOT IN ('id', 'k', 'x', 'what')
 ORDER BY c.oid::regclass::text COLLATE "C", a.attnum;
-- new columns, of the type and of an old domain over it
CREATE TABLE app.after (f ext.cuckoofilter, g app.d2);
SELECT attname, attstorage FROM pg_attribute
 WHERE attrelid = 'app.after'::regclass AND attnum > 0 ORDER BY attnum;

-- the value compressed under 1.2 is read whole (not by slices) and right
SET cuckoo.slice_read_max_keys = 2147483647;
SELECT pg_column_size(f) < octet_length(f::bytea) AS compressed,
       (SELECT count(*) FROM generate_series(1, 100) x WHERE ext.cuckoo_contains(f, x::bigint)) AS found
  FROM app.plain WHERE id = 1;
RESET cuckoo.slice_read_max_keys;

\c :regdb
DROP DATABASE rv_upd;
DROP ROLE regress_rv_owner;
DROP ROLE regress_rv_other;
