-- The planner's estimate for cuckoo_contains(f, col) and f @> col: the
-- filter's items against the column's distinct values, plus false positives,
-- when the filter is known at plan time (a literal or a custom plan's parameter).
CREATE TABLE events (k bigint, payload text);
INSERT INTO events SELECT g % 100000, 'x' FROM generate_series(1, 200000) g;
ANALYZE events;
CREATE FUNCTION estimated_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
CREATE FUNCTION actual_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE n float8;
BEGIN
  EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
  RETURN n;
END $$;

SELECT cuckoo_agg(g::bigint)::text AS small FROM generate_series(1, 1000) g \gset
SELECT cuckoo_agg(g::bigint)::text AS large FROM generate_series(1, 50000) g \gset

-- Each filter's estimate is within 2x of the rows that pass it.
SELECT name, e.rows / a.rows BETWEEN 0.5 AND 2 AS within_2x, a.rows > 0 AS some_rows
FROM (VALUES
  ('small literal', format('SELECT * FROM events WHERE cuckoo_contains(%L::cuckoofilter, k)', :'small')),
  ('large literal', format('SELECT * FROM events WHERE cuckoo_contains(%L::cuckoofilter, k)', :'large')),
  ('small operator', format('SELECT * FROM events WHERE %L::cuckoofilter @> k', :'small'))
) q(name, sql), LATERAL (SELECT estimated_rows(q.sql) AS rows) e, LATERAL (SELECT actual_rows(q.sql) AS rows) a
ORDER BY name;

-- A selective filter makes the planner expect few rows (not the default 10%).
SELECT estimated_rows(format('SELECT * FROM events WHERE cuckoo_contains(%L::cuckoofilter, k)', :'small')) < 5000 AS selective;

-- In a custom plan the parameter is known; in a generic plan it is not.
PREPARE q(cuckoofilter) AS SELECT * FROM events WHERE cuckoo_contains($1, k);
SET plan_cache_mode = force_custom_plan;
SELECT estimated_rows(format('EXECUTE q(%L)', :'small')) < 5000 AS custom_plan_selective;
SET plan_cache_mode = force_generic_plan;
SELECT estimated_rows(format('EXECUTE q(%L)', :'small')) = 20000 AS generic_plan_default_10pct;
RESET plan_cache_mode;
