-- cuckoo demo: build a filter of customer ids with cuckoo_agg and use it to
-- prefilter orders before a join.  Run by scripts/demo.sh in a throwaway
-- cluster; paste into psql to try it by hand.
\pset footer off
\echo '== cuckoo demo =='
CREATE EXTENSION cuckoo;

-- 100,000 active customers; 1,000,000 orders, a third of them placed by
-- customers that are not active.
CREATE TABLE customers (id bigint PRIMARY KEY, name text);
INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(1, 100000) g;
CREATE TABLE orders (id bigint, customer_id bigint, amount numeric);
INSERT INTO orders
SELECT g, 1 + (g::bigint * 7919) % 150000, (g % 1000) / 10.0 FROM generate_series(1, 1000000) g;
ANALYZE customers, orders;

\echo
\echo '-- 1. Build a filter of the customer ids, sized to the data (1% false positives):'
CREATE TABLE filters AS SELECT 'active customers' AS name, cuckoo_agg(id) AS f FROM customers;
SELECT name, items, buckets, fingerprint_bits, round(load_factor::numeric, 3) AS load,
       bytes, round(bits_per_item::numeric, 2) AS bits_per_item,
       round(expected_fpr::numeric, 4) AS expected_fpr
FROM filters, cuckoo_info(f);

\echo '-- 2. Probe it: members are always found, others almost never:'
SELECT cuckoo_contains(f, 42::bigint) AS has_42, f @> 123456789::bigint AS has_123456789
FROM filters;

\echo '-- 3. Prefilter the orders (e.g. before shipping them to another node), then join:'
SELECT count(*) AS orders_total,
       count(*) FILTER (WHERE cuckoo_contains(f, o.customer_id)) AS orders_passing_filter
FROM orders o, filters;
SELECT count(*) AS orders_of_active_customers
FROM orders o JOIN customers c ON c.id = o.customer_id
WHERE cuckoo_contains((SELECT f FROM filters WHERE name = 'active customers'), o.customer_id);

\echo '-- 4. No false negatives: every order of an active customer passed the filter:'
SELECT count(*) AS lost_orders
FROM orders o JOIN customers c ON c.id = o.customer_id, filters
WHERE NOT cuckoo_contains(f, o.customer_id);

\echo '-- 5. Filters are values: update them in place, delete from them, union them'
\echo '--    (fixed-shape filters store colliding values once, so union_items can be'
\echo '--    a little below 100000 while every id is found):'
UPDATE filters SET f = cuckoo_add(f, 200001::bigint);
UPDATE filters SET f = cuckoo_remove(f, 42::bigint);
SELECT f @> 200001::bigint AS has_new_customer, f @> 42::bigint AS still_has_42, (cuckoo_info(f)).items
FROM filters;
-- (Fixed-shape filters store a value once when its fingerprint and buckets are
-- already taken, by the same value or, rarely, another one: every id is still
-- found, but items can be a little below the number of distinct ids.)
WITH u AS MATERIALIZED (
  SELECT cuckoo_union(a, b) AS f
  FROM (SELECT cuckoo_agg(id, 200000, 0.01) AS a FROM customers WHERE id <= 60000) x,
       (SELECT cuckoo_agg(id, 200000, 0.01) AS b FROM customers WHERE id > 40000) y)
SELECT (cuckoo_info(f)).items AS union_items,
       (SELECT count(*) FROM customers WHERE NOT f @> id) AS ids_not_found
FROM u;
\echo '== demo done =='
