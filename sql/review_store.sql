-- Review (issue 21, stored filters): names that need quoting, schemas off
-- search_path, damaged header and segment rows, relations that are not
-- stores, row-level security, and changes and probes in one statement.

-- rvs_state(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION rvs_state(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;
-- rvs_value(sql): the statement's first value as text, or its error
CREATE FUNCTION rvs_value(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  EXECUTE q INTO r;
  RETURN r;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- names: quotes, dots and semicolons inside quoted identifiers, a schema
-- that is not on search_path; the store is found by its OID afterwards
CREATE SCHEMA "rv.s""q";
SELECT cuckoo_store_create('"rv.s""q"."x""; DROP TABLE rv_victim; --"', 100)::text AS created;
SELECT cuckoo_store_create('"rv.s""q"."a.b"', 100)::text AS created;
CREATE TABLE rv_victim (i int);
SELECT cuckoo_store_add('"rv.s""q"."x""; DROP TABLE rv_victim; --"', 1),
       cuckoo_store_add_array('"rv.s""q"."a.b"', ARRAY[1, 2]);
SELECT cuckoo_store_contains('"rv.s""q"."x""; DROP TABLE rv_victim; --"', 1) AS x1,
       cuckoo_store_contains_array('"rv.s""q"."a.b"', ARRAY[1, 2]) AS ab;
SELECT relname FROM pg_class WHERE relnamespace = '"rv.s""q"'::regnamespace AND relkind = 'r' ORDER BY 1;
SELECT to_regclass('rv_victim') IS NOT NULL AS victim_still_there;
-- bad names: too many parts, another database, empty
SELECT rvs_state($$SELECT cuckoo_store_create('a.b.c.d', 10)$$);
SELECT rvs_state($$SELECT cuckoo_store_create('otherdb.public.x', 10)$$);
SELECT rvs_state($$SELECT cuckoo_store_create('', 10)$$);
-- renamed schema between calls: the statements are prepared again
ALTER SCHEMA "rv.s""q" RENAME TO "rv 2";
SELECT cuckoo_store_contains('"rv 2"."a.b"', 2), cuckoo_store_add_if_absent('"rv 2"."a.b"', 3);
-- dropped and created again under the same name: the new table is used
DROP TABLE "rv 2"."a.b";
SELECT cuckoo_store_create('"rv 2"."a.b"', 100)::text AS created;
SELECT cuckoo_store_contains_array('"rv 2"."a.b"', ARRAY[1, 2, 3]) AS fresh,
       cuckoo_store_remove('"rv 2"."a.b"', 1) AS removed;

-- a change and a probe of a new store in one statement: the remove sees
-- the add made before it in the same statement (both are volatile changes)
SELECT cuckoo_store_create('"rv 2".same', 100)::text AS created;
SELECT cuckoo_store_add('"rv 2".same', 5) AS added,
       cuckoo_store_remove('"rv 2".same', 5) AS removed;
SELECT items FROM cuckoo_store_info('"rv 2".same');
SELECT cuckoo_store_add_array('"rv 2".same', ARRAY[6, 7]) AS added,
       cuckoo_store_remove_array('"rv 2".same', ARRAY[6, 7, 8]) AS removed;
SELECT items FROM cuckoo_store_info('"rv 2".same');

-- damaged header rows: each a clear error (22023), never a crash
SELECT cuckoo_store_create('"rv 2".h', 2000, 0.01)::text AS created;
SELECT cuckoo_store_add_array('"rv 2".h', ARRAY(SELECT generate_series(1, 500)));
SELECT segments FROM cuckoo_store_info('"rv 2".h');
UPDATE "rv 2".h SET segments = 0 WHERE segment = -1;
SELECT rvs_state($$SELECT cuckoo_store_contains('"rv 2".h', 1)$$);
UPDATE "rv 2".h SET segments = -7 WHERE segment = -1;
SELECT rvs_state($$SELECT cuckoo_store_add('"rv 2".h', 1)$$);
UPDATE "rv 2".h SET segments = 2147483647 WHERE segment = -1;
SELECT rvs_state($$SELECT cuckoo_store_contains_array('"rv 2".h', ARRAY(SELECT generate_series(1, 50)))$$);
SELECT rvs_state($$SELECT cuckoo_store_info('"rv 2".h')$$);
UPDATE "rv 2".h SET segments = 1 WHERE segment = -1;
SELECT rvs_state($$SELECT cuckoo_store_info('"rv 2".h')$$);
UPDATE "rv 2".h SET segments = (SELECT count(*) - 1 FROM "rv 2".h WHERE chunk = 0) WHERE segment = -1;
-- fpr and capacity out of range are reported as stored
UPDATE "rv 2".h SET fpr = 'NaN', capacity = -1 WHERE segment = -1;
SELECT items, fpr, capacity FROM cuckoo_store_info('"rv 2".h');
-- a header filter of another family: 42804 for the store's own values
UPDATE "rv 2".h SET bytes = cuckoo_add(cuckoo_create(10), 'x'::text)::bytea WHERE segment = -1;
SELECT rvs_state($$SELECT cuckoo_store_contains('"rv 2".h', 1)$$);
SELECT rvs_state($$SELECT cuckoo_store_add('"rv 2".h', 1)$$);
UPDATE "rv 2".h SET bytes = cuckoo_create(10)::bytea WHERE segment = -1;
-- the header's family is unset again: the segments' family still decides
SELECT rvs_state($$SELECT cuckoo_store_add('"rv 2".h', 'x'::text)$$);
SELECT count(*) FILTER (WHERE NOT a) AS false_negatives
  FROM unnest(cuckoo_store_contains_array('"rv 2".h', ARRAY(SELECT generate_series(1, 500)))) a;
-- a segment replaced by a valid filter of another shape (fixed, b = 2) or
-- another family: the other shape is a filter like any other, the other
-- family 42804
UPDATE "rv 2".h SET bytes = cuckoo_add(cuckoo_create(50, 0.01, 2), 1)::bytea WHERE segment = 0;
SELECT rvs_state($$SELECT cuckoo_store_add_array('"rv 2".h', ARRAY(SELECT generate_series(1, 500)))$$);
UPDATE "rv 2".h SET bytes = cuckoo_add(cuckoo_create(50), 'y'::text)::bytea WHERE segment = 1;
SELECT rvs_state($$SELECT cuckoo_store_contains_array('"rv 2".h', ARRAY(SELECT generate_series(1, 500)))$$);
SELECT rvs_state($$SELECT cuckoo_store_remove_array('"rv 2".h', ARRAY(SELECT generate_series(1, 500)))$$);

-- two rows for one segment (its primary key dropped, an empty copy of a
-- segment inserted): a clear error (XX001, its chunk 0 twice) for probes and changes, rather
-- than an answer from one of the two rows
ALTER TABLE "rv 2".same DROP CONSTRAINT same_pkey;
SELECT cuckoo_store_add_array('"rv 2".same', ARRAY(SELECT generate_series(100, 200)));
INSERT INTO "rv 2".same (segment, chunk, bytes) SELECT segment, chunk, cuckoo_create(10)::bytea FROM "rv 2".same WHERE segment >= 0;
-- (the original rows rewritten, so that a scan meets the empty copies first)
UPDATE "rv 2".same SET bytes = bytes WHERE segment >= 0 AND (cuckoo_info(bytes::cuckoofilter)).items > 0;
SELECT rvs_value($$SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('"rv 2".same', g))
                   FROM generate_series(100, 200) g$$) AS false_negatives;
SELECT rvs_value($$SELECT count(*) FILTER (WHERE NOT a)
                   FROM unnest(cuckoo_store_contains_array('"rv 2".same', ARRAY(SELECT generate_series(100, 200)))) a$$)
       AS false_negatives;
SELECT rvs_state($$SELECT cuckoo_store_add('"rv 2".same', 9)$$);
SELECT rvs_state($$SELECT cuckoo_store_remove_array('"rv 2".same', ARRAY[100, 101])$$);

-- relations that are not ordinary tables: 42809
CREATE TABLE "rv 2".parted (segment int4, chunk int4, bytes bytea NOT NULL, fpr float8, capacity int8,
                            segments int4) PARTITION BY RANGE (segment);
CREATE VIEW "rv 2".v AS SELECT * FROM "rv 2".h;
CREATE FUNCTION rv_instead() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER rv_instead INSTEAD OF UPDATE ON "rv 2".v FOR EACH ROW EXECUTE FUNCTION rv_instead();
CREATE MATERIALIZED VIEW "rv 2".mv AS SELECT * FROM "rv 2".same;
SELECT rvs_state($$SELECT cuckoo_store_contains('"rv 2".parted', 1)$$);
SELECT rvs_state($$SELECT cuckoo_store_add('"rv 2".v', 1)$$);
SELECT rvs_state($$SELECT cuckoo_store_info('"rv 2".mv')$$);

-- triggers on a store run as for a plain UPDATE, as the caller: one that
-- calls back into the same store, on the row being changed, is refused by
-- PostgreSQL (27000); after the change, the row is changed once more
SELECT cuckoo_store_create('"rv 2".trg', 100)::text AS created;
CREATE FUNCTION rv_trg_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.segment >= 0 AND current_setting('rv.trg', true) = 'before' THEN
    PERFORM set_config('rv.trg', '', true);
    PERFORM cuckoo_store_add('"rv 2".trg', 1000);
  END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION rv_trg_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.segment >= 0 AND current_setting('rv.trg', true) = 'after' THEN
    PERFORM set_config('rv.trg', '', true);
    PERFORM cuckoo_store_add('"rv 2".trg', 2000);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER b BEFORE UPDATE ON "rv 2".trg FOR EACH ROW EXECUTE FUNCTION rv_trg_before();
CREATE TRIGGER a AFTER UPDATE ON "rv 2".trg FOR EACH ROW EXECUTE FUNCTION rv_trg_after();
SELECT cuckoo_store_add('"rv 2".trg', 1);
SELECT set_config('rv.trg', 'before', false);
SELECT rvs_state($$SELECT cuckoo_store_add('"rv 2".trg', 2)$$);
SELECT set_config('rv.trg', 'after', false);
SELECT cuckoo_store_add('"rv 2".trg', 3);
SELECT cuckoo_store_contains_array('"rv 2".trg', ARRAY[1, 2, 3, 1000, 2000]) AS found,
       (SELECT items FROM cuckoo_store_info('"rv 2".trg')) AS items;
RESET rv.trg;

-- row-level security: a role sees the store through the policies, as with
-- plain SQL (a hidden segment is an error, never a false answer)
SELECT cuckoo_store_create('"rv 2".rls', 2000)::text AS created;
SELECT cuckoo_store_add_array('"rv 2".rls', ARRAY(SELECT generate_series(1, 100)));
CREATE ROLE regress_rv_reader;
GRANT USAGE ON SCHEMA "rv 2" TO regress_rv_reader;
GRANT SELECT, UPDATE ON "rv 2".rls TO regress_rv_reader;
ALTER TABLE "rv 2".rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY sel ON "rv 2".rls FOR SELECT USING (segment <> 1);
CREATE POLICY upd ON "rv 2".rls FOR UPDATE USING (segment <> 0);
SET ROLE regress_rv_reader;
SELECT count(*) AS visible_rows FROM "rv 2".rls;
SELECT rvs_state($$SELECT count(*) FROM generate_series(1, 100) g WHERE cuckoo_store_contains('"rv 2".rls', g)$$);
SELECT rvs_state($$SELECT cuckoo_store_contains_array('"rv 2".rls', ARRAY(SELECT generate_series(1, 100)))$$);
SELECT rvs_state($$SELECT cuckoo_store_add_array('"rv 2".rls', ARRAY(SELECT generate_series(101, 200)))$$);
RESET ROLE;
SELECT items FROM cuckoo_store_info('"rv 2".rls');
-- a policy that depends on a setting: one call site of
-- cuckoo_store_contains, probing again after the setting changed under an
-- unchanged snapshot, must not answer from the segment it read before
SELECT cuckoo_store_create('"rv 2".rls2', 3000)::text AS created;
SELECT cuckoo_store_add_array('"rv 2".rls2', ARRAY(SELECT generate_series(1, 100)));
GRANT SELECT ON "rv 2".rls2 TO regress_rv_reader;
ALTER TABLE "rv 2".rls2 ENABLE ROW LEVEL SECURITY;
CREATE POLICY sel ON "rv 2".rls2 FOR SELECT
  USING (segment <> 1 OR current_setting('rv.hide', true) IS DISTINCT FROM 'yes');
SELECT min(g) AS k FROM generate_series(1, 100) g
 WHERE cuckoo_contains((SELECT bytes::cuckoofilter FROM "rv 2".rls2 WHERE segment = 1), g)
   AND NOT cuckoo_contains((SELECT bytes::cuckoofilter FROM "rv 2".rls2 WHERE segment = 0), g) \gset
CREATE FUNCTION pg_temp.rv_probe_twice(k int) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  out text[] := '{}';
  r bool;
BEGIN
  FOR i IN 1..2 LOOP
    PERFORM set_config('rv.hide', CASE i WHEN 1 THEN 'no' ELSE 'yes' END, true);
    out := out || (SELECT count(*) FROM "rv 2".rls2 WHERE segment = 1)::text;
    BEGIN
      r := cuckoo_store_contains('"rv 2".rls2', k);
      out := out || r::text;
    EXCEPTION WHEN OTHERS THEN
      out := out || (SQLSTATE || ': ' || SQLERRM);
    END;
  END LOOP;
  RETURN out;
END $$;
SET ROLE regress_rv_reader;
SELECT pg_temp.rv_probe_twice(:k);
RESET ROLE;
REVOKE ALL ON "rv 2".rls FROM regress_rv_reader;
REVOKE ALL ON "rv 2".rls2 FROM regress_rv_reader;
REVOKE ALL ON SCHEMA "rv 2" FROM regress_rv_reader;
DROP ROLE regress_rv_reader;

DROP SCHEMA "rv 2" CASCADE;
DROP TABLE rv_victim;
DROP FUNCTION rv_instead(), rv_trg_before(), rv_trg_after();
