#!/usr/bin/env bash
# The pg_regress suite (sql/, expected/) against a server run under valgrind
# memcheck, with cuckoo built as shipped (-O2 -g).  Slow (about 30 minutes on
# 2 cores when last run, most of it in sql/probe_cache.sql's joins, which use
# an index since): a manual check, not part of scripts/test.sh.  REGRESS_TESTS="setup type_io" runs only some files.
#
#   bash test/regress_valgrind.sh      (as root or as a user who can run initdb)
#
# cuckoo is built out of tree and installed into a private copy of the
# install tree (test/pg_private.sh); the system install is not touched.  The
# postmaster runs under valgrind --trace-children=yes, so every backend and
# parallel worker it forks runs under valgrind too; each process writes its
# report to a file of its own.  Fails on any valgrind error in cuckoo's code
# or from bytes cuckoo left uninitialised, on any other error except
# PostgreSQL writing its own padding bytes (below; test/valgrind.supp has the
# rest of PostgreSQL's known, harmless ones), on a crashed server process,
# and on any pg_regress difference.  Ends with "N passed, N failed".
#
# What is and is not checked: PostgreSQL from Debian is built without
# USE_VALGRIND, so palloc'd chunks inside a memory context's malloc'd block
# are not tracked one by one: an overrun of a small palloc'd chunk, or a read
# of a freed one, that stays inside its block is not seen.  Seen are: use of
# uninitialised values (from palloc, stack or malloc) in a branch, an index
# or a system call (e.g. written to disk); reads and writes outside any
# malloc'd block, which includes overrunning a chunk over 8 kB (most filters:
# such a chunk gets a malloc'd block of its own); invalid frees.
#
# VALGRIND_EXTRA="..." adds valgrind options; CUCKOO_SRC=DIR builds another
# source tree (used to show that an injected bug makes this script fail);
# KEEP_WORKDIR=1 keeps the work directory (the per-process reports are in
# logs/, the classified errors in errors.*.txt).  docs/MEMORY_CHECKS.md.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../pg_private.sh"
start=$(date +%s)
command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/install-deps.sh --test)"; echo "0 passed, 1 failed"; exit 1; }
pp_setup valgrind

if pp_build_lib; then
  check "build" ok ok
else
  check "build" ok failed; tail -n 20 "$pp_work/build.log" | sed 's/^/#   /'; finish; exit 1
fi
pp_make_tree
pp_initdb || { check "initdb" ok failed; finish; exit 1; }
# statement_timeout in sql/limits.sql only gets shorter relative to the work
# under valgrind, so the expected output holds; nothing else is timed.
# --track-origins=yes tells whose uninitialised bytes reach a write (see
# below).  No --error-exitcode: PostgreSQL's own padding reports would make
# nearly every committing backend exit with it (and the postmaster restart
# all sessions); errors are counted from the per-process logs instead.
PP_START_SECONDS=600 pp_start valgrind --tool=memcheck --trace-children=yes \
  --suppressions="$here/valgrind.supp" --track-origins=yes \
  --log-file="$pp_logs/%p.log" --error-markers=VGERROR-BEGIN,VGERROR-END \
  --gen-suppressions=all --num-callers=30 --leak-check=no --read-var-info=no \
  ${VALGRIND_EXTRA:-} postgres \
  || { check "server starts under valgrind" ok failed; finish; exit 1; }
pp_check_private
check "the server process runs under valgrind" t \
  "$(pp_psql -c "SELECT count(*) > 0 FROM regexp_split_to_table(pg_read_file('/proc/self/maps'), E'\\n') l
                 WHERE l ~ 'vgpreload_memcheck'")"

pp_regress
pp_stop
pp_check_no_crash

# One block per error, between the markers, in the log of the process that
# hit it.  Each is classified:
# - cuckoo: its stack, or the origin of the uninitialised bytes, passes
#   through cuckoo's code (a frame in cuckoo.so or one of its source files);
# - padding: PostgreSQL writing its own structures' padding bytes to WAL or
#   to a temporary file (the origin is a stack allocation in PostgreSQL, a
#   transaction's memory context, or a tuplesort tape buffer).  These are the
#   reports that PostgreSQL's own src/tools/valgrind.supp suppresses by
#   stack; they are told apart by origin here instead, so that uninitialised
#   bytes of a filter written to WAL would still count as cuckoo's;
# - other: anything else.
# cuckoo and other fail the run.
errors="$pp_work/errors.txt"
: >"$errors"
for f in "$pp_logs"/*.log; do
  [ -e "$f" ] || continue
  awk -v file="${f##*/}" '/VGERROR-BEGIN/ { on = 1; print "== " file; next }
       /VGERROR-END/ { on = 0; print "== end"; next } on' "$f" >>"$errors"
done
awk -v out="$pp_work/errors" '
  /^== [0-9]+\.log$/ { block = $0 "\n"; origin = ""; inorigin = 0; next }
  /^== end$/ {
    if (block origin ~ /cuckoo\.so|[( ]cuckoo[a-z_]*\.c:|: (cf|cuckoo)_[a-z_0-9]+ \(/) kind = "cuckoo"
    else if (block ~ /Syscall param (p?write(64)?)\(buf\) points to uninitialised/ &&
             origin ~ /created by a stack allocation|StartTransactionCommand|LogicalTapeWrite/) kind = "padding"
    else kind = "other"
    n[kind]++
    printf "%s%s== end\n", block, origin >> (out "." kind ".txt")
    next
  }
  /Uninitialised value was created by/ { inorigin = 1 }
  { if (inorigin) origin = origin $0 "\n"; else block = block $0 "\n" }
  END { printf "%d %d %d\n", n["cuckoo"], n["padding"], n["other"] }' "$errors" >"$pp_work/error_counts"
read -r n_cuckoo n_padding n_other <"$pp_work/error_counts"
check "valgrind: no error in cuckoo code" 0 "$n_cuckoo"
check "valgrind: no other unsuppressed error" 0 "$n_other"
echo "# valgrind: $n_padding reports of PostgreSQL writing its own padding bytes (WAL, temp files), told apart by origin"
for kind in cuckoo other; do
  if [ -s "$pp_work/errors.$kind.txt" ]; then
    echo "# first $kind errors (all in $pp_work/errors.$kind.txt; KEEP_WORKDIR=1 keeps it):"
    head -n 50 "$pp_work/errors.$kind.txt" | sed 's/^/#   /'
  fi
done
echo "# $(ls "$pp_logs" | wc -l) processes ran under valgrind; $pp_nfiles test files, $(($(date +%s) - start)) s"
finish
