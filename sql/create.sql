-- cuckoo_create: shapes, sizing, and argument errors (SQLSTATE 22023).
\set VERBOSITY default

-- Sizing from capacity and fpr: fingerprint bits from fpr, buckets from
-- capacity at the target load; explicit fingerprint_bits overrides fpr.
SELECT c.capacity AS requested, c.fpr, i.buckets, i.bucket_size, i.fingerprint_bits,
       i.capacity, i.bytes, i.value_type, i.is_full
FROM (VALUES (1, 0.01), (100, 0.01), (1000, 0.01), (1000000, 0.01),
             (1000000, 0.001), (1000000, 0.0001), (1000000, 0.1)) AS c(capacity, fpr),
     LATERAL cuckoo_info(cuckoo_create(c.capacity, c.fpr)) i
ORDER BY 1, 2;

SELECT b AS bucket_size, (cuckoo_info(cuckoo_create(100000, 0.01, b))).fingerprint_bits,
       (cuckoo_info(cuckoo_create(100000, 0.01, b))).buckets
FROM unnest(ARRAY[2, 4, 8]) b;

SELECT f AS fingerprint_bits, (cuckoo_info(cuckoo_create(1000, fingerprint_bits => f))).bytes
FROM unnest(ARRAY[4, 5, 12, 16, 31, 32]) f;

SELECT buckets, fingerprint_bits, semisort, bytes
FROM cuckoo_info(cuckoo_create(100000, 0.01, 4, 13, 500, true));

SELECT max_kicks FROM cuckoo_info(cuckoo_create(10, max_kicks => 0));
SELECT max_kicks FROM cuckoo_info(cuckoo_create(10, max_kicks => 100000));

-- A NULL argument gives NULL (fingerprint_bits NULL means "derive from fpr").
SELECT cuckoo_create(NULL) IS NULL AS null_capacity,
       cuckoo_create(10, NULL) IS NULL AS null_fpr,
       cuckoo_create(10, 0.01, 4, NULL) IS NOT NULL AS derived_bits;

-- Wrong arguments.
SELECT cuckoo_create(0);
SELECT cuckoo_create(-5);
SELECT cuckoo_create(10, 0);
SELECT cuckoo_create(10, 1);
SELECT cuckoo_create(10, -0.5);
SELECT cuckoo_create(10, 'NaN');
SELECT cuckoo_create(10, 0.01, 3);
SELECT cuckoo_create(10, 0.01, 16);
SELECT cuckoo_create(10, fingerprint_bits => 40);
SELECT cuckoo_create(10, fingerprint_bits => 3);
SELECT cuckoo_create(10, max_kicks => -1);
SELECT cuckoo_create(10, max_kicks => 100001);
SELECT cuckoo_create(10, bucket_size => 2, semisort => true);
SELECT cuckoo_create(10, 1e-12);
SELECT cuckoo_create(10000000000);
SELECT cuckoo_create(9223372036854775807);

-- The SQLSTATE of each of those is 22023.
DO $$
DECLARE
  calls text[] := ARRAY['cuckoo_create(0)', 'cuckoo_create(10, 1.5)', 'cuckoo_create(10, 0.01, 3)',
                        'cuckoo_create(10, fingerprint_bits => 40)', 'cuckoo_create(10, max_kicks => -1)',
                        'cuckoo_create(10, bucket_size => 8, semisort => true)',
                        'cuckoo_create(10000000000)', 'cuckoo_create(10, 1e-12)'];
  c text;
BEGIN
  FOREACH c IN ARRAY calls LOOP
    BEGIN
      EXECUTE 'SELECT ' || c;
      RAISE NOTICE '% succeeded', c;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE '% -> %', c, SQLSTATE;
    END;
  END LOOP;
END $$;
