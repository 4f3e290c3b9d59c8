-- Long operations on large filters are cancellable: the core's loops call
-- CHECK_FOR_INTERRUPTS every 65536 buckets, so statement_timeout stops them.
-- (A 153 MB filter; each statement below takes far longer than 100 ms.)
CREATE TABLE big AS SELECT cuckoo_add_array(cuckoo_create(300000000, 0.5), ARRAY[1]) AS f;
SELECT octet_length(f::bytea) > 150000000 AS large FROM big;
SET statement_timeout = '100ms';
SELECT (cuckoo_info(cuckoo_union(f, f))).items FROM big;
SELECT (cuckoo_info(cuckoo_shrink(f))).buckets FROM big;
SELECT (cuckoo_info(f::bytea::cuckoofilter)).items FROM big;
-- A filter computed in the query (never TOASTed), so the time is the core's.
SET statement_timeout = '300ms';
SELECT (cuckoo_info(cuckoo_union(x, x))).items
FROM (SELECT cuckoo_add(cuckoo_create(300000000, 0.5), 1) AS x OFFSET 0) s;
RESET statement_timeout;
-- The stored filter is untouched.
SELECT (cuckoo_info(f)).items, f @> 1 AS has_1 FROM big;
DROP TABLE big;
