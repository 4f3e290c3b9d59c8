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


# A restore by the database owner, not a superuser (issue 22): the
# trackings come back (INSERT on cuckoo_store_tracking, each row checked by
# cuckoo_store_tracking_check), the stores are rebuilt, the writes followed.
# pg_restore --no-owner, then pg_dump | psql, both as app.
TMPDIR="${TMPDIR:-/tmp}"
rwork=$(mktemp -d "$TMPDIR/security_restore.XXXXXX")
trap 'rm -rf "$rwork"' EXIT
for db in trsrc trdst trplain; do as_super postgres "CREATE DATABASE $db OWNER app" >/dev/null; done
PGPASSWORD=app_pw psql -X -q -v ON_ERROR_STOP=1 -U app -d trsrc >/dev/null 2>&1 <<'EOF'
CREATE EXTENSION cuckoo;
SELECT cuckoo_store_create('s', 5000);
CREATE TABLE items (id int PRIMARY KEY, k bigint);
INSERT INTO items SELECT g, g % 700 FROM generate_series(1, 2000) g;
SELECT cuckoo_store_track('s', 'items', 'k');
SELECT cuckoo_store_create('sp', 5000);
CREATE TABLE pitems (id int, k bigint) PARTITION BY RANGE (id);
CREATE TABLE pitems1 PARTITION OF pitems FOR VALUES FROM (0) TO (1000);
CREATE TABLE pitems2 PARTITION OF pitems FOR VALUES FROM (1000) TO (3000);
INSERT INTO pitems SELECT g, g FROM generate_series(1, 2999) g;
SELECT cuckoo_store_track('sp', 'pitems', 'k');
-- a sticky value: three rows at once (saturated at two copies), then deleted
INSERT INTO items SELECT 5000 + g, 777777 FROM generate_series(1, 3) g;
DELETE FROM items WHERE k = 777777;
EOF
check "restore as app: the source tracks 2 tables, the sticky value is in its store" "2|t" \
  "$(as_app trsrc "SELECT (SELECT count(*) FROM cuckoo_store_tracking), cuckoo_store_contains('s', 777777::int8)")"
PGPASSWORD=app_pw pg_dump -Fc -U app -d trsrc -f "$rwork/app.dump" 2>"$rwork/dump.err"
check "restore as app: pg_dump -Fc as app" "0|" "$?|$(head -c 300 "$rwork/dump.err")"
PGPASSWORD=app_pw pg_restore --no-owner -U app -d trdst "$rwork/app.dump" 2>"$rwork/restore.err"
check "restore as app: pg_restore --no-owner as app, no error" "0|" "$?|$(head -c 300 "$rwork/restore.err")"
PGPASSWORD=app_pw pg_dump -U app -d trsrc 2>"$rwork/plain.err" | \
  PGPASSWORD=app_pw psql -X -q -v ON_ERROR_STOP=1 -U app -d trplain >/dev/null 2>>"$rwork/plain.err"
check "restore as app: pg_dump | psql as app, no error" "0|" "$?|$(head -c 300 "$rwork/plain.err")"
rows_sql="SELECT md5(string_agg(segment || ':' || chunk || ':' || encode(bytes, 'hex'), ',' ORDER BY segment, chunk)) FROM"
for db in trdst trplain; do
  check "restore as app ($db): the trackings and their 16 triggers (4 on each of 4 tables)" "items|k pitems|k|16" \
    "$(as_app $db "SELECT string_agg(tab || '|' || col, ' ' ORDER BY store), (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'cuckoo_track_%') FROM cuckoo_store_tracking")"
  check "restore as app ($db): the sticky value is gone (rebuilt), nothing missing" "f|0|2000|0|2999" \
    "$(as_app $db "SELECT cuckoo_store_contains('s', 777777::int8), v.missing, v.rows, w.missing, w.rows FROM cuckoo_store_verify('s') v, cuckoo_store_verify('sp') w")"
  before="$(as_app $db "$rows_sql s")|$(as_app $db "$rows_sql sp")"
  as_app $db "SELECT cuckoo_store_rebuild('s'), cuckoo_store_rebuild('sp')" >/dev/null
  check "restore as app ($db): the stores are what cuckoo_store_rebuild gives, byte for byte" "$before" \
    "$(as_app $db "$rows_sql s")|$(as_app $db "$rows_sql sp")"
  as_app $db "INSERT INTO items VALUES (900001, 5000001); INSERT INTO pitems VALUES (2500, 5000002)" >/dev/null
  check "restore as app ($db): new inserts are followed, cuckoo_store_verify missing 0" "t|t|0|0" \
    "$(as_app $db "SELECT cuckoo_store_contains('s', 5000001::int8), cuckoo_store_contains('sp', 5000002::int8),
                          (SELECT missing FROM cuckoo_store_verify('s')), (SELECT missing FROM cuckoo_store_verify('sp'))")"
done
# what app may not do with the tracking table: a row it could not have made
# with cuckoo_store_track, any change of a row
as_super trdst "CREATE ROLE other LOGIN" >/dev/null
as_super trdst "CREATE TABLE others (k bigint); ALTER TABLE others OWNER TO other" >/dev/null
check "restore as app: a tracking of a table app does not own is refused (42501)" "1" \
  "$(as_app trdst "INSERT INTO cuckoo_store_tracking VALUES ('s', 'others', 'k')" | grep -c 'permission denied to insert a tracking of table "others" by cuckoo store "s"')"
check "restore as app: no UPDATE, DELETE or TRUNCATE of the trackings" "3" \
  "$(for c in "UPDATE cuckoo_store_tracking SET col = 'id'" "DELETE FROM cuckoo_store_tracking" "TRUNCATE cuckoo_store_tracking"; do
       as_app trdst "$c"; done | grep -c 'permission denied for table cuckoo_store_tracking')"

finish
