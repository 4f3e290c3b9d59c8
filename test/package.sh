#!/usr/bin/env bash
# The Debian package, end to end, as root on a machine (or Debian tree) with
# PostgreSQL MAJOR and postgresql-server-dev-all: builds postgresql-MAJOR-cuckoo
# from a copy of the work tree with dpkg-buildpackage, installs it with apt
# where no cuckoo was installed by hand, runs CREATE EXTENSION cuckoo and the
# demo against it, runs the autopkgtest (debian/tests/installcheck) from a
# fresh copy of the source, removes the package and checks that no cuckoo
# file is left.  Ends with "N passed, N failed".
#
#   bash test/package.sh MAJOR [PORT]
#
# Files a "make install" left (the main suite's) are removed first with
# "make uninstall", and a postgresql-MAJOR-cuckoo installed before is replaced;
# but the run is a guest (test/guest.sh): what was installed before, files and
# packages, is saved first and put back at the end, on any exit, and the last
# check says so.  On a shared machine this holds
# /tmp/cuckoo-host-install.lock for its whole run (unless the caller holds it).
set -uo pipefail
cd "$(dirname "$0")/.."
LOCK=/tmp/cuckoo-host-install.lock
major=${1:?usage: test/package.sh MAJOR [PORT]}
port=${2:-$((25100 + major))}
# the pg_regress runs of the package (its build-time test and the
# autopkgtest) leave out the scale tests, which the host's plain run has:
# the package's files and harness are tested here, the same code at scale
# there (the Makefile's REGRESS_LIGHT; docs/CONTRIBUTING.md, "The test
# command's time")
export REGRESS_LIGHT="${REGRESS_LIGHT-1}"

# hold the host's install lock: an inherited descriptor on it means a caller
# (flock LOCK command) holds it already, and locking it again would wait forever
held=
for fd in /proc/$$/fd/*; do [ "$(readlink "$fd")" = "$LOCK" ] && held=1; done
if [ -z "$held" ] && [ -z "${CUCKOO_PACKAGE_LOCKED:-}" ]; then
  exec env CUCKOO_PACKAGE_LOCKED=1 flock "$LOCK" bash "$0" "$@"
fi

. test/lib.sh
. test/guest.sh
pkg="postgresql-$major-cuckoo"
export PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config"
export DEBIAN_FRONTEND=noninteractive
version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" cuckoo.control)
tmp=$(mktemp -d)
chmod 755 "$tmp"   # the build-time test's server (not root) reads the package tree here
cleanup() {
  # never leave the package on the machine, even after a failure; then
  # what was there before the run
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
    apt-get -o DPkg::Lock::Timeout=600 purge -y -q "$pkg" >/dev/null 2>&1
  fi
  guest_restore "$tmp/guest"
  [ -n "${KEEP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"
}
echo "# this test uninstalls cuckoo from PostgreSQL $major's tree, installs and purges $pkg, and puts back what was there"
guest_save "$tmp/guest" || { echo "not ok - save the installed cuckoo files"; rm -rf "$tmp"; exit 1; }
trap cleanup EXIT
trap 'exit 130' INT TERM
# cuckoo_files: every file or directory named after cuckoo under the
# PostgreSQL and documentation trees
cuckoo_files() {
  find /usr/lib/postgresql /usr/share/postgresql /usr/share/doc /etc/postgresql \
    -name '*cuckoo*' 2>/dev/null | sort
}
# copy_source DIR: the work tree (tracked and new files) into DIR
copy_source() {
  mkdir -p "$1"
  if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard \
      | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$1"
  else
    tar --exclude=./debian/.debhelper -cf - . | tar -xf - -C "$1"
  fi
}

for p in build-essential dpkg-dev debhelper postgresql-server-dev-all libxxhash-dev "postgresql-server-dev-$major"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ -n "${missing[*]:-}" ]; then
  apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
fi

# 1. Start without cuckoo: the package of an earlier run is purged, the
# files of a "make install" are uninstalled.
dpkg-query -W "$pkg" >/dev/null 2>&1 && apt-get -o DPkg::Lock::Timeout=600 purge -y -q "$pkg" >/dev/null 2>&1
[ -f "$(${PG_CONFIG} --sharedir)/extension/cuckoo.control" ] && make -s PG_CONFIG="$PG_CONFIG" uninstall >/dev/null
# and what other builds' "make install" left (update scripts of another
# version): files no package owns
for f in $(cuckoo_files); do
  [ -f "$f" ] && ! dpkg -S "$f" >/dev/null 2>&1 && { echo "# removing hand-installed $f"; rm -f "$f"; }
done
check "no cuckoo file before the package is installed" "" "$(cuckoo_files)"

# 2. Build the binary package from a copy of the work tree.  debian/control
# is regenerated for the PostgreSQL versions of this distribution.
copy_source "$tmp/build/cuckoo-$version"
( cd "$tmp/build/cuckoo-$version" && PG_UPDATECONTROL=yes dpkg-buildpackage -us -uc -b ) >"$tmp/build.log" 2>&1
rc=$?
check "dpkg-buildpackage -us -uc -b" 0 "$rc"
if [ "$rc" -ne 0 ]; then
  grep -E '^(\+|-|ERROR|make|dpkg)' "$tmp/build.log" | head -n 60 | sed 's/^/    /'
  finish; exit 1
fi
deb=$(ls "$tmp/build/${pkg}_"*.deb 2>/dev/null | grep -v dbgsym | head -n 1)
check "$pkg .deb built" 1 "$([ -n "$deb" ] && echo 1)"
grep -E 'All [0-9]+ tests passed|^# All [0-9]+ tests passed' "$tmp/build.log" | sed 's/^/# build-time test: /'
check "the package's upstream version is cuckoo.control's default_version ($version)" \
  "$version" "$(dpkg-deb -f "$deb" Version 2>/dev/null | sed 's/-[^-]*$//')"

# 3. Install it the way a user does.
cp "$deb" "$tmp/"
( cd "$tmp" && apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "./$(basename "$deb")" ) >"$tmp/install.log" 2>&1
check "apt-get install ./$(basename "$deb")" 0 $?
dpkg -L "$pkg" 2>/dev/null | sort >"$tmp/files"
for f in "$($PG_CONFIG --pkglibdir)/cuckoo.so" "$($PG_CONFIG --sharedir)/extension/cuckoo.control" \
         "$($PG_CONFIG --sharedir)/extension/cuckoo--$version.sql"; do
  check "package ships $f" 1 "$(grep -cx "$f" "$tmp/files")"
done
# and every SQL script the Makefile installs (older versions, update scripts)
# (the DATA line may continue over several lines with a backslash)
for s in $(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' Makefile | sed -n 's/^DATA *= *//p'); do
  check "package ships $s" 1 "$(grep -cx "$($PG_CONFIG --sharedir)/extension/$s" "$tmp/files")"
done

# 4. CREATE EXTENSION and the demo against the packaged files.
pg_virtualenv -t -c "-p $port" -v "$major" sh -c "
  psql -X -qAt -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION cuckoo' \
    -c \"SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'\" \
    -c 'SELECT count(*) FILTER (WHERE cuckoo_contains(f, g)) FROM (SELECT cuckoo_agg(g) AS f FROM generate_series(1, 10000) g) s, generate_series(1, 10000) g' \
    >'$tmp/ext.out' &&
  createdb demo && psql -X -q -v ON_ERROR_STOP=1 -d demo -f demo/demo.sql >'$tmp/demo.out'" >"$tmp/demo.log" 2>&1
rc=$?
check "CREATE EXTENSION cuckoo and demo/demo.sql" 0 "$rc"
[ "$rc" -eq 0 ] || tail -n 20 "$tmp/demo.log" | sed 's/^/    /'
check "installed version, and every one of 10,000 items found" "$version 10000" "$(xargs <"$tmp/ext.out" 2>/dev/null)"
check "the demo's probe finds customer 42 (has_42 | has_123456789)" "t|f" \
  "$(grep -A2 '^ *has_42 ' "$tmp/demo.out" 2>/dev/null | tail -n 1 | tr -d ' ')"

# 5. The autopkgtest, from a fresh copy of the source, against the package.
copy_source "$tmp/autopkgtest/cuckoo-$version"
( cd "$tmp/autopkgtest/cuckoo-$version" && AUTOPKGTEST_TMP="$tmp" sh debian/tests/installcheck ) >"$tmp/autopkgtest.log" 2>&1
rc=$?
check "autopkgtest debian/tests/installcheck (pg_buildext installcheck)" 0 "$rc"
grep -E 'tests passed|^not ok|FAILED' "$tmp/autopkgtest.log" | sed 's/^/# autopkgtest: /'
[ "$rc" -eq 0 ] || tail -n 40 "$tmp/autopkgtest.log" | sed 's/^/    /'

# 6. Remove it: nothing of cuckoo may remain.
apt-get -o DPkg::Lock::Timeout=600 purge -y -q "$pkg" >"$tmp/purge.log" 2>&1
check "apt-get purge $pkg" 0 $?
left=$(while read -r f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done <"$tmp/files")
check "every file dpkg -L listed is gone" "" "$left"
check "no cuckoo file left under the PostgreSQL and doc trees" "" "$(cuckoo_files)"

# 7. The guest leaves: what was installed before is back, byte for byte.
guest_restore "$tmp/guest"
check "the cuckoo files and packages of before the run are back ($(wc -l <"$tmp/guest/files") files)" "" "$(guest_check "$tmp/guest")"

finish
