-- Living filters: values held by many rows (issue *Living filters*,
-- Duplicates).  A value stays found until the last row holding it is gone,
-- however many rows hold it, and no statement fails because values repeat
-- (docs/DESIGN.md, "Duplicates: counting copies, saturating at half a
-- pair").  Small stores (capacities 1,000 to 10,000: one to thirteen
-- segments) get columns whose values repeat 2, 3, 5, 10 and 50 times, k =
-- (id * 7919) % vals, so ids 1 .. vals hold every value once; rows are then
-- deleted in several orders, cuckoo_store_verify's missing (values of the
-- rows the store does not find) checked after each statement.  Each
-- statement commits on its own: the store changes at its commit.  With the
-- rule before (b = 4 copies) the commits of 2001 values 5 and 50 times into
-- a store of 1,000, and the first fill below, failed ("cuckoo filter is
-- full"); the other sizes passed.

CREATE SCHEMA tdup;
-- rows(t, vals, from, to): ids from .. to, k = (id * 7919) % vals
CREATE FUNCTION tdup.fill(t regclass, vals int8, a int8, b int8) RETURNS void LANGUAGE plpgsql AS
  $$ BEGIN EXECUTE format('INSERT INTO %s SELECT g, (g * 7919) %% %s FROM generate_series(%s::int8, %s) g',
                          t, vals, a, b); END $$;
CREATE FUNCTION tdup.check(s regclass) RETURNS text LANGUAGE sql AS
  $$ SELECT format('missing %s of %s rows', missing, rows) FROM cuckoo_store_verify(s) $$;

-- 5 times: 2001 values, 10,005 rows, capacity 1,000
SELECT cuckoo_store_create('tdup.s5', 1000) IS NOT NULL AS created;
CREATE TABLE tdup.t5 (id int8 PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdup.s5', 'tdup.t5', 'k');
SELECT tdup.fill('tdup.t5', 2001, 1, 10005);
SELECT tdup.check('tdup.s5');
DELETE FROM tdup.t5 WHERE id % 2 = 0;
SELECT tdup.check('tdup.s5');
-- one row left of half of the values (odd ids up to 2001), none of the others
DELETE FROM tdup.t5 WHERE id > 2001;
SELECT tdup.check('tdup.s5');
-- the copies again, then deleted from the last id down
SELECT tdup.fill('tdup.t5', 2001, 10006, 20010);
SELECT tdup.check('tdup.s5');
DELETE FROM tdup.t5 WHERE id > 15000;
SELECT tdup.check('tdup.s5');
DELETE FROM tdup.t5 WHERE id > 10000;
SELECT tdup.check('tdup.s5');
DELETE FROM tdup.t5 WHERE id > 100;
SELECT tdup.check('tdup.s5');
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('tdup.s5', k)) AS not_found_of_the_last
FROM tdup.t5;
DELETE FROM tdup.t5;
SELECT tdup.check('tdup.s5');

-- 50 times: 2001 values, 100,050 rows, capacity 1,000; deleted by value
SELECT cuckoo_store_create('tdup.s50', 1000) IS NOT NULL AS created;
CREATE TABLE tdup.t50 (id int8 PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdup.s50', 'tdup.t50', 'k');
SELECT tdup.fill('tdup.t50', 2001, 1, 100050);
SELECT tdup.check('tdup.s50');
-- every row but one of each value (the one with the smallest id)
DELETE FROM tdup.t50 WHERE id > 2001;
SELECT tdup.check('tdup.s50');
-- the values below 1000 gone altogether, the others kept by one row
DELETE FROM tdup.t50 WHERE k < 1000;
SELECT tdup.check('tdup.s50');
SELECT count(*) FILTER (WHERE NOT cuckoo_store_contains('tdup.s50', g)) AS not_found_of_kept
FROM generate_series(1000::int8, 2000) g;

-- 10 times: 1251 values, 12,510 rows, capacity 5,000; rows moved by UPDATE
SELECT cuckoo_store_create('tdup.s10', 5000) IS NOT NULL AS created;
CREATE TABLE tdup.t10 (id int8 PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdup.s10', 'tdup.t10', 'k');
SELECT tdup.fill('tdup.t10', 1251, 1, 12510);
SELECT tdup.check('tdup.s10');
-- every row of the odd values moves to the value above it
UPDATE tdup.t10 SET k = k + 1 WHERE k % 2 = 1;
SELECT tdup.check('tdup.s10');
DELETE FROM tdup.t10 WHERE id % 3 <> 0;
SELECT tdup.check('tdup.s10');
UPDATE tdup.t10 SET k = k + 100000;
SELECT tdup.check('tdup.s10');
DELETE FROM tdup.t10 WHERE id % 7 <> 0;
SELECT tdup.check('tdup.s10');

-- 3 times: 10001 values, 30,003 rows, capacity 10,000 (13 segments); then
-- 2 times: 4001 values in one transaction with deletes of some of them
SELECT cuckoo_store_create('tdup.s3', 10000) IS NOT NULL AS created;
CREATE TABLE tdup.t3 (id int8 PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdup.s3', 'tdup.t3', 'k');
SELECT tdup.fill('tdup.t3', 10001, 1, 30003);
SELECT tdup.check('tdup.s3');
DELETE FROM tdup.t3 WHERE id <= 10001;
SELECT tdup.check('tdup.s3');
DELETE FROM tdup.t3 WHERE id > 20002;
SELECT tdup.check('tdup.s3');
BEGIN;
INSERT INTO tdup.t3 SELECT g, 500000 + (g * 7919) % 4001 FROM generate_series(100001::int8, 108002) g;
DELETE FROM tdup.t3 WHERE id BETWEEN 100001 AND 104001;
SELECT tdup.check('tdup.s3');
COMMIT;
SELECT tdup.check('tdup.s3');
DELETE FROM tdup.t3 WHERE id BETWEEN 104002 AND 106000;
SELECT tdup.check('tdup.s3');

-- the first fill of a tracking counts the same way: 2001 values 5 times
-- already in the table when it is tracked, then deleted down to one row each
CREATE TABLE tdup.f5 (id int8 PRIMARY KEY, k int8);
SELECT tdup.fill('tdup.f5', 2001, 1, 10005);
SELECT cuckoo_store_create('tdup.sf', 1000) IS NOT NULL AS created;
SELECT cuckoo_store_track('tdup.sf', 'tdup.f5', 'k');
SELECT tdup.check('tdup.sf');
DELETE FROM tdup.f5 WHERE id > 2001;
SELECT tdup.check('tdup.sf');

-- a value held by one row at a time is removed with it (counting is exact
-- below b / 2 = 2 copies); one held by two rows at once stays (a false
-- positive) once both are gone
SELECT cuckoo_store_create('tdup.e', 1000) IS NOT NULL AS created;
CREATE TABLE tdup.e1 (id int8 PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdup.e', 'tdup.e1', 'k');
INSERT INTO tdup.e1 SELECT g, g FROM generate_series(1::int8, 500) g;
DELETE FROM tdup.e1;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tdup.e', g)) AS once_still_found_of_500
FROM generate_series(1::int8, 500) g;
SELECT items FROM cuckoo_store_info('tdup.e');
INSERT INTO tdup.e1 SELECT g, 1000 + (g + 1) / 2 FROM generate_series(1::int8, 1000) g;
DELETE FROM tdup.e1;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tdup.e', g)) AS held_twice_still_found_of_500
FROM generate_series(1001::int8, 1500) g;
SELECT tdup.check('tdup.e');

-- a direct change of a tracked store: a row of each of 1,000 values (one
-- copy), a direct add of each (two), a second row (at b / 2 = 2: nothing
-- added), then the direct remove of each direct add and the delete of one
-- row: each value still has a row and must be found.  A plain direct remove
-- took one of the two copies, the delete the other.
SELECT cuckoo_store_create('tdup.d', 1000) IS NOT NULL AS created;
CREATE TABLE tdup.d1 (id int8 PRIMARY KEY, k int8);
SELECT cuckoo_store_track('tdup.d', 'tdup.d1', 'k');
INSERT INTO tdup.d1 SELECT g, g FROM generate_series(1::int8, 1000) g;
SELECT count(cuckoo_store_add('tdup.d', g)) AS added FROM generate_series(1::int8, 1000) g;
INSERT INTO tdup.d1 SELECT 1000 + g, g FROM generate_series(1::int8, 1000) g;
SELECT count(*) FILTER (WHERE cuckoo_store_remove('tdup.d', g)) AS removed_directly,
       count(*) AS asked
FROM generate_series(1::int8, 997) g;
SELECT cuckoo_store_remove_array('tdup.d', ARRAY[998, 999, 1000]::int8[]) AS removed_by_array;
DELETE FROM tdup.d1 WHERE id > 1000;
SELECT count(*) FILTER (WHERE cuckoo_store_contains('tdup.d', g)) AS found_of_1000
FROM generate_series(1::int8, 1000) g;
SELECT tdup.check('tdup.d');
-- the same store untracked: its removes are plain again
SELECT cuckoo_store_untrack('tdup.d', 'tdup.d1', 'k');
SELECT cuckoo_store_add('tdup.d', 5000::int8);
SELECT cuckoo_store_add('tdup.d', 5000::int8);
SELECT cuckoo_store_remove('tdup.d', 5000::int8) AS first_removed;
SELECT cuckoo_store_remove('tdup.d', 5000::int8) AS second_removed;

DROP SCHEMA tdup CASCADE;
