#!/usr/bin/env bash
# The PGXN release archive: "make dist" makes cuckoo-VERSION.zip (git archive
# of HEAD, VERSION from META.json) with every file under cuckoo-VERSION/; it is
# unpacked into an empty directory, built with warnings as errors, installed,
# and its own pg_regress suite runs against a throwaway cluster
# (installcheck); then it is uninstalled.  Ends with "N passed, N failed".
#
#   bash test/pgxn/dist.sh [MAJOR [PORT]]
#
# The install goes into the system's PostgreSQL tree, so on a shared machine
# this holds /tmp/cuckoo-host-install.lock (unless the caller holds it).
set -uo pipefail
cd "$(dirname "$0")/../.."
LOCK=/tmp/cuckoo-host-install.lock
held=
for fd in /proc/$$/fd/*; do [ "$(readlink "$fd")" = "$LOCK" ] && held=1; done
if [ -z "$held" ] && [ -z "${CUCKOO_DIST_LOCKED:-}" ]; then
  exec env CUCKOO_DIST_LOCKED=1 flock "$LOCK" bash "$0" "$@"
fi
. test/lib.sh
major=${1:-${PG_MAJOR:-15}}
port=${2:-$((25200 + major))}
export PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config"
command -v unzip >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends unzip >/dev/null
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' META.json)
zip="cuckoo-$version.zip"
rm -f "$zip"
make -s dist >"$tmp/dist.log" 2>&1
check "make dist" 0 $?
check "it makes $zip (the version is META.json's)" 1 "$([ -f "$zip" ] && echo 1)"
mv "$zip" "$tmp/" 2>/dev/null
unzip -Z1 "$tmp/$zip" >"$tmp/list" 2>/dev/null
check "every entry is under cuckoo-$version/" 0 "$(grep -vc "^cuckoo-$version/" "$tmp/list")"
for f in META.json cuckoo.control Makefile README.md "$(sed -n 's/.*"file": "\(.*\)",*$/\1/p' META.json)"; do
  check "the archive has $f" 1 "$(grep -cx "cuckoo-$version/$f" "$tmp/list")"
done
check "the archive has the committed files only (git ls-files HEAD)" \
  "$(git ls-tree -r --name-only HEAD | sort | md5sum)" \
  "$(grep -v '/$' "$tmp/list" | sed "s|^cuckoo-$version/||" | sort | md5sum)"

# Unpacked where nothing else is, as a PGXN client does.
mkdir "$tmp/empty"
( cd "$tmp/empty" && unzip -q "../$zip" )
check "unzip into an empty directory gives cuckoo-$version/ only" "cuckoo-$version" "$(ls "$tmp/empty")"
cd "$tmp/empty/cuckoo-$version" || { finish; exit 1; }
make PG_CONFIG="$PG_CONFIG" COPT=-Werror >"$tmp/build.log" 2>&1
check "the unpacked archive builds (-Werror)" 0 $?
make PG_CONFIG="$PG_CONFIG" install >"$tmp/install.log" 2>&1
check "make install" 0 $?
# (without the scale tests, which the host's plain run has: the archive's
# files are tested here; REGRESS_LIGHT, as in test/package.sh)
pg_virtualenv -t -c "-p $port" -v "$major" make PG_CONFIG="$PG_CONFIG" \
  REGRESS_LIGHT="${REGRESS_LIGHT-1}" installcheck >"$tmp/check.log" 2>&1
rc=$?
check "make installcheck of the unpacked archive" 0 "$rc"
grep -E 'tests passed|of [0-9]+ tests failed|^not ok|FAILED' "$tmp/check.log" | sed 's/^/# /'
[ "$rc" -eq 0 ] || { [ -f regression.diffs ] && head -n 40 regression.diffs | sed 's/^/    /'; }
make PG_CONFIG="$PG_CONFIG" uninstall >/dev/null 2>&1
check "make uninstall" 1 "$([ ! -f "$($PG_CONFIG --pkglibdir)/cuckoo.so" ] && echo 1)"
finish
