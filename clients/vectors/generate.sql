-- Test vectors for the client libraries, computed by the server itself.
-- Run by clients/vectors/generate.sh (psql variable :dir is the output
-- directory); every file is one JSON document.  The value of each entry is
-- written as PostgreSQL prints it (bytea in hex, timestamptz in UTC);
-- README.md in this directory says how to read them.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET IntervalStyle = 'postgres';
SET extra_float_digits = 1;
SET search_path = public;
CREATE EXTENSION IF NOT EXISTS cuckoo;
DROP SCHEMA IF EXISTS vec CASCADE;
CREATE SCHEMA vec;
SET search_path = vec, public;

-- one typed value: (type name, text form, hash), the text form as printed
CREATE TEMP TABLE hv (ord serial, type text, value text, hash bigint);
CREATE FUNCTION vec.hv_add(t text, v anycompatible) RETURNS void LANGUAGE sql AS
  $$ INSERT INTO hv (type, value, hash) VALUES (t, v::text, cuckoo_hash(v)) $$;
CREATE FUNCTION vec.hex(b bytea) RETURNS text LANGUAGE sql AS $$ SELECT encode(b, 'hex') $$;
-- a deterministic pseudo-random string of n characters
CREATE FUNCTION vec.str(n int, salt text DEFAULT '') RETURNS text LANGUAGE sql AS
  $$ SELECT left(string_agg(md5(salt || i::text), '' ORDER BY i), n)
     FROM generate_series(0, n / 32 + 1) i $$;

-- integers: the three types hash alike
SELECT hv_add('int2', v::int2) FROM unnest(ARRAY[0, 1, -1, 2, 42, -32768, 32767]) v;
SELECT hv_add('int4', v::int4) FROM unnest(ARRAY[0, 1, -1, 42, -2147483648, 2147483647, 123456789]) v;
SELECT hv_add('int8', v::int8) FROM unnest(ARRAY[0, 1, -1, 42, -9223372036854775808, 9223372036854775807,
  4294967296, -4294967297, 1234567890123456789]) v;
-- numeric: trailing fractional zeros are insignificant
SELECT hv_add('numeric', v::numeric) FROM unnest(ARRAY['0', '0.00', '-0.0', '1', '1.0', '1.00', '-1.5',
  '123.4500', '1e20', '1e-20', '0.1', '12345678901234567890.123456789', '-0.000001', '100',
  '9.99', 'NaN', 'Infinity', '-Infinity']) v;
-- text family: text, varchar, char(n) (trailing blanks dropped), name
SELECT hv_add('text', v) FROM unnest(ARRAY['', 'a', 'ab', 'abc', 'abcd', 'hello world', 'Grüße',
  '日本語', '🦆 cuckoo', E'tab\there', 'trailing  ']) v;
SELECT hv_add('text', str(n)) FROM unnest(ARRAY[1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33,
  63, 64, 65, 96, 100, 127, 128, 129, 130, 160, 200, 239, 240, 241, 242, 255, 256, 257, 300, 500,
  511, 512, 513, 1000, 1023, 1024, 1025, 2048, 4096, 5000]) n;
SELECT hv_add('varchar', v::varchar) FROM unnest(ARRAY['', 'abc', 'hello world']) v;
SELECT hv_add('bpchar', v::char(8)) FROM unnest(ARRAY['abc', 'abc   ', '', 'x y']) v;
SELECT hv_add('name', v::name) FROM unnest(ARRAY['pg_class', 'abc', '']) v;
-- bytea (printed in hex without \x); every XXH3 length class
SELECT hv_add('bytea', v) FROM unnest(ARRAY['\x'::bytea, '\x00', '\xff', '\xdeadbeef',
  '\x0001020304050607', '\x000102030405060708']) v;
SELECT hv_add('bytea', decode(str(2 * n, 'b'), 'hex')) FROM unnest(ARRAY[1, 2, 3, 4, 5, 8, 9,
  16, 17, 64, 128, 129, 200, 240, 241, 256, 1000, 1024, 2049]) n;
UPDATE hv SET value = encode(value::bytea, 'hex') WHERE type = 'bytea';
SELECT hv_add('uuid', v::uuid) FROM unnest(ARRAY['00000000-0000-0000-0000-000000000000',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '123e4567-e89b-12d3-a456-426614174000']) v;
SELECT hv_add('date', v::date) FROM unnest(ARRAY['2000-01-01', '1999-12-31', '2000-01-02',
  '1970-01-01', '0001-01-01', '9999-12-31', '2024-02-29', 'infinity', '-infinity']) v;
SELECT hv_add('timestamp', v::timestamp) FROM unnest(ARRAY['2000-01-01 00:00:00',
  '1970-01-01 00:00:00', '2024-05-06 07:08:09.123456', '1999-12-31 23:59:59.999999',
  '0001-01-01 00:00:00', '9999-12-31 23:59:59.999999', '2021-03-04 05:06:07.5',
  'infinity', '-infinity']) v;
SELECT hv_add('timestamptz', v::timestamptz) FROM unnest(ARRAY['2000-01-01 00:00:00+00',
  '2024-05-06 07:08:09.123456+02', '1970-01-01 00:00:00+00', '2021-03-04 05:06:07.5-08',
  '0001-01-01 00:00:00+00', 'infinity', '-infinity']) v;
SELECT hv_add('bool', v) FROM unnest(ARRAY[false, true]) v;
SELECT hv_add('float8', v::float8) FROM unnest(ARRAY['0', '-0', '1', '1.5', '-2.25', '0.1',
  '3.141592653589793', '1e308', '5e-324', '-1e-300', '42', 'NaN', 'Infinity', '-Infinity']) v;
SELECT hv_add('float4', v::float4) FROM unnest(ARRAY['0', '-0', '0.1', '1.5', '3.4028235e38',
  'NaN', '-Infinity']) v;
-- kind "other": hashed by PostgreSQL's own extended hash functions
SELECT hv_add('interval', v::interval) FROM unnest(ARRAY['1 day', '01:00:00']) v;
SELECT hv_add('inet', v::inet) FROM unnest(ARRAY['10.0.0.1', '::1']) v;

\o :dir/hashes.json
SELECT json_build_object(
  'about', 'cuckoo_hash(value) of values of each type; value as PostgreSQL prints it (bytea in hex, timestamptz in UTC); hash as a signed 64-bit decimal string',
  'hashes', json_agg(json_build_object('type', type, 'value', value, 'hash', hash::text) ORDER BY ord))
FROM hv;
\o

-- ---------------------------------------------------------------------------
-- Filters of every shape, with expected lookups.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE vf (ord serial, name text, type text, f cuckoofilter,
                      members text[], probes text[]);

-- fill(f, values, until_full): adds the values in order; with until_full,
-- stops after the first add that uses the victim slot.  Returns the filter
-- and how many values were added.
CREATE FUNCTION vec.fill(f cuckoofilter, vals anyarray, until_full bool,
                         OUT filt cuckoofilter, OUT added int)
LANGUAGE plpgsql AS $$
BEGIN
  added := 0;
  filt := f;
  FOR i IN 1 .. coalesce(array_length(vals, 1), 0) LOOP
    filt := cuckoo_add(filt, vals[i]);
    added := added + 1;
    EXIT WHEN until_full AND (cuckoo_info(filt)).is_full;
  END LOOP;
END $$;

-- shape(name, capacity, b, f, semisort, members count, until_full, max_kicks)
-- over the integers 1 .. n (members) and 1000001 .. 1000400 (probes that are
-- mostly absent)
CREATE FUNCTION vec.int_shape(nm text, cap bigint, b int, fbits int, ss bool, n int,
                              until_full bool DEFAULT false, kicks int DEFAULT 500)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r record;
  vals bigint[] := ARRAY(SELECT (i * 7919 + 13) % 1000003 FROM generate_series(1, n) i);
BEGIN
  SELECT * INTO r FROM fill(cuckoo_create(cap, 0.01, b, fbits, kicks, ss), vals, until_full);
  INSERT INTO vf (name, type, f, members, probes)
  VALUES (nm, 'int8', r.filt, vals[1:r.added]::text[],
          ARRAY(SELECT (1000003 + i)::text FROM generate_series(1, 400) i));
END $$;

SELECT int_shape('b2_f4', 40, 2, 4, false, 30);
SELECT int_shape('b2_f8', 100, 2, 8, false, 80);
SELECT int_shape('b2_f12_full', 30, 2, 12, false, 1000, true);
SELECT int_shape('b2_f16', 300, 2, 16, false, 200);
SELECT int_shape('b2_f31', 50, 2, 31, false, 40);
SELECT int_shape('b4_f5', 200, 4, 5, false, 150);
SELECT int_shape('b4_f10', 1000, 4, 10, false, 900);
SELECT int_shape('b4_f10_full', 20, 4, 10, false, 1000, true);
SELECT int_shape('b4_f16_kicks0_full', 60, 4, 16, false, 1000, true, 0);
SELECT int_shape('b4_f17', 100, 4, 17, false, 90);
SELECT int_shape('b4_f32', 150, 4, 32, false, 120);
SELECT int_shape('b4_f5_semisort', 200, 4, 5, true, 180);
SELECT int_shape('b4_f4_semisort', 40, 4, 4, true, 30);
SELECT int_shape('b4_f9_semisort', 500, 4, 9, true, 450);
SELECT int_shape('b4_f13_semisort', 2000, 4, 13, true, 1800);
SELECT int_shape('b4_f13_semisort_full', 30, 4, 13, true, 1000, true);
SELECT int_shape('b4_f17_semisort', 300, 4, 17, true, 250);
SELECT int_shape('b4_f18_semisort', 300, 4, 18, true, 250);
SELECT int_shape('b4_f32_semisort', 60, 4, 32, true, 50);
SELECT int_shape('b8_f6', 300, 8, 6, false, 250);
SELECT int_shape('b8_f8', 600, 8, 8, false, 550);
SELECT int_shape('b8_f9', 300, 8, 9, false, 280);
SELECT int_shape('b8_f12_full', 40, 8, 12, false, 1000, true);
SELECT int_shape('b8_f32', 100, 8, 32, false, 90);
SELECT int_shape('b4_f12_empty', 10, 4, 12, false, 0);
-- a larger table: m = c * 2^k with k > 0 and c not a power of two
SELECT int_shape('b4_f12_large', 5000, 4, 12, false, 4000);
SELECT int_shape('b2_f9_large', 3000, 2, 9, false, 2300);

-- one filter per value kind (cuckoo_agg, fpr 0.01)
CREATE FUNCTION vec.kind_filter(nm text, t text, vals text[], absent text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  filt cuckoofilter;
BEGIN
  EXECUTE format('SELECT cuckoo_agg(v::%s) FROM unnest($1) v', t) INTO filt USING vals;
  INSERT INTO vf (name, type, f, members, probes) VALUES (nm, t, filt, vals, absent);
END $$;
SELECT kind_filter('kind_text', 'text',
  ARRAY(SELECT str(i % 40, i::text) FROM generate_series(1, 300) i),
  ARRAY(SELECT str(i % 40, 'x' || i) FROM generate_series(1, 300) i));
SELECT kind_filter('kind_numeric', 'numeric',
  ARRAY(SELECT (i / 8.0)::text FROM generate_series(1, 200) i),
  ARRAY(SELECT (i / 8.0 + 0.01)::text FROM generate_series(1, 200) i) || ARRAY['1.000', '2.50']);
SELECT kind_filter('kind_bytea', 'bytea',
  ARRAY(SELECT '\x' || str(2 * (i % 20), i::text) FROM generate_series(1, 200) i),
  ARRAY(SELECT '\x' || str(2 * (i % 20 + 1), 'y' || i) FROM generate_series(1, 200) i));
UPDATE vf SET members = ARRAY(SELECT substr(m, 3) FROM unnest(members) m),
              probes = ARRAY(SELECT substr(m, 3) FROM unnest(probes) m) WHERE name = 'kind_bytea';
SELECT kind_filter('kind_uuid', 'uuid',
  ARRAY(SELECT md5(i::text)::uuid::text FROM generate_series(1, 200) i),
  ARRAY(SELECT md5('z' || i)::uuid::text FROM generate_series(1, 200) i));
SELECT kind_filter('kind_date', 'date',
  ARRAY(SELECT ('2000-01-01'::date + i * 37 - 50000)::text FROM generate_series(1, 200) i),
  ARRAY(SELECT ('2000-01-01'::date + i * 37 - 49999)::text FROM generate_series(1, 200) i));
SELECT kind_filter('kind_timestamp', 'timestamp',
  ARRAY(SELECT ('2000-01-01'::timestamp + i * interval '1234567.891 seconds')::text FROM generate_series(-100, 100) i),
  ARRAY(SELECT ('2000-01-01'::timestamp + i * interval '1234567.891 seconds' + interval '1 microsecond')::text FROM generate_series(-100, 100) i));
SELECT kind_filter('kind_timestamptz', 'timestamptz',
  ARRAY(SELECT ('2000-01-01 00:00+00'::timestamptz + i * interval '7654321.5 seconds')::text FROM generate_series(-100, 100) i),
  ARRAY(SELECT ('2000-01-01 00:00+00'::timestamptz + i * interval '7654321.5 seconds' + interval '1 millisecond')::text FROM generate_series(-100, 100) i));
SELECT kind_filter('kind_bool', 'bool', ARRAY['true'], ARRAY['false']);
SELECT kind_filter('kind_float8', 'float8',
  ARRAY(SELECT (i / 3.0)::float8::text FROM generate_series(1, 200) i) || ARRAY['NaN', '-0', 'Infinity'],
  ARRAY(SELECT (i / 3.0 + 0.5)::float8::text FROM generate_series(1, 200) i) || ARRAY['-Infinity']);
SELECT kind_filter('kind_interval_other', 'interval',
  ARRAY(SELECT (i || ' minutes')::interval::text FROM generate_series(1, 50) i),
  ARRAY(SELECT (i || ' seconds')::interval::text FROM generate_series(1, 50) i));
SELECT kind_filter('kind_int4', 'int4',
  ARRAY(SELECT (i * 104729)::text FROM generate_series(-100, 100) i),
  ARRAY(SELECT (i * 104729 + 1)::text FROM generate_series(-100, 100) i));

-- Format version 2 (docs/FORMAT.md section 13): growing filters (expansion 2)
-- grown several times from one bucket, so that the split pointer is inside a
-- round (with the address budget, docs/FORMAT.md 13.12, no entry is copied:
-- entries = items; the t9_* entries appended from legacy_t9.json are filters
-- without it, whose oldest entries were copied by splits: entries > items);
-- rotated filters (generation
-- tags: g > 0, dropped generations, removes that raise); version-1 filters
-- of b = 2 and 8 rotated into version 2; a rotated filter with the victim
-- slot in use.  members are the values of the kept generations.
CREATE FUNCTION vec.ints(lo int, hi int) RETURNS bigint[] LANGUAGE sql AS
  $$ SELECT ARRAY(SELECT ((i * 7919 + 13) % 1000003)::bigint FROM generate_series(lo, hi) i) $$;
CREATE FUNCTION vec.v2_shape(nm text, f cuckoofilter, members bigint[]) RETURNS void LANGUAGE sql AS
  $$ INSERT INTO vf (name, type, f, members, probes)
     VALUES (nm, 'int8', f, members::text[], ARRAY(SELECT (1000003 + i)::text FROM generate_series(1, 400) i)) $$;
SELECT v2_shape('v2_grow_fpr01', cuckoo_add_array(cuckoo_create(4, 0.01, 4, NULL, 500, false, 2), ints(1, 2000)), ints(1, 2000));
SELECT v2_shape('v2_grow_fpr001', cuckoo_add_array(cuckoo_create(4, 0.001, 4, NULL, 500, false, 2), ints(1, 2600)), ints(1, 2600));
-- a growing filter rotated with keep 3 (g = 2): batches of 300, the first
-- two dropped; removes of kept values in between (a remove of a value that is
-- not in the filter may take a member's entry, as in any cuckoo filter)
SELECT v2_shape('v2_grow_rotated',
  cuckoo_add_array(cuckoo_rotate(cuckoo_remove_array(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(
    cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(100, 0.01, 4, NULL, 500, false, 2), ints(1, 300)), 3),
    ints(301, 600)), 3), ints(601, 900)), 3), ints(901, 1200)), ints(601, 620) || ints(1101, 1110)), 3),
    ints(1201, 1400)),
  ints(621, 900) || ints(901, 1100) || ints(1111, 1200) || ints(1201, 1400));
-- fixed version-1 filters rotated into version 2 (t = 0): keep 2 (g = 2), keep 5 (g = 3)
SELECT v2_shape('v2_rotated_b2_f8',
  cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(300, 0.01, 2, 8), ints(1, 150)), 2),
    ints(151, 200)), 2), ints(201, 250)),
  ints(151, 250));
SELECT v2_shape('v2_rotated_b8_f9',
  cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_rotate(
    cuckoo_add_array(cuckoo_create(400, 0.01, 8, 9), ints(1, 200)), 5), ints(201, 260)), 5), ints(261, 300)), 5), ints(301, 330)),
  ints(1, 330));
SELECT v2_shape('v2_rotated_b4_f12_keep1',
  cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(300, 0.01, 4, 12), ints(1, 200)), 1), ints(201, 300)),
  ints(201, 300));
-- a rotated fixed filter filled until the victim slot is used
SELECT v2_shape('v2_rotated_b2_f12_full', (r).filt, ints(1, 20) || ints(21, 20 + (r).added))
  FROM (SELECT fill(cuckoo_rotate(cuckoo_add_array(cuckoo_create(30, 0.01, 2, 12), ints(1, 20)), 2), ints(21, 1000), true) r) s;
SELECT v2_shape('v2_grow_empty', cuckoo_create(100, 0.001, 4, NULL, 500, false, 2), '{}');

-- probes(f, type, values): [value, cuckoo_contains, cuckoo_count] for each
CREATE FUNCTION vec.val(t text) RETURNS text LANGUAGE sql AS
  $$ SELECT CASE WHEN t = 'bytea' THEN 'decode(p, ''hex'')' ELSE format('p::%s', t) END $$;
CREATE FUNCTION vec.probes(f cuckoofilter, t text, vals text[]) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  res json;
BEGIN
  EXECUTE format('SELECT json_agg(json_build_array(p, cuckoo_contains($1, %1$s), cuckoo_count($1, %1$s)) ORDER BY o)
                  FROM unnest($2) WITH ORDINALITY x(p, o)', val(t)) INTO res USING f, vals;
  RETURN res;
END $$;

\o :dir/filters.json
SELECT json_build_object(
  'about', 'filters (text form) of every shape with the answers of cuckoo_contains and cuckoo_count for their members and for other values: probes are [value, contains, count]; type says how to read the values (as in hashes.json); info is cuckoo_info',
  'filters', json_agg(json_build_object(
    'name', name, 'type', type, 'text', f::text,
    'info', (SELECT to_json(i) FROM cuckoo_info(f) i),
    'members', members,
    'probes', probes(f, type, members || probes)) ORDER BY ord))
FROM vf;
\o

-- ---------------------------------------------------------------------------
-- Changes: a filter, a sequence of operations and the filter after each.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE vo (ord serial, name text, type text, start text, steps json);
CREATE FUNCTION vec.ops(nm text, t text, f cuckoofilter, ops text[][]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  steps json[] := '{}';
  start text := f::text;
  cur cuckoofilter := f;
BEGIN
  FOR i IN 1 .. array_length(ops, 1) LOOP
    EXECUTE format('SELECT cuckoo_%s($1, %s)', ops[i][1], replace(val(t), 'p', '$2'))
      INTO cur USING cur, ops[i][2];
    steps := steps || json_build_array(ops[i][1], ops[i][2], cur::text);
  END LOOP;
  INSERT INTO vo (name, type, start, steps) VALUES (nm, t, start, array_to_json(steps));
END $$;
-- a mix of operations on each shape, the kicks and the victim slot included
CREATE FUNCTION vec.ops_on(nm text, fname text, n int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r vf;
  ops text[][] := '{}';
BEGIN
  SELECT * INTO r FROM vf WHERE name = fname;
  FOR i IN 1 .. n LOOP
    ops := ops || ARRAY[ARRAY['add', (2000000 + i)::text]];
    IF i % 3 = 0 THEN ops := ops || ARRAY[ARRAY['remove', r.members[i % array_length(r.members, 1) + 1]]]; END IF;
    IF i % 4 = 0 THEN ops := ops || ARRAY[ARRAY['add_if_absent', (2000000 + i)::text]]; END IF;
    IF i % 5 = 0 THEN ops := ops || ARRAY[ARRAY['add_if_absent', (3000000 + i)::text]]; END IF;
    IF i % 7 = 0 THEN ops := ops || ARRAY[ARRAY['remove', (4000000 + i)::text]]; END IF;
  END LOOP;
  PERFORM ops(nm, 'int8', r.f, ops);
END $$;
SELECT ops_on('ops_b4_f10', 'b4_f10', 60);
SELECT ops_on('ops_b2_f8', 'b2_f8', 25);
SELECT ops_on('ops_b8_f9', 'b8_f9', 40);
SELECT ops_on('ops_b4_f9_semisort', 'b4_f9_semisort', 60);
SELECT ops_on('ops_b4_f18_semisort', 'b4_f18_semisort', 40);
SELECT ops(name, 'int8', f, ARRAY[ARRAY['remove', members[1]], ARRAY['add', '5'],
           ARRAY['remove', members[2]], ARRAY['remove', members[3]], ARRAY['add', '6']])
  FROM vf WHERE name IN ('b2_f12_full', 'b4_f10_full', 'b8_f12_full', 'b4_f13_semisort_full',
                         'b4_f16_kicks0_full');
SELECT ops('ops_empty_any', 'text', cuckoo_create(100), ARRAY[ARRAY['add', 'a'], ARRAY['add', 'a'],
           ARRAY['add_if_absent', 'a'], ARRAY['remove', 'a'], ARRAY['remove', 'b']]);
-- filling a fresh filter until the victim slot is used
SELECT ops('ops_fill_b2', 'int8', cuckoo_create(24, 0.01, 2, 7, 50, false),
           ARRAY(SELECT ARRAY['add', i::text] FROM generate_series(1, 22) i));

\o :dir/ops.json
SELECT json_build_object(
  'about', 'start filter (text form), then steps [operation, value, filter after it]; operation is cuckoo_<operation>(f, value)',
  'ops', json_agg(json_build_object('name', name, 'type', type, 'start', start, 'steps', steps) ORDER BY ord))
FROM vo;
\o

-- ---------------------------------------------------------------------------
-- Unions of filters of the same shape.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE vu (ord serial, name text, a cuckoofilter, b cuckoofilter);
INSERT INTO vu (name, a, b)
SELECT 'union_b4_f10', (fill(cuckoo_create(500), ARRAY(SELECT i::bigint FROM generate_series(1, 300) i), false)).filt,
       (fill(cuckoo_create(500), ARRAY(SELECT i::bigint FROM generate_series(200, 450) i), false)).filt;
INSERT INTO vu (name, a, b)
SELECT 'union_b4_f9_semisort',
       (fill(cuckoo_create(400, 0.01, 4, 9, 500, true), ARRAY(SELECT i::bigint FROM generate_series(1, 200) i), false)).filt,
       (fill(cuckoo_create(400, 0.01, 4, 9, 500, true), ARRAY(SELECT i::bigint FROM generate_series(100, 330) i), false)).filt;
INSERT INTO vu (name, a, b)
SELECT 'union_b2_f8_dups',
       (fill(cuckoo_create(300, 0.01, 2, 8), ARRAY(SELECT (i % 50)::bigint FROM generate_series(1, 100) i), false)).filt,
       (fill(cuckoo_create(300, 0.01, 2, 8), ARRAY(SELECT (i % 70)::bigint FROM generate_series(1, 140) i), false)).filt;
INSERT INTO vu (name, a, b)
SELECT 'union_any_with_text', cuckoo_create(100), cuckoo_agg_fixed FROM
  (SELECT cuckoo_agg(v, 100, 0.01) AS cuckoo_agg_fixed FROM (SELECT 'v' || i AS v FROM generate_series(1, 60) i) s) s;
INSERT INTO vu (name, a, b)
SELECT 'union_victim', x.f, cuckoo_create(30, 0.01, 2, 12)
  FROM vf x WHERE x.name = 'b2_f12_full';
INSERT INTO vu (name, a, b)
SELECT 'union_b8_f6', (fill(cuckoo_create(400, 0.01, 8, 6), ARRAY(SELECT i::bigint FROM generate_series(1, 250) i), false)).filt,
       (fill(cuckoo_create(400, 0.01, 8, 6), ARRAY(SELECT i::bigint * 3 FROM generate_series(1, 120) i), false)).filt;

\o :dir/unions.json
SELECT json_build_object(
  'about', 'cuckoo_union(a, b) (text forms)',
  'unions', json_agg(json_build_object('name', name, 'a', a::text, 'b', b::text, 'union', cuckoo_union(a, b)::text) ORDER BY ord))
FROM vu;
\o

-- ---------------------------------------------------------------------------
-- cuckoo_agg(value, fpr): inputs and the filter built from them.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE va (ord serial, name text, type text, fpr float8, vals text[], f cuckoofilter);
CREATE FUNCTION vec.agg(nm text, t text, fpr float8, vals text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  filt cuckoofilter;
BEGIN
  EXECUTE format('SELECT cuckoo_agg(%s, $2) FROM unnest($1) p', val(t)) INTO filt USING vals, fpr;
  INSERT INTO va (name, type, fpr, vals, f) VALUES (nm, t, fpr, vals, filt);
END $$;
SELECT agg('agg_int_1000', 'int8', 0.01, ARRAY(SELECT i::text FROM generate_series(1, 1000) i));
SELECT agg('agg_int_dups', 'int4', 0.05, ARRAY(SELECT (i % 97)::text FROM generate_series(1, 500) i));
SELECT agg('agg_int_one', 'int8', 0.01, ARRAY['7']);
-- (no empty case: from 1.1 cuckoo_agg over no rows gives NULL, not a filter;
-- the clients' build() of no values still gives an empty filter of the given kind)
SELECT agg('agg_text_2000', 'text', 0.001, ARRAY(SELECT 'user-' || i FROM generate_series(1, 2000) i));
SELECT agg('agg_uuid_300', 'uuid', 0.0001, ARRAY(SELECT md5(i::text)::uuid::text FROM generate_series(1, 300) i));
SELECT agg('agg_numeric', 'numeric', 0.2, ARRAY(SELECT (i / 4.0)::text FROM generate_series(1, 400) i));
SELECT agg('agg_float_fpr_tiny', 'float8', 2e-9, ARRAY(SELECT (i * 0.5)::text FROM generate_series(1, 300) i));
SELECT agg('agg_int_retry', 'int8', 0.01, ARRAY(SELECT i::text FROM generate_series(1, 9) i));

\o :dir/agg.json
SELECT json_build_object(
  'about', 'cuckoo_agg(value, fpr) over the values (type as in hashes.json) and the filter it returns (text form)',
  'aggs', json_agg(json_build_object('name', name, 'type', type, 'fpr', fpr, 'values', vals, 'filter', f::text) ORDER BY ord))
FROM va;
\o

-- ---------------------------------------------------------------------------
-- Invalid values: mutations of valid filters, and the server's verdict.
-- ---------------------------------------------------------------------------
CREATE FUNCTION vec.verdict(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b::cuckoofilter;
  RETURN NULL;
EXCEPTION WHEN invalid_binary_representation THEN
  RETURN SQLERRM;
END $$;
CREATE FUNCTION vec.text_verdict(s text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM s::cuckoofilter;
  RETURN NULL;
EXCEPTION WHEN invalid_text_representation OR invalid_binary_representation THEN
  RETURN SQLERRM;
END $$;
-- set_byte(b, at, v) for several bytes
CREATE FUNCTION vec.poke(b bytea, at int, vals int[]) RETURNS bytea LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. array_length(vals, 1) LOOP
    b := set_byte(b, at + i - 1, vals[i]);
  END LOOP;
  RETURN b;
END $$;
CREATE TEMP TABLE vi (ord serial, name text, b bytea);
INSERT INTO vi (name, b)
SELECT n, m FROM (SELECT f::bytea AS v, (SELECT f::bytea FROM vf WHERE name = 'b4_f9_semisort') AS ss,
                         (SELECT f::bytea FROM vf WHERE name = 'b2_f12_full') AS fullf
                  FROM vf WHERE name = 'b4_f10') x,
  LATERAL (VALUES
    ('valid', v), ('valid_semisort', ss), ('valid_victim', fullf),
    ('magic', poke(v, 0, '{68}')), ('version_0', poke(v, 4, '{0}')), ('version_2', poke(v, 4, '{2}')),
    ('bucket_size_3', poke(v, 5, '{3}')), ('bucket_size_16', poke(v, 5, '{16}')),
    ('fp_bits_3', poke(v, 6, '{3}')), ('fp_bits_33', poke(v, 6, '{33}')), ('fp_bits_11', poke(v, 6, '{11}')),
    ('flag_unknown', poke(v, 7, '{4}')), ('flag_semisort_b4', poke(v, 7, '{1}')),
    ('flag_victim_without_fields', poke(v, 7, '{2}')),
    ('kind_12', poke(v, 8, '{12,0}')), ('kind_any_with_items', poke(v, 8, '{0,0}')),
    ('kind_other_without_tag', poke(v, 8, '{11,0}')), ('tag_without_other', poke(v, 12, '{1}')),
    ('reserved', poke(v, 10, '{1}')), ('buckets_plus_one', poke(v, 16, ARRAY[get_byte(v, 16) + 1])),
    ('buckets_zero', poke(v, 16, '{0,0,0,0}')), ('max_kicks_big', poke(v, 20, '{161,134,1,0}')),
    ('max_kicks_limit', poke(v, 20, '{160,134,1,0}')),
    ('items_plus_one', poke(v, 24, ARRAY[get_byte(v, 24) + 1])), ('items_huge', poke(v, 24, '{255,255,255,255,255,255,255,255}')),
    ('capacity_zero', poke(v, 32, '{0,0,0,0,0,0,0,0}')), ('capacity_huge', poke(v, 32, '{255,255,0,0,0,0,0,0}')),
    ('victim_fields_without_flag', poke(v, 44, '{1}')),
    ('victim_bucket_out', poke(fullf, 40, '{255,255,255,0}')),
    ('victim_fp_zero', poke(fullf, 44, '{0,0,0,0}')), ('victim_fp_wide', poke(fullf, 44, '{0,16,0,0}')),
    ('victim_with_room', poke(poke(fullf, 7, '{0}'), 40, '{0,0,0,0,0,0,0,0}')),
    ('truncated', substr(v, 1, length(v) - 1)), ('extended', v || '\x00'::bytea),
    ('header_only', substr(v, 1, 48)), ('short', substr(v, 1, 20)), ('empty', ''::bytea),
    ('padding_byte', poke(v, length(v) - 1, '{1}')),
    ('entry_cleared', poke(v, 48, '{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}')),
    ('semisort_code_big', poke(ss, 48, '{255,15}')),
    -- bucket 0: prefixes all 0, suffixes 0, 0, 2, 1
    ('semisort_unsorted', poke(ss, 48, '{0,0,128,8}'))
  ) m(n, m);

-- version 2: every header rule of section 13.10 and the slot rules, on a
-- growing filter (g = 0), a rotated growing filter (g = 2) and a rotated
-- fixed filter with the victim slot in use
CREATE FUNCTION vec.set_bits(b bytea, at bigint, w int, val bigint) RETURNS bytea LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 0 .. w - 1 LOOP
    b := set_bit(b, (at + i)::int, ((val >> i) & 1)::int);
  END LOOP;
  RETURN b;
END $$;
CREATE FUNCTION vec.le(v bigint, n int) RETURNS int[] LANGUAGE sql AS
  $$ SELECT ARRAY(SELECT ((v >> (8 * i)) & 255)::int FROM generate_series(0, n - 1) i) $$;
CREATE FUNCTION vec.u32(b bytea, at int) RETURNS bigint LANGUAGE sql AS
  $$ SELECT get_byte(b, at)::bigint | (get_byte(b, at + 1)::bigint << 8) | (get_byte(b, at + 2)::bigint << 16)
            | (get_byte(b, at + 3)::bigint << 24) $$;
INSERT INTO vi (name, b)
SELECT n, m FROM (SELECT (SELECT f::bytea FROM vf WHERE name = 'v2_grow_fpr01') AS v,
                         (SELECT f::bytea FROM vf WHERE name = 'v2_grow_rotated') AS r,
                         (SELECT f::bytea FROM vf WHERE name = 'v2_rotated_b2_f12_full') AS x) y,
  LATERAL (VALUES
    ('v2_valid', v), ('v2_valid_rotated', r), ('v2_valid_victim', x),
    ('v2_short', substr(v, 1, 60)), ('v2_version_3', poke(v, 4, '{3}')),
    ('v2_flag_unknown', poke(v, 7, '{20}')), ('v2_budget_without_grows', poke(v, 7, '{8}')), ('v2_flag_semisort', poke(v, 7, '{5}')),
    ('v2_grows_flag_cleared', poke(v, 7, '{0}')), ('v2_fixed_flag_grows', poke(x, 7, '{6}')),
    ('v2_bucket_size_3', poke(v, 5, '{3}')), ('v2_growing_bucket_size_2', poke(v, 5, '{2}')),
    ('v2_fp_bits_3', poke(v, 6, '{3}')), ('v2_fp_bits_33', poke(v, 6, '{33}')), ('v2_slot_33_bits', poke(v, 6, '{24}')),
    ('v2_kind_12', poke(v, 8, '{12,0}')), ('v2_kind_any_with_entries', poke(v, 8, '{0,0}')),
    ('v2_kind_other_without_tag', poke(v, 8, '{11,0}')), ('v2_tag_without_other', poke(v, 12, '{1}')),
    ('v2_tail_bits_1', poke(v, 10, '{1}')), ('v2_tail_bits_16', poke(v, 10, '{16}')),
    ('v2_tail_bits_fixed', poke(x, 10, '{2}')), ('v2_gen_bits_9', poke(v, 11, '{9}')),
    ('v2_buckets_minus_one', poke(v, 16, le(u32(v, 16) - 1, 4))), ('v2_buckets_zero', poke(v, 16, '{0,0,0,0}')),
    ('v2_fixed_buckets_not_c_2k', poke(x, 16, le(u32(x, 16) + 1, 4))),
    ('v2_max_kicks_big', poke(v, 20, '{161,134,1,0}')),
    ('v2_items_plus_one', poke(v, 24, le(u32(v, 24) + 1, 4))), ('v2_items_huge', poke(v, 24, '{255,255,255,255,255,255,255,255}')),
    ('v2_rotated_items_minus_one', poke(r, 24, le(u32(r, 24) - 1, 4))),
    ('v2_capacity_zero', poke(v, 32, '{0,0,0,0,0,0,0,0}')), ('v2_capacity_above_m0_b', poke(v, 32, '{5,0,0,0,0,0,0,0}')),
    ('v2_victim_fields_without_flag', poke(v, 44, '{1}')),
    ('v2_victim_bucket_out', poke(x, 40, '{255,255,0,0}')), ('v2_victim_slot_zero_fp', poke(x, 44, le(u32(x, 44) & ~4095, 4))),
    ('v2_victim_slot_wide', poke(x, 44, le(u32(x, 44) | 65536, 4))),
    ('v2_victim_dropped_generation', poke(x, 44, le((u32(x, 44) & 4095) | (((get_byte(x, 50) + 2) % 4)::bigint << 12), 4))),
    -- slot 0 of the victim's bucket cleared, entries, items and the current
    -- generation's count one lower: the only broken rule is the victim's
    ('v2_victim_with_room', poke(poke(poke(set_bits(x, 96 * 8 + u32(x, 40) * 2 * 14, 14, 0), 56, le(u32(x, 56) - 1, 4)),
                                 24, le(u32(x, 24) - 1, 4)), 64 + 8 * get_byte(x, 50), le(u32(x, 64 + 8 * get_byte(x, 50)) - 1, 4))),
    ('v2_mantissa_zero', poke(v, 48, '{0,0}')), ('v2_mantissa_256', poke(v, 48, '{0,1}')),
    ('v2_mantissa_above_buckets', poke(v, 48, '{255,0}')),
    ('v2_initial_buckets_plus_one', poke(v, 52, le(u32(v, 52) + 1, 4))),
    ('v2_initial_buckets_other_mantissa', poke(poke(v, 52, le(2, 4)), 48, '{2,0}')),
    ('v2_cur_gen_wide', poke(r, 50, '{4}')), ('v2_keep_wide', poke(r, 51, '{4}')),
    ('v2_cur_gen_without_rotation', poke(x, 51, '{0}')), ('v2_cur_gen_unrotated', poke(v, 50, '{1}')),
    ('v2_entries_plus_one', poke(v, 56, le(u32(v, 56) + 1, 4))), ('v2_entries_huge', poke(v, 56, '{255,255,255,255,0,0,0,0}')),
    ('v2_gen_items_moved', poke(poke(r, 64, le(u32(r, 64) - 1, 4)), 88, le(u32(r, 88) + 1, 4))),
    ('v2_gen_items_dropped_generation', poke(poke(r, 64, le(u32(r, 64) - 1, 4)), 72, le(u32(r, 72) + 1, 4))),
    ('v2_gen_items_above_items', poke(r, 64, '{255,255,255,255,0,0,0,0}')),
    ('v2_truncated', substr(v, 1, length(v) - 1)), ('v2_extended', v || '\x00'::bytea),
    ('v2_padding_byte', poke(v, length(v) - 1, '{1}')),
    ('v2_slot_zero_fp', set_bits(v, 64 * 8, 6, 0)), ('v2_slot_zero_tail', set_bits(v, 64 * 8 + 6, 9, 0)),
    ('v2_slot_dropped_generation', set_bits(r, 96 * 8 + 15, 2, 1)),
    ('v2_slot_cleared', set_bits(v, 64 * 8, 15, 0)),
    ('v2_slot_tail_changed', set_bits(v, 64 * 8 + 6, 9, 1))
  ) m(n, m);

\o :dir/invalid.json
SELECT json_build_object(
  'about', 'binary forms (hex) and the bytea::cuckoofilter verdict: null when valid, else the error message; then text forms and the text input verdict',
  'binary', json_agg(json_build_object('name', name, 'hex', encode(b, 'hex'), 'error', verdict(b)) ORDER BY ord),
  'text', (SELECT json_agg(json_build_object('name', n, 'text', t, 'error', text_verdict(t)) ORDER BY o)
           FROM (SELECT (SELECT f::text FROM vf WHERE name = 'b4_f10') AS v) x,
           LATERAL (VALUES
             (1, 'valid', v), (2, 'trailing_newline', v || E'\n'), (3, 'leading_space', ' ' || v),
             (4, 'no_padding', rtrim(v, '=')), (5, 'url_alphabet', translate(v, '+/', '-_')),
             (6, 'empty', ''), (7, 'one_char_short', left(v, -1)), (8, 'inner_space', left(v, 8) || ' ' || substr(v, 9)),
             (9, 'non_canonical_last_bits', left(v, -2) || chr(ascii(substr(v, length(v) - 1, 1)) + 1) || '='),
             (10, 'bad_char', left(v, 4) || '*' || substr(v, 6)),
             (11, 'padding_inside', left(v, 4) || '=' || substr(v, 6))
           ) y(o, n, t))
) FROM vi;
\o
-- ---------------------------------------------------------------------------
-- Changes of format-version-2 filters: growth (splits, copies, the victim and
-- the splits that relieve it), removes and add_if_absent with generations
-- (the raise rule), rotations and unions.  A step is [operation, argument,
-- filter after or null]: add, add_if_absent, remove (argument: a value),
-- rotate (keep), union (the other filter, text form: cuckoo_union(f, other)).
-- The filter after a step is written after every 10th step, every rotate
-- and union, and the last (the file stays small).
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE vo2 (ord serial, name text, type text, start text, steps json);
CREATE FUNCTION vec.ops2(nm text, t text, f cuckoofilter, ops text[][]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  steps json[] := '{}';
  start text := f::text;
  cur cuckoofilter := f;
  n int := array_length(ops, 1);
BEGIN
  FOR i IN 1 .. n LOOP
    IF ops[i][1] = 'rotate' THEN
      cur := cuckoo_rotate(cur, ops[i][2]::int);
    ELSIF ops[i][1] = 'union' THEN
      cur := cuckoo_union(cur, ops[i][2]::cuckoofilter);
    ELSE
      EXECUTE format('SELECT cuckoo_%s($1, %s)', ops[i][1], replace(val(t), 'p', '$2'))
        INTO cur USING cur, ops[i][2];
    END IF;
    steps := steps || json_build_array(ops[i][1], ops[i][2],
      CASE WHEN i % 10 = 0 OR i = n OR ops[i][1] IN ('rotate', 'union') THEN cur::text END);
  END LOOP;
  INSERT INTO vo2 (name, type, start, steps) VALUES (nm, t, start, array_to_json(steps));
END $$;
-- n rounds of: an add, and by turns a remove of an earlier add, add_if_absent
-- of an earlier and of a new value, an add of a value already added; the
-- values 1 .. n through ints()
CREATE FUNCTION vec.mix2(n int, salt int DEFAULT 0) RETURNS text[][] LANGUAGE plpgsql AS $$
DECLARE
  ops text[][] := '{}';
  v bigint[] := ints(salt + 1, salt + n);
BEGIN
  FOR i IN 1 .. n LOOP
    ops := ops || ARRAY[ARRAY['add', v[i]::text]];
    IF i % 3 = 0 THEN ops := ops || ARRAY[ARRAY['remove', v[i / 2]::text]]; END IF;
    IF i % 4 = 0 THEN ops := ops || ARRAY[ARRAY['add_if_absent', v[i / 4 + 1]::text]]; END IF;
    IF i % 5 = 0 THEN ops := ops || ARRAY[ARRAY['add_if_absent', (5000000 + salt + i)::text]]; END IF;
    IF i % 11 = 0 THEN ops := ops || ARRAY[ARRAY['add', v[i - 1]::text]]; END IF;
  END LOOP;
  RETURN ops;
END $$;
CREATE FUNCTION vec.rot2(keep int) RETURNS text[][] LANGUAGE sql AS
  $$ SELECT ARRAY[ARRAY['rotate', keep::text]] $$;
CREATE FUNCTION vec.uni2(f cuckoofilter) RETURNS text[][] LANGUAGE sql AS
  $$ SELECT ARRAY[ARRAY['union', f::text]] $$;
-- growing filters grown about 100 times from a capacity of 2 and 3
SELECT ops2('ops2_grow_fpr01', 'int8', cuckoo_create(2, 0.01, expansion => 2),
            mix2(200) || uni2(cuckoo_add_array(cuckoo_create(2, 0.01, expansion => 2), ints(150, 260))));
SELECT ops2('ops2_grow_fpr001', 'int8', cuckoo_create(3, 0.001, expansion => 2), mix2(250, 7));
-- no kicks and few kicks: the victim slot and the splits that relieve it
SELECT ops2('ops2_grow_kicks0', 'int8', cuckoo_create(4, 0.01, 4, NULL, 0, false, 2), mix2(120, 3));
SELECT ops2('ops2_grow_kicks3_fpr3', 'int8', cuckoo_create(2, 0.3, 4, NULL, 3, false, 2), mix2(150, 11));
-- rotated filters: g = 1 .. 3, values of older generations removed and seen again
SELECT ops2('ops2_rotated_b4_f10', 'int8', cuckoo_create(400, 0.01, 4, 10),
            mix2(40) || rot2(2) || mix2(40, 40) || mix2(15) || rot2(3) || mix2(40, 80) || mix2(20, 40)
            || rot2(1) || mix2(30, 120) || rot2(4) || mix2(20, 150)
            || uni2(cuckoo_rotate(cuckoo_rotate(cuckoo_rotate(cuckoo_rotate(
                 cuckoo_add_array(cuckoo_create(400, 0.01, 4, 10), ints(1, 30)), 2), 3), 1), 4)));
SELECT ops2('ops2_rotated_b2_f8', 'int8', cuckoo_create(200, 0.01, 2, 8),
            mix2(30) || rot2(1) || mix2(30, 30) || mix2(10) || rot2(1) || mix2(30, 60));
SELECT ops2('ops2_rotated_b8_f9', 'int8', cuckoo_create(300, 0.01, 8, 9),
            mix2(40) || rot2(2) || mix2(40, 40) || rot2(2) || mix2(20, 80) || mix2(20));
SELECT ops2('ops2_rotated_grow', 'int8', cuckoo_rotate(cuckoo_create(5, 0.01, expansion => 2), 2),
            mix2(60) || rot2(2) || mix2(60, 60) || mix2(20) || rot2(3) || mix2(60, 120)
            || uni2(cuckoo_rotate(cuckoo_rotate(cuckoo_rotate(
                 cuckoo_add_array(cuckoo_create(5, 0.01, expansion => 2), ints(100, 160)), 2), 2), 3)));
-- a rotated fixed filter with its victim slot in use: removes put it back
SELECT ops2('ops2_rotated_full', 'int8', (r).filt,
            ARRAY[ARRAY['remove', (ints(1, 1))[1]::text], ARRAY['remove', (ints(2, 2))[1]::text],
                  ARRAY['remove', (ints(3, 3))[1]::text], ARRAY['remove', (ints(4, 4))[1]::text],
                  ARRAY['add', '7'], ARRAY['add_if_absent', '7'], ARRAY['add_if_absent', (ints(5, 5))[1]::text]])
  FROM (SELECT fill(cuckoo_rotate(cuckoo_add_array(cuckoo_create(30, 0.01, 2, 12), ints(1, 20)), 2), ints(21, 1000), true) r) s;
-- text values, and an empty growing filter taking its kind from a union
SELECT ops2('ops2_grow_text', 'text', cuckoo_create(5, 0.01, expansion => 2),
            ARRAY(SELECT ARRAY[CASE WHEN i % 4 = 0 THEN 'remove' WHEN i % 3 = 0 THEN 'add_if_absent' ELSE 'add' END,
                               'w' || (CASE WHEN i % 4 = 0 THEN i / 2 ELSE i END)] FROM generate_series(1, 150) i));
SELECT ops2('ops2_union_into_empty', 'text', cuckoo_create(20, 0.01, expansion => 2),
            uni2(cuckoo_add_array(cuckoo_create(20, 0.01, expansion => 2), ARRAY(SELECT 'u' || i FROM generate_series(1, 300) i)))
            || ARRAY[ARRAY['remove', 'u7'], ARRAY['add', 'u7'], ARRAY['add', 'x']]);

\o :dir/ops_v2.json
SELECT json_build_object(
  'about', 'format-version-2 filters: start filter (text form), then steps [operation, argument, filter after it or null]; operation add, add_if_absent, remove (argument: a value of type), rotate (argument: keep, cuckoo_rotate), union (argument: the other filter, cuckoo_union(f, other)); the filter after is given after every 10th step, every rotate and union, and the last',
  'ops', json_agg(json_build_object('name', name, 'type', type, 'start', start, 'steps', steps) ORDER BY ord))
FROM vo2;
\o

DROP SCHEMA vec CASCADE;
