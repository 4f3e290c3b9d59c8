#!/usr/bin/env bash
# Shows that test/upgrade.sh catches broken update chains, inside a throwaway
# cluster (pg_virtualenv).  Each scenario simulates a release 1.1 in a
# scratch directory that the server reads through Debian's extension_destdir
# setting ("$extension_destdir$SHAREDIR/extension" is searched before the
# real extension directory, which is never touched): a control file with
# default_version = '1.1', a full install script cuckoo--1.1.sql (1.0 plus one
# new function) and an update script cuckoo--1.0--1.1.sql.
#
#   good       the update script adds the function as 1.1 defines it: passes
#   forgotten  the update script forgets the function: must fail
#   different  the update script creates it VOLATILE, not IMMUTABLE: must fail
#   nocomment  the update script forgets its COMMENT: must fail
#   nopath     there is no cuckoo--1.0--1.1.sql at all: must fail
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
extdir="$("${PG_CONFIG:-pg_config}" --sharedir)/extension"
scratch=$(mktemp -d)
chmod 755 "$scratch"
cleanup() {
  q postgres "ALTER SYSTEM RESET extension_destdir" >/dev/null 2>&1
  q postgres "SELECT pg_reload_conf()" >/dev/null 2>&1
  rm -rf "$scratch"
}
trap cleanup EXIT

if ! q postgres "SELECT 1 FROM pg_settings WHERE name = 'extension_destdir'" | grep -q 1; then
  echo "# this PostgreSQL has no extension_destdir (a Debian addition): nothing to show"
  check "extension_destdir is available" 1 0
  finish; exit
fi
before=$(md5sum "$extdir"/cuckoo* | md5sum)

NEWFN="CREATE FUNCTION cuckoo_is_empty(f cuckoofilter) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT (cuckoo_info(f)).items = 0';"
COMMENT="COMMENT ON FUNCTION cuckoo_is_empty(cuckoofilter) IS 'true when the filter holds no item';"

# scenario NAME EXPECT(pass|fail) UPDATE-SCRIPT-BODY|- [FAILING-CHECK]
scenario() {
  local name=$1 expect=$2 body=$3 failing=${4:-} dir rc log
  dir="$scratch/$name"
  mkdir -p "$dir$extdir"
  sed "s/^default_version = .*/default_version = '1.1'/" "$extdir/cuckoo.control" >"$dir$extdir/cuckoo.control"
  { sed 's/^-- cuckoo 1.0:/-- cuckoo 1.1 (simulated):/' "$extdir/cuckoo--1.0.sql"; echo "$NEWFN"; echo "$COMMENT"; } \
    >"$dir$extdir/cuckoo--1.1.sql"
  if [ "$body" != - ]; then
    printf '%s\n' "\\echo Use \"ALTER EXTENSION cuckoo UPDATE\" to load this file. \\quit" "$body" \
      >"$dir$extdir/cuckoo--1.0--1.1.sql"
  fi
  chmod -R a+rX "$scratch"
  q postgres "ALTER SYSTEM SET extension_destdir = '$dir'" >/dev/null
  q postgres "SELECT pg_reload_conf()" >/dev/null
  sleep 1
  log="$scratch/$name.log"
  bash "$here/upgrade.sh" >"$log" 2>&1
  rc=$?
  check "$name: the simulated 1.1 is what the server sees" 1 \
    "$(grep -c '^# default version 1.1; available versions: 1.0 1.1$' "$log")"
  if [ "$expect" = pass ]; then
    check "$name: test/upgrade.sh passes" 0 "$rc"
    check "$name: and walked both versions" 1 "$(grep -c '^# walked 2 version(s) to 1.1' "$log")"
  else
    check "$name: test/upgrade.sh fails" 1 "$([ "$rc" -ne 0 ] && echo 1 || echo 0)"
    check "$name: with 'not ok - $failing'" 1 "$(grep -c "^not ok - $failing" "$log")"
  fi
  echo "# $name: $(tail -n 1 "$log"); first failure: $(grep -m1 '^not ok' "$log" | cut -c1-150)"
  grep '^# only' "$log" | head -n 3 | cut -c1-150
  if [ "$expect" = pass ] && [ "$rc" -ne 0 ]; then grep '^not ok' "$log" | head -n 5; fi
}

scenario good pass "$NEWFN
$COMMENT"
scenario forgotten fail "-- (cuckoo_is_empty forgotten)" "1.0: member objects equal a fresh install"
scenario different fail "${NEWFN/IMMUTABLE/VOLATILE}
$COMMENT" "1.0: definitions, comments"
scenario nocomment fail "$NEWFN" "1.0: definitions, comments"
scenario nopath fail - "every version has an update path to 1.1"

check "the real extension directory was not touched" "$before" "$(md5sum "$extdir"/cuckoo* | md5sum)"
check "no simulated file is left in it" 0 "$(find "$extdir" -name 'cuckoo--*1.1*' | wc -l)"
finish
