-- cuckoo_agg sizing: bits per item and measured false-positive rate for
-- n distinct values, n from 1,000 to 10,000,000 (round and awkward sizes).
-- Run: pg_virtualenv -t -v 15 psql -X -f bench/agg_sizing.sql   (after make install)
CREATE EXTENSION IF NOT EXISTS cuckoo;
\pset footer off
CREATE TEMP TABLE sizing (n bigint, buckets bigint, f int, bytes bigint, bits_per_item float8,
                          bound float8, fpr float8, false_negatives bigint);
DO $$
DECLARE
  n bigint;
  f cuckoofilter;
  i record;
  probes bigint;
  fp bigint;
  fneg bigint;
BEGIN
  FOREACH n IN ARRAY ARRAY[1000, 1337, 2047, 3000, 4097, 7000, 10000, 16385, 30000, 65537,
                           100000, 250000, 524289, 1000000, 2000000, 4194305, 10000000]::bigint[] LOOP
    SELECT cuckoo_agg(g) INTO f FROM generate_series(1, n) g;
    SELECT * INTO i FROM cuckoo_info(f);
    probes := greatest(200000, least(n, 1000000));
    SELECT count(*) FILTER (WHERE cuckoo_contains(f, g)) INTO fp
      FROM generate_series(1000000000::bigint, 1000000000::bigint + probes - 1) g;
    SELECT count(*) FILTER (WHERE NOT cuckoo_contains(f, g)) INTO fneg FROM generate_series(1, n) g;
    INSERT INTO sizing VALUES (n, i.buckets, i.fingerprint_bits, i.bytes, i.bits_per_item,
                               1.08 * i.fingerprint_bits / 0.95, fp::float8 / probes, fneg);
  END LOOP;
END $$;
SELECT n, buckets, f, bytes, round(bits_per_item::numeric, 3) AS bits_per_item,
       round(bound::numeric, 3) AS "1.08*f/0.95", round((bits_per_item / (f / 0.95))::numeric, 4) AS "ratio to f/0.95",
       round(fpr::numeric, 5) AS measured_fpr, false_negatives
FROM sizing ORDER BY n;
