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
-- regress_plan_has(sql, node): whether the plan of a query has a node (the
-- plans' other lines differ between versions)
CREATE FUNCTION regress_plan_has(q text, node text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l LIKE '%' || node || '%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
SELECT extname, extversion FROM pg_extension WHERE extname = 'cuckoo';
