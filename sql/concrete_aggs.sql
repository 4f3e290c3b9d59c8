-- Concrete overloads of cuckoo_agg (1.1): a call over a column of a type with
-- a built-in hash encoding resolves to a non-polymorphic aggregate, so that a
-- caller that checks declared argument types against the values' (Citus's
-- worker_partial_agg) accepts it.  Other types keep the polymorphic form.
\set VERBOSITY default

-- Which aggregate a call resolves to: the function a view over it depends on.
CREATE FUNCTION resolved(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE 'CREATE TEMP VIEW resolved_v AS SELECT ' || expr || ' AS a';
  SELECT string_agg(d.refobjid::regprocedure::text, ', ' ORDER BY d.refobjid::regprocedure::text) INTO r
  FROM pg_depend d JOIN pg_rewrite w ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
  WHERE w.ev_class = 'resolved_v'::regclass AND d.refclassid = 'pg_proc'::regclass;
  DROP VIEW resolved_v;
  RETURN r;
END $$;

CREATE DOMAIN big_id AS bigint;
CREATE DOMAIN short_text AS varchar(10);
CREATE TYPE agg_mood AS ENUM ('sad', 'ok');
SELECT e AS call, resolved(e) AS resolves_to FROM unnest(ARRAY[
  'cuckoo_agg(1::smallint, 100, 0.01)', 'cuckoo_agg(1, 100, 0.01)', 'cuckoo_agg(1::bigint, 100, 0.01)',
  'cuckoo_agg(1.5, 100, 0.01)', 'cuckoo_agg(''x''::text, 100, 0.01)', 'cuckoo_agg(''x''::varchar(3), 100, 0.01)',
  'cuckoo_agg(''x''::char(3), 100, 0.01)', 'cuckoo_agg(''x''::name, 100, 0.01)', 'cuckoo_agg(''\x01''::bytea, 100, 0.01)',
  'cuckoo_agg(gen_random_uuid(), 100, 0.01)', 'cuckoo_agg(current_date, 100, 0.01)',
  'cuckoo_agg(localtimestamp, 100, 0.01)', 'cuckoo_agg(now(), 100, 0.01)', 'cuckoo_agg(true, 100, 0.01)',
  'cuckoo_agg(1::real, 100, 0.01)', 'cuckoo_agg(1::float8, 100, 0.01)',
  -- unknown-typed literals resolve to text, as with the polymorphic form
  'cuckoo_agg(''x'', 100, 0.01)', 'cuckoo_agg(''x'')', 'cuckoo_agg(''x'', 0.01)',
  -- domains resolve to their base type's overload
  'cuckoo_agg(1::big_id, 100, 0.01)', 'cuckoo_agg(''x''::short_text)',
  -- capacity and fpr of other numeric types are cast as before
  'cuckoo_agg(1::bigint, 100::smallint, 1)', 'cuckoo_agg(1::bigint, 100, 0.01::real)',
  -- the auto-sized forms
  'cuckoo_agg(1)', 'cuckoo_agg(1::bigint)', 'cuckoo_agg(1::bigint, 0.01)', 'cuckoo_agg(now(), 0.01)',
  -- types without an overload stay polymorphic
  'cuckoo_agg(ARRAY[1], 100, 0.01)', 'cuckoo_agg(''ok''::agg_mood)', 'cuckoo_agg(''1 day''::interval, 0.01)',
  'cuckoo_agg(''10.0.0.1''::inet)', 'cuckoo_agg(''{}''::jsonb)',
  -- "char" has its own overload: its implicit cast to text would otherwise
  -- make the call ambiguous; it hashes as with the polymorphic form
  'cuckoo_agg(''a''::"char")', 'cuckoo_agg(''a''::"char", 10, 0.01)'
]) e;

-- Every overload gives the same filter, byte for byte, as the polymorphic
-- aggregate of 1.0 (declared here again over the extension's own functions).
CREATE AGGREGATE poly_agg(anycompatible) (
    SFUNC = cuckoo_agg_trans, STYPE = internal, FINALFUNC = cuckoo_agg_final, FINALFUNC_EXTRA,
    COMBINEFUNC = cuckoo_agg_combine, SERIALFUNC = cuckoo_agg_serialize, DESERIALFUNC = cuckoo_agg_deserialize);
CREATE AGGREGATE poly_agg(anycompatible, float8) (
    SFUNC = cuckoo_agg_trans, STYPE = internal, FINALFUNC = cuckoo_agg_final, FINALFUNC_EXTRA,
    COMBINEFUNC = cuckoo_agg_combine, SERIALFUNC = cuckoo_agg_serialize, DESERIALFUNC = cuckoo_agg_deserialize);
CREATE AGGREGATE poly_agg(anycompatible, bigint, float8) (
    SFUNC = cuckoo_agg_fixed_trans, STYPE = cuckoofilter, FINALFUNC = cuckoo_agg_fixed_final,
    FINALFUNC_EXTRA, COMBINEFUNC = cuckoo_union_trans);
CREATE TABLE fam AS
SELECT g::smallint AS i2, g AS i4, g::bigint * 1000003 AS i8, (g / 7.0)::numeric AS num,
       md5(g::text) AS txt, md5(g::text)::varchar(40) AS vc, left(md5(g::text), 6)::char(8) AS bp,
       md5(g::text)::name AS nm, decode(md5(g::text), 'hex') AS ba, md5(g::text)::uuid AS id,
       date '2020-01-01' + g AS d, timestamp '2020-01-01' + g * interval '1 minute' AS ts,
       timestamptz '2020-01-01 UTC' + g * interval '1 minute' AS tstz, g % 2 = 0 AS b,
       (g / 3.0)::real AS f4, g / 3.0::float8 AS f8, chr(33 + g % 90)::"char" AS ch
FROM generate_series(1, 3000) g, LATERAL (SELECT 1) x;
INSERT INTO fam SELECT * FROM fam WHERE i4 <= 100;   -- repeats
INSERT INTO fam (i4) VALUES (NULL);                   -- NULLs are skipped
SELECT c AS column_type,
       (SELECT count(*) FROM fam) AS n,
       same_auto, same_fpr, same_fixed
FROM (VALUES
  ('smallint',    (SELECT cuckoo_agg(i2)::bytea = poly_agg(i2)::bytea FROM fam), (SELECT cuckoo_agg(i2, 0.001)::bytea = poly_agg(i2, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(i2, 5000, 0.01)::bytea = poly_agg(i2, 5000, 0.01)::bytea FROM fam)),
  ('integer',     (SELECT cuckoo_agg(i4)::bytea = poly_agg(i4)::bytea FROM fam), (SELECT cuckoo_agg(i4, 0.001)::bytea = poly_agg(i4, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(i4, 5000, 0.01)::bytea = poly_agg(i4, 5000, 0.01)::bytea FROM fam)),
  ('bigint',      (SELECT cuckoo_agg(i8)::bytea = poly_agg(i8)::bytea FROM fam), (SELECT cuckoo_agg(i8, 0.001)::bytea = poly_agg(i8, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(i8, 5000, 0.01)::bytea = poly_agg(i8, 5000, 0.01)::bytea FROM fam)),
  ('numeric',     (SELECT cuckoo_agg(num)::bytea = poly_agg(num)::bytea FROM fam), (SELECT cuckoo_agg(num, 0.001)::bytea = poly_agg(num, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(num, 5000, 0.01)::bytea = poly_agg(num, 5000, 0.01)::bytea FROM fam)),
  ('text',        (SELECT cuckoo_agg(txt)::bytea = poly_agg(txt)::bytea FROM fam), (SELECT cuckoo_agg(txt, 0.001)::bytea = poly_agg(txt, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(txt, 5000, 0.01)::bytea = poly_agg(txt, 5000, 0.01)::bytea FROM fam)),
  ('varchar',     (SELECT cuckoo_agg(vc)::bytea = poly_agg(vc)::bytea FROM fam), (SELECT cuckoo_agg(vc, 0.001)::bytea = poly_agg(vc, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(vc, 5000, 0.01)::bytea = poly_agg(vc, 5000, 0.01)::bytea FROM fam)),
  ('bpchar',      (SELECT cuckoo_agg(bp)::bytea = poly_agg(bp)::bytea FROM fam), (SELECT cuckoo_agg(bp, 0.001)::bytea = poly_agg(bp, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(bp, 5000, 0.01)::bytea = poly_agg(bp, 5000, 0.01)::bytea FROM fam)),
  ('name',        (SELECT cuckoo_agg(nm)::bytea = poly_agg(nm)::bytea FROM fam), (SELECT cuckoo_agg(nm, 0.001)::bytea = poly_agg(nm, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(nm, 5000, 0.01)::bytea = poly_agg(nm, 5000, 0.01)::bytea FROM fam)),
  ('bytea',       (SELECT cuckoo_agg(ba)::bytea = poly_agg(ba)::bytea FROM fam), (SELECT cuckoo_agg(ba, 0.001)::bytea = poly_agg(ba, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(ba, 5000, 0.01)::bytea = poly_agg(ba, 5000, 0.01)::bytea FROM fam)),
  ('uuid',        (SELECT cuckoo_agg(id)::bytea = poly_agg(id)::bytea FROM fam), (SELECT cuckoo_agg(id, 0.001)::bytea = poly_agg(id, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(id, 5000, 0.01)::bytea = poly_agg(id, 5000, 0.01)::bytea FROM fam)),
  ('date',        (SELECT cuckoo_agg(d)::bytea = poly_agg(d)::bytea FROM fam), (SELECT cuckoo_agg(d, 0.001)::bytea = poly_agg(d, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(d, 5000, 0.01)::bytea = poly_agg(d, 5000, 0.01)::bytea FROM fam)),
  ('timestamp',   (SELECT cuckoo_agg(ts)::bytea = poly_agg(ts)::bytea FROM fam), (SELECT cuckoo_agg(ts, 0.001)::bytea = poly_agg(ts, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(ts, 5000, 0.01)::bytea = poly_agg(ts, 5000, 0.01)::bytea FROM fam)),
  ('timestamptz', (SELECT cuckoo_agg(tstz)::bytea = poly_agg(tstz)::bytea FROM fam), (SELECT cuckoo_agg(tstz, 0.001)::bytea = poly_agg(tstz, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(tstz, 5000, 0.01)::bytea = poly_agg(tstz, 5000, 0.01)::bytea FROM fam)),
  ('boolean',     (SELECT cuckoo_agg(b)::bytea = poly_agg(b)::bytea FROM fam), (SELECT cuckoo_agg(b, 0.001)::bytea = poly_agg(b, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(b, 5000, 0.01)::bytea = poly_agg(b, 5000, 0.01)::bytea FROM fam)),
  ('real',        (SELECT cuckoo_agg(f4)::bytea = poly_agg(f4)::bytea FROM fam), (SELECT cuckoo_agg(f4, 0.001)::bytea = poly_agg(f4, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(f4, 5000, 0.01)::bytea = poly_agg(f4, 5000, 0.01)::bytea FROM fam)),
  ('double',      (SELECT cuckoo_agg(f8)::bytea = poly_agg(f8)::bytea FROM fam), (SELECT cuckoo_agg(f8, 0.001)::bytea = poly_agg(f8, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(f8, 5000, 0.01)::bytea = poly_agg(f8, 5000, 0.01)::bytea FROM fam)),
  ('"char"',      (SELECT cuckoo_agg(ch)::bytea = poly_agg(ch)::bytea FROM fam), (SELECT cuckoo_agg(ch, 0.001)::bytea = poly_agg(ch, 0.001)::bytea FROM fam), (SELECT cuckoo_agg(ch, 5000, 0.01)::bytea = poly_agg(ch, 5000, 0.01)::bytea FROM fam))
) v(c, same_auto, same_fpr, same_fixed);

-- Every value is found in the filters of the new overloads (no false negatives).
SELECT count(*) FILTER (WHERE NOT cuckoo_contains(a, i8)) AS missed_auto,
       count(*) FILTER (WHERE NOT cuckoo_contains(f, txt)) AS missed_fixed,
       count(*) FILTER (WHERE NOT cuckoo_contains(t, tstz)) AS missed_fpr
FROM fam, (SELECT cuckoo_agg(i8) a, cuckoo_agg(txt, 5000, 0.01) f, cuckoo_agg(tstz, 0.0001) t FROM fam) s
WHERE i4 IS NOT NULL;

-- Grouped fixed-shape filters union; INSERT ... SELECT ... GROUP BY works.
SELECT count(*) FILTER (WHERE NOT cuckoo_contains(u, i8)) AS missed
FROM fam, (SELECT cuckoo_union_agg(f) u FROM (SELECT cuckoo_agg(i8, 5000, 0.01) f FROM fam GROUP BY i4 % 5) p) s
WHERE i8 IS NOT NULL;
CREATE TABLE part_filters (part int, f cuckoofilter);
INSERT INTO part_filters SELECT i4 % 4, cuckoo_agg(i8, 2000, 0.01) FROM fam WHERE i4 IS NOT NULL GROUP BY i4 % 4;
SELECT count(*) AS parts, sum((cuckoo_info(f)).items) AS items FROM part_filters;

-- Partitionwise aggregation: the partial states pass to the finalize step
-- inside one process; the result is the same filter.
CREATE TABLE fam_parts (node int, i8 bigint, txt text) PARTITION BY LIST (node);
CREATE TABLE fam_parts_0 PARTITION OF fam_parts FOR VALUES IN (0);
CREATE TABLE fam_parts_1 PARTITION OF fam_parts FOR VALUES IN (1);
INSERT INTO fam_parts SELECT i4 % 2, i8, txt FROM fam WHERE i4 IS NOT NULL;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(i8) FROM fam_parts;
SELECT (SELECT cuckoo_agg(i8)::bytea FROM fam_parts) = (SELECT cuckoo_agg(i8)::bytea FROM fam) AS same_auto,
       (SELECT cuckoo_agg(txt, 0.001)::bytea FROM fam_parts) = (SELECT cuckoo_agg(txt, 0.001)::bytea FROM fam) AS same_fpr;
RESET enable_partitionwise_aggregate;

-- As a window aggregate the state is only read by the final function.
SELECT i4, (cuckoo_info(cuckoo_agg(i8) OVER (ORDER BY i4 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))).items
FROM fam WHERE i4 <= 5 ORDER BY i4;

-- No rows: NULL, from every overload.
SELECT cuckoo_agg(i8) IS NULL AS a, cuckoo_agg(i8, 0.001) IS NULL AS b, cuckoo_agg(i8, 10, 0.01) IS NULL AS c
FROM fam WHERE false;

-- The transition functions belong to aggregates; called directly they refuse.
SELECT cuckoo_hashset_trans(NULL::cuckoo_hashset, 1::bigint);
SELECT cuckoo_agg_fixed_trans(NULL::cuckoofilter, 1::bigint, 10, 0.01);
SELECT cuckoo_hashset_combine(NULL::cuckoo_hashset, NULL::cuckoo_hashset);
