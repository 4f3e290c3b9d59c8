#!/usr/bin/env bash
# Installing and using cuckoo as an ordinary role (the extension is trusted),
# inside a throwaway cluster.  The install script must not be hijackable by
# objects a role planted beforehand.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
# as_super / as_app DB SQL: output and errors of SQL as the superuser / as app
as_super() { q "$1" "$2" 2>&1; }
as_app() { PGPASSWORD=app_pw q "$1" "$2" -U app 2>&1; }

as_super postgres "CREATE ROLE app LOGIN PASSWORD 'app_pw'" >/dev/null
as_super postgres "CREATE DATABASE appdb OWNER app" >/dev/null
as_super postgres "CREATE DATABASE trapdb OWNER app" >/dev/null
check "an ordinary database owner can install cuckoo" "CREATE EXTENSION" \
  "$(PGPASSWORD=app_pw psql -X -U app -d appdb -c 'CREATE EXTENSION cuckoo' 2>&1)"
check "and use it" "t" \
  "$(as_app appdb "SELECT cuckoo_add(cuckoo_create(10), 42) @> 42")"
check "no SECURITY DEFINER function" "0" \
  "$(as_super appdb "SELECT count(*) FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'cuckoo' AND p.prosecdef")"
check "every object belongs to the bootstrap superuser, not the installing role" "0" \
  "$(as_super appdb "SELECT count(*) FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'cuckoo' AND p.proowner <> 10")"

# A role that planted a same-named function in the target schema first:
# the install fails instead of using (or replacing) the planted object.
check "a role can plant a same-named function" "CREATE FUNCTION" \
  "$(PGPASSWORD=app_pw psql -X -U app -d trapdb -c "CREATE FUNCTION public.cuckoo_hash(anycompatible) RETURNS bigint LANGUAGE sql AS 'SELECT 0::bigint'" 2>&1)"
out=$(PGPASSWORD=app_pw psql -X -U app -d trapdb -c 'CREATE EXTENSION cuckoo' 2>&1)
check "a planted object makes the install fail" "1" "$(echo "$out" | grep -c 'ERROR')"
check "and nothing of the extension is left" "0" "$(as_super trapdb "SELECT count(*) FROM pg_extension WHERE extname = 'cuckoo'")"
# Its objects belong to the bootstrap superuser: the installing role cannot
# alter them (here: move them); a superuser can (the extension is relocatable).
check "the installing role cannot move the extension's objects" "1" \
  "$(as_app appdb "ALTER EXTENSION cuckoo SET SCHEMA pg_temp" | grep -c 'must be owner')"
as_super appdb "CREATE SCHEMA ext" >/dev/null
as_super appdb "GRANT USAGE ON SCHEMA ext TO app" >/dev/null
as_super appdb "ALTER EXTENSION cuckoo SET SCHEMA ext" >/dev/null
check "a superuser can relocate it with ALTER EXTENSION SET SCHEMA" "t" \
  "$(as_app appdb "SELECT ext.cuckoo_contains(ext.cuckoo_add(ext.cuckoo_create(10), 'x'), 'x')")"

finish
