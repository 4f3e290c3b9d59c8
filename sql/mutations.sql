-- 12,000 mutated values (of format versions 1 and 2) through the text input and the bytea cast: each ends
-- as a valid filter (which then works) or an ERROR with SQLSTATE 22P02 (text)
-- or 22P03 (binary); none crashes the server.  Mutations are seeded, so the
-- counts are the same on every run.
SELECT setseed(0.42);
CREATE TEMP TABLE seeds AS
SELECT row_number() OVER () AS id, f::bytea AS b FROM (VALUES
  (cuckoo_add_array(cuckoo_create(200), ARRAY(SELECT generate_series(1, 150)))),
  (cuckoo_add_array(cuckoo_create(100, semisort => true), ARRAY(SELECT generate_series(1, 90)))),
  (cuckoo_add_array(cuckoo_create(60, 0.01, 8), ARRAY(SELECT g::text FROM generate_series(1, 50) g))),
  (cuckoo_add_array(cuckoo_create(4, max_kicks => 0), ARRAY[1, 2, 3, 4, 5])),
  (cuckoo_create(30, 0.01, 2)),
  -- format version 2 (1.2): grown, and rotated with generation counts
  (cuckoo_add_array(cuckoo_create(20, expansion => 2), ARRAY(SELECT generate_series(1, 200)))),
  (cuckoo_add_array(cuckoo_rotate(cuckoo_add_array(cuckoo_create(10, expansion => 2), ARRAY(SELECT generate_series(1, 60))), 3),
                    ARRAY[100, 101]))) v(f);

CREATE FUNCTION mutate(b bytea) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
  kind int := floor(random() * 6);
  pos int := floor(random() * octet_length(b));
BEGIN
  CASE kind
    WHEN 0 THEN RETURN set_byte(b, pos, get_byte(b, pos) # (1 << floor(random() * 8)::int));  -- bit flip
    WHEN 1 THEN RETURN set_byte(b, pos, floor(random() * 256)::int);                          -- random byte
    WHEN 2 THEN RETURN substring(b from 1 for pos);                                             -- truncation
    WHEN 3 THEN RETURN b || substring(b from 1 for 1 + floor(random() * 8)::int);             -- extension
    WHEN 4 THEN RETURN set_byte(b, floor(random() * least(octet_length(b), 96))::int,
                                floor(random() * 256)::int);                                   -- header byte (v2: 64+)
    ELSE RETURN set_byte(set_byte(b, pos, floor(random() * 256)::int),
                         floor(random() * octet_length(b))::int, floor(random() * 256)::int);  -- two bytes
  END CASE;
END $$;

CREATE TEMP TABLE outcomes (path text, outcome text);
DO $$
DECLARE
  m bytea;
  f cuckoofilter;
BEGIN
  FOR i IN 1..6000 LOOP
    SELECT mutate(b) INTO m FROM seeds WHERE id = 1 + i % 7;
    BEGIN
      f := m::cuckoofilter;
      -- accepted: it must behave as a filter
      PERFORM cuckoo_info(f), cuckoo_union(f, f), cuckoo_shrink(f), f::text::cuckoofilter;
      INSERT INTO outcomes VALUES ('bytea', 'valid');
    EXCEPTION WHEN OTHERS THEN
      INSERT INTO outcomes VALUES ('bytea', SQLSTATE);
    END;
    BEGIN
      f := replace(encode(m, 'base64'), E'\n', '')::cuckoofilter;
      INSERT INTO outcomes VALUES ('text', 'valid');
    EXCEPTION WHEN OTHERS THEN
      INSERT INTO outcomes VALUES ('text', SQLSTATE);
    END;
  END LOOP;
END $$;
SELECT path, outcome, count(*) > 0 AS seen FROM outcomes GROUP BY 1, 2 ORDER BY 1, 2;
SELECT count(*) AS values_tried FROM outcomes;
