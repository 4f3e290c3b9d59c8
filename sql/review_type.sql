-- Review (issue 21): the type's output, send, comparison and hash functions
-- refuse a value that is not a valid filter header (data_corrupted, XX001)
-- instead of printing, sending, comparing or hashing its bytes as a filter.
-- (A superuser's function that labels any bytes a cuckoofilter: the only way
-- to make such a value; an aggregate's internal state escaping would be
-- another.)

-- rv_state(sql): the SQLSTATE and message of a statement that fails, 'ok' if not
CREATE FUNCTION rv_state(q text) RETURNS text LANGUAGE sql AS $$ SELECT public.regress_state(q) $$;
CREATE FUNCTION pg_temp.rv_unchecked(bytea) RETURNS cuckoofilter
  LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';

CREATE TABLE rv_t (name text, f cuckoofilter);
INSERT INTO rv_t VALUES ('good', cuckoo_add(cuckoo_create(100, 0.01), 1::bigint));
-- bad magic, too short for a header, an unknown format version, a header
-- whose bucket count does not match the length
INSERT INTO rv_t SELECT 'magic', pg_temp.rv_unchecked(set_byte(f::bytea, 0, 0)) FROM rv_t WHERE name = 'good';
INSERT INTO rv_t SELECT 'short', pg_temp.rv_unchecked('\x0102'::bytea);
INSERT INTO rv_t SELECT 'version', pg_temp.rv_unchecked(set_byte(f::bytea, 4, 9)) FROM rv_t WHERE name = 'good';
INSERT INTO rv_t SELECT 'buckets', pg_temp.rv_unchecked(set_byte(f::bytea, 17, get_byte(f::bytea, 17) # 1)) FROM rv_t WHERE name = 'good';

-- a valid value: every function still works
SELECT rv_state($$SELECT f::text FROM rv_t WHERE name = 'good'$$) AS out,
       rv_state($$SELECT cuckoo_send(f) FROM rv_t WHERE name = 'good'$$) AS send,
       (SELECT a.f = b.f AND NOT a.f <> b.f AND a.f <= b.f AND a.f >= b.f AND NOT a.f < b.f
               AND NOT a.f > b.f AND cuckoo_cmp(a.f, b.f) = 0
               AND cuckoo_hash_filter(a.f) = cuckoo_hash_filter(b.f)
               AND cuckoo_hash_filter_extended(a.f, 7) = cuckoo_hash_filter_extended(b.f, 7)
          FROM rv_t a, rv_t b WHERE a.name = 'good' AND b.name = 'good') AS compare;

-- every other value: refused by each function, alone or beside a valid one
SELECT name,
       rv_state(format($$SELECT f::text FROM rv_t WHERE name = %L$$, name)) AS out,
       rv_state(format($$SELECT cuckoo_send(f) FROM rv_t WHERE name = %L$$, name)) AS send
  FROM rv_t WHERE name <> 'good' ORDER BY name;
SELECT name,
       rv_state(format($$SELECT a.f = b.f FROM rv_t a, rv_t b WHERE a.name = 'good' AND b.name = %L$$, name)) AS eq,
       rv_state(format($$SELECT b.f <> a.f FROM rv_t a, rv_t b WHERE a.name = 'good' AND b.name = %L$$, name)) AS ne
  FROM rv_t WHERE name <> 'good' ORDER BY name;
SELECT name, rv_state(format($$SELECT a.f %s b.f FROM rv_t a, rv_t b WHERE a.name = 'good' AND b.name = %L$$, op, name)) AS r
  FROM rv_t, unnest(ARRAY['<', '<=', '>', '>=']) op WHERE name = 'magic' ORDER BY op;
SELECT rv_state($$SELECT cuckoo_cmp(f, f) FROM rv_t WHERE name = 'version'$$) AS cmp,
       rv_state($$SELECT cuckoo_hash_filter(f) FROM rv_t WHERE name = 'short'$$) AS hash,
       rv_state($$SELECT cuckoo_hash_filter_extended(f, 1) FROM rv_t WHERE name = 'buckets'$$) AS hash_extended;
-- through the operator classes: a sort, a hashed grouping
SET enable_hashagg = off;
SELECT rv_state($$SELECT f FROM rv_t WHERE name IN ('good', 'magic') ORDER BY f$$) AS sorted;
RESET enable_hashagg;
SET enable_sort = off;
SELECT rv_state($$SELECT count(*) FROM rv_t WHERE name IN ('good', 'magic') GROUP BY f$$) AS grouped;
RESET enable_sort;
-- the damaged rows can still be removed and read as bytes
SELECT name, octet_length(f::bytea) FROM rv_t WHERE name <> 'good' ORDER BY name;
DELETE FROM rv_t WHERE name <> 'good';
SELECT count(*) FROM rv_t GROUP BY f;
DROP TABLE rv_t;
