-- Every test file runs after this one.
CREATE EXTENSION cuckoo;
-- regress_state(sql): the SQLSTATE and message of a statement that fails,
-- 'ok' if not.  The files that check errors call it through a function of
-- their own name (tstate in track.sql, lstate in store_load.sql, ...).
CREATE FUNCTION regress_state(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT extname, extversion FROM pg_extension WHERE extname = 'cuckoo';
