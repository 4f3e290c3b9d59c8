-- Shared filter rows and the ground truth they must agree with.
CREATE EXTENSION IF NOT EXISTS cuckoo;
CREATE TABLE filters (id int PRIMARY KEY, f cuckoofilter NOT NULL);
INSERT INTO filters SELECT g, cuckoo_create(200000) FROM generate_series(1, 4) g;
CREATE TABLE truth (id int, k bigint, PRIMARY KEY (id, k));

-- Adds k to filter r unless the truth already has it; both in one transaction.
CREATE FUNCTION op_add(r int, key bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO truth VALUES (r, key) ON CONFLICT DO NOTHING;
  IF FOUND THEN
    UPDATE filters SET f = cuckoo_add(f, key) WHERE id = r;
  END IF;
END $$;

-- Removes k from filter r if the truth has it (only added values are removed).
CREATE FUNCTION op_remove(r int, key bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM truth WHERE id = r AND k = key;
  IF FOUND THEN
    UPDATE filters SET f = cuckoo_remove(f, key) WHERE id = r;
  END IF;
END $$;
