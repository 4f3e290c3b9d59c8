-- The cuckoofilter type: text form, binary form, bytea casts, COPY, and the
-- rejection of malformed values on every way in.
\set VERBOSITY terse

-- Text form: base64 of the binary form; the empty filter of capacity 1.
SELECT cuckoo_create(1);
SELECT cuckoo_create(1)::text::cuckoofilter::text = cuckoo_create(1)::text AS text_round_trip;

-- A filter with items survives text and bytea round trips byte for byte.
CREATE TABLE io (id int, f cuckoofilter);
INSERT INTO io SELECT 1, cuckoo_add_array(cuckoo_create(1000), array_agg(g)) FROM generate_series(1, 500) g;
INSERT INTO io SELECT 2, cuckoo_agg(g::text) FROM generate_series(1, 300) g;
INSERT INTO io VALUES (3, cuckoo_create(50, semisort => true, fingerprint_bits => 13));
SELECT id, f::text::cuckoofilter::bytea = f::bytea AS text_ok,
       f::bytea::cuckoofilter::bytea = f::bytea AS bytea_ok,
       octet_length(f::bytea) AS bytes, length(f::text) AS text_chars
FROM io ORDER BY id;

-- The binary form starts with the magic "CKOO" and format version 1.
SELECT substring(cuckoo_create(1)::bytea from 1 for 5) AS header_start;

-- COPY in text and binary format round-trips every filter exactly.
COPY io TO '/tmp/cuckoo_regress_io.txt';
COPY io TO '/tmp/cuckoo_regress_io.bin' WITH (FORMAT binary);
CREATE TABLE io_text (LIKE io);
CREATE TABLE io_bin (LIKE io);
COPY io_text FROM '/tmp/cuckoo_regress_io.txt';
COPY io_bin FROM '/tmp/cuckoo_regress_io.bin' WITH (FORMAT binary);
SELECT a.id, a.f::bytea = t.f::bytea AS text_copy_ok, a.f::bytea = b.f::bytea AS binary_copy_ok
FROM io a JOIN io_text t USING (id) JOIN io_bin b USING (id) ORDER BY id;
SELECT count(*) AS all_found FROM generate_series(1, 500) g, io_bin WHERE id = 1 AND cuckoo_contains(f, g);

-- Binary COPY of garbage is rejected by the receive function (bytea's binary
-- form is its raw bytes, so a bytea column can carry any payload).
CREATE TABLE garbage (b bytea);
INSERT INTO garbage VALUES (set_byte((SELECT f::bytea FROM io WHERE id = 1), 60, 255));
COPY garbage TO '/tmp/cuckoo_regress_garbage.bin' WITH (FORMAT binary);
CREATE TABLE sink (f cuckoofilter);
COPY sink FROM '/tmp/cuckoo_regress_garbage.bin' WITH (FORMAT binary);
SELECT count(*) AS rows_loaded FROM sink;

-- Malformed text: not base64.
SELECT ''::cuckoofilter;
SELECT 'abc'::cuckoofilter;
SELECT 'Q0tPTw=!'::cuckoofilter;
SELECT ' Q0tPTw=='::cuckoofilter;
SELECT 'Q0tPTw== '::cuckoofilter;
SELECT 'Q0tP Tw=='::cuckoofilter;
SELECT 'Q0tPTw=A'::cuckoofilter;
SELECT 'Q0tPTx=='::cuckoofilter;
SELECT '\x434b4f4f'::cuckoofilter;
-- Malformed text: valid base64 of a bad value.
SELECT 'Q0tPTw=='::cuckoofilter;
SELECT 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'::cuckoofilter;

-- Malformed binary values, each one byte or field away from a valid filter
-- (b: a valid filter with items, e: an empty one).  Offsets: docs/FORMAT.md.
CREATE TABLE good AS
SELECT f::bytea AS b, cuckoo_create(10)::bytea AS e FROM io WHERE id = 1;
SELECT (SELECT substring(b from 1 for 47) FROM good)::cuckoofilter;            -- shorter than the header
SELECT (SELECT substring(b from 1 for octet_length(b) - 1) FROM good)::cuckoofilter;  -- truncated
SELECT (SELECT b || '\x00'::bytea FROM good)::cuckoofilter;                     -- one byte too many
SELECT (SELECT set_byte(b, 0, 0) FROM good)::cuckoofilter;                      -- magic
SELECT (SELECT set_byte(b, 4, 2) FROM good)::cuckoofilter;                      -- version 2 header over a version-1 body
SELECT (SELECT set_byte(b, 4, 0) FROM good)::cuckoofilter;                      -- version 0
SELECT (SELECT set_byte(b, 5, 3) FROM good)::cuckoofilter;                      -- bucket size 3
SELECT (SELECT set_byte(b, 5, 16) FROM good)::cuckoofilter;                     -- bucket size 16
SELECT (SELECT set_byte(b, 6, 3) FROM good)::cuckoofilter;                      -- fingerprint bits 3
SELECT (SELECT set_byte(b, 6, 40) FROM good)::cuckoofilter;                     -- fingerprint bits 40
SELECT (SELECT set_byte(b, 6, 11) FROM good)::cuckoofilter;                     -- length no longer matches
SELECT (SELECT set_byte(b, 7, 4) FROM good)::cuckoofilter;                      -- unknown flag
SELECT (SELECT set_byte(b, 7, 1) FROM good)::cuckoofilter;                      -- semisort flag (changes the layout's size)
SELECT (SELECT set_byte(b, 7, 2) FROM good)::cuckoofilter;                      -- victim flag, no victim
SELECT (SELECT set_byte(b, 8, 99) FROM good)::cuckoofilter;                     -- unknown value kind
SELECT (SELECT set_byte(b, 8, 11) FROM good)::cuckoofilter;                     -- kind "other" without type tag
SELECT (SELECT set_byte(b, 12, 1) FROM good)::cuckoofilter;                     -- type tag on an integer filter
SELECT (SELECT set_byte(b, 10, 1) FROM good)::cuckoofilter;                     -- reserved field
SELECT (SELECT set_byte(set_byte(set_byte(set_byte(b, 16, 0), 17, 0), 18, 0), 19, 0) FROM good)::cuckoofilter;  -- zero buckets
SELECT (SELECT set_byte(b, 16, get_byte(b, 16) + 1) FROM good)::cuckoofilter;  -- bucket count off by one
SELECT (SELECT set_byte(b, 19, 255) FROM good)::cuckoofilter;                   -- huge bucket count
SELECT (SELECT set_byte(b, 22, 255) FROM good)::cuckoofilter;                   -- max kicks out of range
SELECT (SELECT set_byte(b, 24, get_byte(b, 24) + 1) FROM good)::cuckoofilter;  -- item count too high
SELECT (SELECT set_byte(b, 24, get_byte(b, 24) - 1) FROM good)::cuckoofilter;  -- item count too low
SELECT (SELECT set_byte(b, 31, 128) FROM good)::cuckoofilter;                   -- item count beyond the table
SELECT (SELECT set_byte(set_byte(b, 32, 0), 33, 0) FROM good)::cuckoofilter;   -- capacity 0
SELECT (SELECT set_byte(b, 36, 1) FROM good)::cuckoofilter;                     -- capacity beyond the table
SELECT (SELECT set_byte(b, 40, 1) FROM good)::cuckoofilter;                     -- victim bucket without flag
SELECT (SELECT set_byte(b, 44, 1) FROM good)::cuckoofilter;                     -- victim fingerprint without flag
SELECT (SELECT set_byte(set_byte(b, 7, 2), 44, 0) FROM good)::cuckoofilter;    -- victim flag with fingerprint 0
SELECT (SELECT set_byte(set_byte(set_byte(b, 7, 2), 44, 1), 43, 255) FROM good)::cuckoofilter;  -- victim bucket out of range
SELECT (SELECT set_byte(set_byte(e, 7, 2), 44, 1) FROM good)::cuckoofilter;    -- victim although buckets have room
SELECT (SELECT set_byte(b, octet_length(b) - 1, 1) FROM good)::cuckoofilter;   -- padding not zero
SELECT (SELECT set_byte(e, 48, 1) FROM good)::cuckoofilter;                     -- fingerprint not counted
SELECT (SELECT set_byte(set_byte(e, 48, 1), 24, 1) FROM good)::cuckoofilter;    -- items in a filter of kind "any"
SELECT (SELECT set_byte(e, 8, 1) || '\x00'::bytea FROM good)::cuckoofilter;    -- empty filter, wrong length
SELECT '\x'::bytea::cuckoofilter;                                                -- empty input
SELECT cuckoo_from_bytea('\x434b4f4f01'::bytea);                                -- header cut short
-- A semi-sorted table: code above 3875, and buckets out of sorted order.
SELECT set_byte(set_byte(cuckoo_create(50, semisort => true)::bytea, 48, 255), 49, 15)::cuckoofilter;
-- (one bucket of four 10-bit fingerprints with prefix 1, suffixes 5, 4, 3, 2)
SELECT set_byte(set_byte(set_byte(set_byte(set_byte(set_byte(
         cuckoo_create(4, semisort => true)::bytea, 8, 1), 24, 4), 48, 4), 49, 80), 50, 16), 51, 131)::cuckoofilter;
-- (the same suffixes in ascending order are a valid filter of four items)
SELECT items FROM cuckoo_info(set_byte(set_byte(set_byte(set_byte(set_byte(set_byte(set_byte(
         cuckoo_create(4, semisort => true)::bytea, 8, 1), 24, 4), 48, 4), 49, 32), 50, 12), 51, 68), 52, 1)::cuckoofilter);

-- Equality compares binary forms: GROUP BY, DISTINCT and UNION work.
SELECT a.id, b.id, a.f = b.f AS eq, a.f <> b.f AS ne
FROM io a, io b WHERE a.id <= b.id ORDER BY 1, 2;
SELECT count(DISTINCT f) AS distinct_filters, count(*) AS rows
FROM (SELECT f FROM io UNION ALL SELECT f FROM io) s;
SELECT count(*) AS groups FROM (SELECT f FROM io_text UNION SELECT f FROM io_bin) s;
SELECT cuckoo_add(cuckoo_create(10), 1) = cuckoo_add(cuckoo_create(10), 1) AS same_inputs_same_bytes;

-- Nothing malformed got in, and the good values are still good.
SELECT count(*) AS filters, bool_and((cuckoo_info(f)).items IS NOT NULL) AS all_readable FROM io;
