-- Every test file runs after this one.
CREATE EXTENSION cuckoo;
SELECT extname, extversion FROM pg_extension WHERE extname = 'cuckoo';
