-- The cuckoo_hashset type (1.1): the state of cuckoo_agg(value [, fpr]) over
-- a concrete type, which can travel between nodes as text or binary.
\set VERBOSITY default

-- The state itself, from an aggregate without the final function.
CREATE AGGREGATE hashset_of(bigint) (SFUNC = cuckoo_hashset_trans, STYPE = cuckoo_hashset,
                                     COMBINEFUNC = cuckoo_hashset_combine);
CREATE AGGREGATE hashset_of(text, float8) (SFUNC = cuckoo_hashset_trans, STYPE = cuckoo_hashset,
                                           COMBINEFUNC = cuckoo_hashset_combine);
CREATE AGGREGATE hashset_merge(cuckoo_hashset) (SFUNC = cuckoo_hashset_combine, STYPE = cuckoo_hashset);
CREATE AGGREGATE hashset_union(cuckoo_hashset) (SFUNC = cuckoo_hashset_combine, STYPE = cuckoo_hashset,
                                                FINALFUNC = cuckoo_hashset_final);

CREATE FUNCTION hashset_of_hex() RETURNS text LANGUAGE sql AS
  $$SELECT encode(decode(hashset_of(g)::text, 'base64'), 'hex') FROM generate_series(1, 3) g$$;

-- Text form: base64 of magic "CHS1", kind, zero, type tag, fpr, then the
-- distinct hashes ascending (little-endian).
SELECT hashset_of(g) FROM generate_series(1, 2) g;
SELECT encode(decode(hashset_of(g)::text, 'base64'), 'hex') FROM generate_series(1, 2) g;
SELECT cuckoo_hashset_count(hashset_of(g % 1000)) FROM generate_series(1, 100000) g;

-- The final function builds the filter cuckoo_agg builds, byte for byte, from
-- the state as it is, after a text round trip, and after merging states.
CREATE TABLE hs AS SELECT g % 7 AS part, hashset_of(g) AS s, hashset_of(md5(g::text), 0.001) AS t
FROM generate_series(1, 50000) g GROUP BY g % 7;
SELECT (SELECT cuckoo_agg(g)::bytea FROM generate_series(1, 50000) g)
         = (SELECT cuckoo_hashset_final(hashset_merge(s)::text::cuckoo_hashset)::bytea FROM hs) AS same_via_text,
       (SELECT cuckoo_agg(g)::bytea FROM generate_series(1, 50000) g)
         = (SELECT hashset_union(s::text::cuckoo_hashset)::bytea FROM hs) AS same_merged,
       (SELECT cuckoo_agg(md5(g::text), 0.001)::bytea FROM generate_series(1, 50000) g)
         = (SELECT hashset_union(t)::bytea FROM hs) AS same_text_fpr;

-- COPY in text and binary format round-trips states exactly.
COPY hs TO '/tmp/cuckoo_regress_hs.txt';
COPY hs TO '/tmp/cuckoo_regress_hs.bin' WITH (FORMAT binary);
CREATE TABLE hs_text (LIKE hs);
CREATE TABLE hs_bin (LIKE hs);
COPY hs_text FROM '/tmp/cuckoo_regress_hs.txt';
COPY hs_bin FROM '/tmp/cuckoo_regress_hs.bin' WITH (FORMAT binary);
SELECT count(*) AS parts,
       bool_and(a.s::text = t.s::text AND a.t::text = t.t::text) AS text_ok,
       bool_and(a.s::text = b.s::text AND a.t::text = b.t::text) AS binary_ok
FROM hs a JOIN hs_text t USING (part) JOIN hs_bin b USING (part);

-- An empty set (only possible from text or binary input) builds an empty filter.
SELECT items, buckets, value_type FROM cuckoo_info(cuckoo_hashset_final(
  encode(decode('4348533101000000000000007b14ae47e17a843f', 'hex'), 'base64')::cuckoo_hashset));
SELECT cuckoo_hashset_count(encode(decode('4348533101000000000000007b14ae47e17a843f', 'hex'), 'base64')::cuckoo_hashset);

-- Every one-byte change of a valid state is either rejected or read back as
-- exactly the value given (nothing is accepted and then altered).
DO $$
DECLARE
  good bytea := decode(hashset_of_hex(), 'hex');
  b bytea; v cuckoo_hashset; x int; accepted int := 0; rejected int := 0; altered int := 0;
BEGIN
  FOR pos IN 0 .. length(good) - 1 LOOP
    FOREACH x IN ARRAY ARRAY[0, 1, 127, 128, 255] LOOP
      CONTINUE WHEN get_byte(good, pos) = x;
      b := set_byte(good, pos, x);
      BEGIN
        v := encode(b, 'base64')::cuckoo_hashset;
        accepted := accepted + 1;
        IF decode(v::text, 'base64') <> b THEN altered := altered + 1; END IF;
      EXCEPTION WHEN invalid_text_representation THEN
        rejected := rejected + 1;
      END;
    END LOOP;
  END LOOP;
  RAISE NOTICE 'accepted %, rejected %, accepted but altered %', accepted, rejected, altered;
END $$;

-- Mixing value types is refused.
SELECT hashset_union(s) FROM (SELECT s FROM hs UNION ALL SELECT t FROM hs) x;

-- Malformed text input (22P02): each a field away from a valid state.
-- valid: 43485331 0100 0000 00000000 7b14ae47e17a843f + hashes
SELECT encode(decode(h, 'hex'), 'base64')::cuckoo_hashset IS NOT NULL AS valid
FROM (VALUES ('4348533101000000000000007b14ae47e17a843f0100000000000000ffffffffffffff7f')) v(h);
CREATE TABLE hs_bad (why text, h text);
INSERT INTO hs_bad VALUES
  ('empty',           ''),
  ('short header',    '434853310100000000000000'),
  ('partial hash',    '4348533101000000000000007b14ae47e17a843f01000000'),
  ('bad magic',       '4348533201000000000000007b14ae47e17a843f'),
  ('kind any',        '4348533100000000000000007b14ae47e17a843f'),
  ('kind 12',         '434853310c000000000000007b14ae47e17a843f'),
  ('reserved',        '4348533101000100000000007b14ae47e17a843f'),
  ('tag not other',   '4348533101000000010000007b14ae47e17a843f'),
  ('other no tag',    '434853310b000000000000007b14ae47e17a843f'),
  ('fpr 0',           '4348533101000000000000000000000000000000'),
  ('fpr 1',           '434853310100000000000000000000000000f03f'),
  ('fpr NaN',         '434853310100000000000000000000000000f87f'),
  ('fpr 1e-15',       '4348533101000000000000001656e79eaf03d23c'),
  ('descending',      '4348533101000000000000007b14ae47e17a843f02000000000000000100000000000000'),
  ('duplicate',       '4348533101000000000000007b14ae47e17a843f01000000000000000100000000000000');
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM hs_bad LOOP
    BEGIN
      PERFORM encode(decode(r.h, 'hex'), 'base64')::cuckoo_hashset;
      RAISE NOTICE '%: accepted', r.why;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE '%: % %', r.why, SQLSTATE, SQLERRM;
    END;
  END LOOP;
END $$;
SELECT 'not base64!'::cuckoo_hashset;
SELECT ' Q0hTMQ=='::cuckoo_hashset;

-- Malformed binary input (22P03): the same values through binary COPY (the
-- binary form of bytea is its bytes, which cuckoo_hashset_recv then reads).
CREATE TABLE hs_sink (s cuckoo_hashset);
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM hs_bad LOOP
    EXECUTE format('COPY (SELECT decode(%L, ''hex'')) TO ''/tmp/cuckoo_regress_hs_bad.bin'' WITH (FORMAT binary)', r.h);
    BEGIN
      COPY hs_sink FROM '/tmp/cuckoo_regress_hs_bad.bin' WITH (FORMAT binary);
      RAISE NOTICE '%: accepted', r.why;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE '%: % %', r.why, SQLSTATE, SQLERRM;
    END;
  END LOOP;
END $$;
SELECT count(*) AS accepted FROM hs_sink;
