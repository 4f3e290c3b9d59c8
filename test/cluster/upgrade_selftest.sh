#!/usr/bin/env bash
# Shows that test/upgrade.sh catches broken update chains, inside a throwaway
# cluster (pg_virtualenv).  Each scenario simulates the next release NEXT
# (the installed default version CUR plus 0.1, e.g. 1.2 after 1.1) in a
# scratch directory that the server reads through Debian's extension_destdir
# setting ("$extension_destdir$SHAREDIR/extension" is searched before the
# real extension directory, which is never touched): a control file with
# default_version = NEXT, a full install script cuckoo--NEXT.sql (CUR plus one
# new function) and an update script cuckoo--CUR--NEXT.sql.
#
#   good       the update script adds the function as NEXT defines it: passes
#   forgotten  the update script forgets the function: must fail
#   different  the update script creates it VOLATILE, not IMMUTABLE: must fail
#   nocomment  the update script forgets its COMMENT: must fail
#   nopath     there is no cuckoo--CUR--NEXT.sql at all: must fail
# A scenario that must fail runs test/upgrade.sh from the first version only
# (UPGRADE_FROM): its failing check is that start's.  The good one starts
# from the first version and from CUR (test/upgrade.sh itself walks every
# version to the real default).
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
cur=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" "$extdir/cuckoo.control")
next=$(echo "$cur" | awk -F. '{ print $1 "." $2 + 1 }')
first=$(ls "$extdir" | sed -nE 's/^cuckoo--([0-9.]+)\.sql$/\1/p' | sort -V | head -n 1)
# counted here, apart from test/upgrade.sh's own discovery: the versions
# with a full install script in the real directory, plus NEXT; and the
# good scenario's starts (FIRST and CUR, one if they are the same)
nversions=$(( $(ls "$extdir" | grep -cE '^cuckoo--[0-9.]+\.sql$') + 1 ))
nstarts=$(printf '%s\n' "$first" "$cur" | sort -u | wc -l)
echo "# installed default version $cur; simulating $next"

NEWFN="CREATE FUNCTION cuckoo_is_empty(f cuckoofilter) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT (cuckoo_info(f)).items = 0';"
COMMENT="COMMENT ON FUNCTION cuckoo_is_empty(cuckoofilter) IS 'true when the filter holds no item';"

# scenario NAME EXPECT(pass|fail) UPDATE-SCRIPT-BODY|- [FAILING-CHECK]
scenario() {
  local name=$1 expect=$2 body=$3 failing=${4:-} dir rc log
  dir="$scratch/$name"
  mkdir -p "$dir$extdir"
  sed "s/^default_version = .*/default_version = '$next'/" "$extdir/cuckoo.control" >"$dir$extdir/cuckoo.control"
  { sed "s/^-- cuckoo $cur:/-- cuckoo $next (simulated):/" "$extdir/cuckoo--$cur.sql"; echo "$NEWFN"; echo "$COMMENT"; } \
    >"$dir$extdir/cuckoo--$next.sql"
  if [ "$body" != - ]; then
    printf '%s\n' "\\echo Use \"ALTER EXTENSION cuckoo UPDATE\" to load this file. \\quit" "$body" \
      >"$dir$extdir/cuckoo--$cur--$next.sql"
  fi
  chmod -R a+rX "$scratch"
  q postgres "ALTER SYSTEM SET extension_destdir = '$dir'" >/dev/null
  q postgres "SELECT pg_reload_conf()" >/dev/null
  sleep 1
  log="$scratch/$name.log"
  # a scenario that must fail starts from the first version only: its
  # failing check is that start's (the good one from the first and from CUR)
  if [ "$expect" = pass ]; then UPGRADE_FROM="$first $cur" bash "$here/upgrade.sh" >"$log" 2>&1
  else UPGRADE_FROM=$first bash "$here/upgrade.sh" >"$log" 2>&1; fi
  rc=$?
  check "$name: the simulated $next is what the server sees" 1 \
    "$(grep -cE "^# default version $next; available versions: .*$cur $next\$" "$log")"
  if [ "$expect" = pass ]; then
    check "$name: test/upgrade.sh passes" 0 "$rc"
    check "$name: and walked from $first and from $cur" 1 "$(grep -c "^# walked $nstarts version(s) to $next" "$log")"
    check "$name: test/upgrade.sh found the $nversions versions counted here" "$nversions" \
      "$(sed -n "s/^# default version $next; available versions: //p" "$log" | wc -w)"
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
scenario nopath fail - "every version has an update path to $next"

check "the real extension directory was not touched" "$before" "$(md5sum "$extdir"/cuckoo* | md5sum)"
check "no simulated file is left in it" 0 "$(find "$extdir" -name "cuckoo--*$next*" | wc -l)"
finish
