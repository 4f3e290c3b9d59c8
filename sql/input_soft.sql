-- Soft input errors (PostgreSQL 16 and later; the Makefile runs this file
-- there only): pg_input_is_valid and pg_input_error_info ask the input
-- function whether a text is a cuckoofilter without raising an error, so a
-- load can sort good rows from bad ones.

-- Valid text: an empty filter and one with items.
SELECT pg_input_is_valid(cuckoo_create(1)::text, 'cuckoofilter') AS empty_ok,
       pg_input_is_valid(cuckoo_agg(g)::text, 'cuckoofilter') AS with_items_ok
FROM generate_series(1, 1000) g;

-- Not base64, or base64 with something before or after it: the syntax error.
SELECT t AS input, pg_input_is_valid(t, 'cuckoofilter') AS valid
FROM unnest(ARRAY['', 'abc', 'Q0tPTw=!', ' Q0tPTw==', 'Q0tPTw== ', 'Q0tP Tw==', '\x434b4f4f']) t;
SELECT * FROM pg_input_error_info('abc', 'cuckoofilter');

-- Valid base64 of a value the validator refuses: its message, same SQLSTATE.
SELECT * FROM pg_input_error_info('Q0tPTw==', 'cuckoofilter');
SELECT * FROM pg_input_error_info(repeat('A', 72), 'cuckoofilter');
-- A filter with items and one bucket byte changed; then one byte cut off.
SELECT pg_input_is_valid(encode(set_byte(f::bytea, 60, 255), 'base64'), 'cuckoofilter') AS corrupted_valid,
       pg_input_is_valid(encode(substring(f::bytea from 1 for octet_length(f::bytea) - 1), 'base64'), 'cuckoofilter') AS truncated_valid
FROM (SELECT cuckoo_add_array(cuckoo_create(1000), ARRAY(SELECT generate_series(1, 500))) AS f) s;
SELECT message, sql_error_code FROM pg_input_error_info(
  (SELECT encode(substring(cuckoo_create(10)::bytea from 1 for 47), 'base64')), 'cuckoofilter');

-- Soft errors in use: rows of a staging table that are filters, and those
-- that are not, without an exception block.
CREATE TABLE staging (id int, t text);
INSERT INTO staging VALUES (1, cuckoo_add_array(cuckoo_create(10), ARRAY[1, 2, 3])::text),
                           (2, 'not a filter'), (3, cuckoo_create(5)::text), (4, 'Q0tPTw==');
SELECT id, pg_input_is_valid(t, 'cuckoofilter') AS valid FROM staging ORDER BY id;
SELECT id, cuckoo_contains(t::cuckoofilter, 2) AS has_2
FROM staging WHERE pg_input_is_valid(t, 'cuckoofilter') ORDER BY id;

-- The hard error is unchanged where no soft-error context is given.
\set VERBOSITY terse
SELECT 'not a filter'::cuckoofilter;
SELECT 'Q0tPTw=='::cuckoofilter;
DROP TABLE staging;
