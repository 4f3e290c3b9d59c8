-- Every (filter, key) in the truth is found; items equal the truth's count;
-- every filter passes the full validator (bytea cast).
SELECT count(*) FILTER (WHERE NOT cuckoo_contains(f.f, t.k)) AS false_negatives,
       count(*) AS truth_rows
FROM truth t JOIN filters f USING (id);
SELECT bool_and((cuckoo_info(f)).items = (SELECT count(*) FROM truth t WHERE t.id = filters.id)) AS items_match,
       bool_and(f::bytea::cuckoofilter IS NOT NULL) AS all_valid
FROM filters;
