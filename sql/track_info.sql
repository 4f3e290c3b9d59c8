-- cuckoo_store_info's trackings (extension 1.4): the (table, column) pairs a
-- store is kept in step with, as schema.table.column (format's %I, so
-- parse_ident splits them back), sorted; a partitioned table once, by its
-- root; '{}' when there are none.  Also: the same C function called through
-- 1.3's definition (7 columns, a database not yet updated after the library
-- was) and through a definition it cannot serve.

-- tistate(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION tistate(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;

CREATE SCHEMA ti;
CREATE SCHEMA "ti Odd";
SELECT cuckoo_store_create('ti.s', 10000) IS NOT NULL AS created;
SELECT cuckoo_store_create('ti.other', 1000) IS NOT NULL AS created;

-- the columns of cuckoo_store_info, in order
SELECT proargnames, proallargtypes::regtype[] FROM pg_proc WHERE oid = 'cuckoo_store_info(regclass)'::regprocedure;

-- no tracking yet: an empty array, not NULL
SELECT trackings, trackings IS NOT NULL AS not_null, cardinality(trackings) FROM cuckoo_store_info('ti.s');

-- two columns of one table and a column of a table with quoted names
CREATE TABLE ti.a (id int, k int8, k2 int8);
INSERT INTO ti.a SELECT g, g, g + 100000 FROM generate_series(1, 100) g;
CREATE TABLE "ti Odd"."T ""q""" ("my col" int8);
INSERT INTO "ti Odd"."T ""q""" VALUES (7), (NULL);
SELECT cuckoo_store_track('ti.s', 'ti.a', 'k2');
SELECT cuckoo_store_track('ti.s', 'ti.a', 'k');
SELECT cuckoo_store_track('ti.s', '"ti Odd"."T ""q"""', 'my col');
SELECT items, trackings FROM cuckoo_store_info('ti.s');
-- each element splits back into schema, table, column
SELECT t, parse_ident(t) AS parts, cardinality(parse_ident(t)) AS n
FROM cuckoo_store_info('ti.s'), unnest(trackings) t;
-- the same as cuckoo_store_verify's count and the tracking table's rows
SELECT cardinality(i.trackings) = v.trackings AS same_as_verify,
       cardinality(i.trackings) = (SELECT count(*) FROM cuckoo_store_tracking WHERE store = 'ti.s'::regclass) AS same_as_table
FROM cuckoo_store_info('ti.s') i, cuckoo_store_verify('ti.s') v;
-- qualified whatever the search_path
SET search_path = ti, public;
SELECT trackings FROM cuckoo_store_info('s');
RESET search_path;
-- another store lists only its own
SELECT trackings FROM cuckoo_store_info('ti.other');

-- a partitioned table of two levels: its root once, not its partitions,
-- also after a partition is created below it
CREATE TABLE ti.p (id int, v int8) PARTITION BY RANGE (id);
CREATE TABLE ti.p1 PARTITION OF ti.p FOR VALUES FROM (0) TO (100);
CREATE TABLE ti.p2 PARTITION OF ti.p FOR VALUES FROM (100) TO (200) PARTITION BY RANGE (id);
CREATE TABLE ti.p2a PARTITION OF ti.p2 FOR VALUES FROM (100) TO (150);
INSERT INTO ti.p SELECT g, g * 3 FROM generate_series(0, 149) g;
SELECT cuckoo_store_track('ti.other', 'ti.p', 'v');
CREATE TABLE ti.p2b PARTITION OF ti.p2 FOR VALUES FROM (150) TO (200);
INSERT INTO ti.p VALUES (160, 480);
SELECT items, trackings FROM cuckoo_store_info('ti.other');
SELECT missing, rows, items, trackings FROM cuckoo_store_verify('ti.other');

-- a table's rename follows (the tracking holds its OID); a column's is
-- the name the tracking holds, which writes look for (they fail until the
-- column has it again: track.sql)
ALTER TABLE ti.a RENAME TO a_renamed;
ALTER TABLE ti.a_renamed RENAME COLUMN k2 TO "K two";
SELECT trackings FROM cuckoo_store_info('ti.s');
ALTER TABLE ti.a_renamed RENAME COLUMN "K two" TO k2;

-- after untrack: the pair is gone, the values stay
SELECT cuckoo_store_untrack('ti.s', 'ti.a_renamed', 'k');
SELECT items, trackings FROM cuckoo_store_info('ti.s');
-- a dropped tracked column is gone too (the event trigger)
ALTER TABLE "ti Odd"."T ""q""" DROP COLUMN "my col";
SELECT trackings FROM cuckoo_store_info('ti.s');
SELECT cuckoo_store_untrack('ti.s', 'ti.a_renamed', 'k2');
SELECT trackings FROM cuckoo_store_info('ti.s');
SELECT cuckoo_store_untrack('ti.other', 'ti.p', 'v');
SELECT trackings FROM cuckoo_store_info('ti.other');

-- 1.3's definition of cuckoo_store_info, the same C function: its 7 columns,
-- the same answers as the 1.4 definition's first 7
SELECT cuckoo_store_track('ti.s', 'ti.a_renamed', 'k');
CREATE FUNCTION cuckoo_store_info_13(store regclass, OUT items bigint, OUT bytes bigint,
    OUT segments int, OUT fpr float8, OUT value_type text, OUT capacity bigint,
    OUT expected_fpr float8)
  RETURNS record AS '$libdir/cuckoo', 'cuckoo_store_info' LANGUAGE C STABLE STRICT;
-- expected_fpr is a sum over the segments in the order the heap gives them,
-- so its last digit can vary: printed to 12 significant digits
SELECT items, bytes, segments, fpr, value_type, capacity,
       to_char(expected_fpr, '9.99999999999EEEE') AS expected_fpr
FROM cuckoo_store_info_13('ti.s');
SELECT (SELECT row(items, bytes, segments, fpr, value_type, capacity, expected_fpr) FROM cuckoo_store_info_13('ti.s'))
     = (SELECT row(items, bytes, segments, fpr, value_type, capacity, expected_fpr) FROM cuckoo_store_info('ti.s'))
       AS same_answers;
DROP FUNCTION cuckoo_store_info_13(regclass);
-- a definition it cannot serve: an unknown column, a known one of another type
CREATE FUNCTION cuckoo_store_info_bad(store regclass, OUT items bigint, OUT extra int)
  RETURNS record AS '$libdir/cuckoo', 'cuckoo_store_info' LANGUAGE C STABLE STRICT;
SELECT tistate($$SELECT cuckoo_store_info_bad('ti.s')$$);
DROP FUNCTION cuckoo_store_info_bad(regclass);
CREATE FUNCTION cuckoo_store_info_bad(store regclass, OUT items bigint, OUT trackings name[])
  RETURNS record AS '$libdir/cuckoo', 'cuckoo_store_info' LANGUAGE C STABLE STRICT;
SELECT tistate($$SELECT cuckoo_store_info_bad('ti.s')$$);
DROP FUNCTION cuckoo_store_info_bad(regclass);

-- dropping the store deletes its trackings
DROP TABLE ti.s;
SELECT count(*) AS trackings_left FROM cuckoo_store_tracking;

DROP SCHEMA ti CASCADE;
DROP SCHEMA "ti Odd" CASCADE;
DROP FUNCTION tistate(text);
