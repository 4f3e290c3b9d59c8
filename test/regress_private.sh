#!/usr/bin/env bash
# The pg_regress suite (sql/, expected/) against a private server that has
# loaded an ordinary build of cuckoo.so from a private copy of the install tree
# (test/pg_private.sh): the system install is neither read nor changed, so
# several source trees can be tested side by side on one machine.
#
#   bash test/regress_private.sh                      (this tree, every file)
#   CUCKOO_SRC=DIR REGRESS_TESTS="setup growth" bash test/regress_private.sh
#
# KEEP_WORKDIR=1 keeps the work directory (regress.log, regression.diffs).
# Ends with "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/pg_private.sh"
start=$(date +%s)
pp_setup regress

if pp_build_lib; then
  check "build" ok ok
else
  check "build" ok failed; tail -n 20 "$pp_work/build.log" | sed 's/^/#   /'; finish; exit 1
fi
pp_make_tree
pp_initdb || { check "initdb" ok failed; finish; exit 1; }
pp_start postgres || { check "server starts" ok failed; finish; exit 1; }
pp_check_private
pp_regress
if [ -s "$pp_build/regression.diffs" ] && [ -n "${DIFFS_TO:-}" ]; then
  cp "$pp_build/regression.diffs" "$DIFFS_TO"
fi
pp_stop
pp_check_no_crash
echo "# $pp_nfiles test files, $(($(date +%s) - start)) s"
finish
