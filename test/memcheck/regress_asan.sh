#!/usr/bin/env bash
# The pg_regress suite (sql/, expected/) against a server that has loaded a
# cuckoo.so built with AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   bash test/regress_asan.sh          (as root or as a user who can run initdb)
#
# cuckoo is built out of tree (a copy of src/, sql/, expected/ in a temporary
# directory) and installed into a private copy of the install tree
# (test/pg_private.sh); the system install is not touched.  The server is the
# system's postgres binary, uninstrumented, with the ASan runtime preloaded.
# Fails on any sanitizer report, on a crashed server process, and on any
# pg_regress difference.  Ends with "N passed, N failed".
#
# What is and is not checked: cuckoo's own code is instrumented (every load
# and store in it, its stack frames and globals, and UB checks: array bounds,
# shifts, overflow, alignment, out-of-range values), and the runtime checks
# every malloc'd block and every libc call (memcpy, memset, ...) in the
# process.  PostgreSQL itself is not instrumented, and palloc carves small
# chunks out of larger malloc'd blocks: an overrun of a small palloc'd chunk
# that stays inside its block is not seen.  Chunks over 8 kB (most filters)
# get a malloc'd block of their own, so overrunning those is seen.
#
# The scale tests (the Makefile's REGRESS_SCALE: millions of values, the
# same code paths as the suite's smaller cases) are left out, REGRESS_LIGHT=0
# keeps them; the host's plain run (test/regress_private.sh) has them.
#
# CUCKOO_SRC=DIR builds another source tree (used to show that an injected
# bug makes this script fail); KEEP_WORKDIR=1 keeps the work directory.
set -uo pipefail
export REGRESS_LIGHT="${REGRESS_LIGHT-1}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../pg_private.sh"
start=$(date +%s)
pp_setup asan

CC=$("$PG_CONFIG" --cc)
if pp_build_lib COPT='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer'; then
  check "instrumented build" ok ok
else
  check "instrumented build" ok failed; tail -n 20 "$pp_work/build.log" | sed 's/^/#   /'; finish; exit 1
fi
asan_rt=$(readlink -f "$($CC -print-file-name=libasan.so)")
check "cuckoo.so is linked against the ASan runtime it will be run with" "$asan_rt" \
  "$(readlink -f "$(ldd "$pp_build/cuckoo.so" | awk '$1 ~ /^libasan/ { print $3 }')")"

# A small library, preloaded after the ASan runtime, fixes two things:
# - The ASan runtime must be preloaded (the postgres binary is not linked
#   with it), so it initialises lazily, at the first malloc, which happens in
#   another library's constructor (libgpg-error's bindtextdomain, libp11-kit's
#   newlocale) while that holds a glibc locale lock.  Initialising, it looks
#   up an optional swift_demangle with dlsym, and the failed lookup's
#   dlerror() translates its message under the same lock; the lock is left
#   corrupt and the process hangs in setlocale/bindtextdomain (glibc 2.36;
#   GCC 12's and LLVM 14's runtimes alike).  A swift_demangle that returns
#   NULL (ASan then demangles as usual) lets the lookup succeed.
# - The sanitizers read their options from /proc/self/environ.  The ASan
#   runtime does so at start-up, but the UBSan runtime, loaded with cuckoo.so
#   in a backend, only after postgres has overwritten that area with its
#   process title, so UBSAN_OPTIONS would be ignored: its options come from
#   the __ubsan_default_options hook instead.
# Reports go to stderr, i.e. $pp_work/server.log; a process with a report
# exits at once with code 86, and the postmaster then treats it as
# a crash (logs it, restarts all sessions).
cat >"$pp_work/sanitizer_preload.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
const char *__ubsan_default_options(void);
char *swift_demangle(const char *, size_t, char *, size_t *, uint32_t);

const char *__ubsan_default_options(void)
{ return "print_stacktrace=1:halt_on_error=1:exitcode=86"; }
char *swift_demangle(const char *n, size_t l, char *b, size_t *bl, uint32_t f)
{ (void) n; (void) l; (void) b; (void) bl; (void) f; return NULL; }
EOF
$CC -O2 -shared -fPIC -o "$pp_work/sanitizer_preload.so" "$pp_work/sanitizer_preload.c"

pp_make_tree
pp_initdb || { check "initdb" ok failed; finish; exit 1; }
pp_start env LD_PRELOAD="$asan_rt $pp_work/sanitizer_preload.so" \
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=86${ASAN_OPTIONS:+:$ASAN_OPTIONS}" postgres \
  || { check "server starts with the ASan runtime preloaded" ok failed; finish; exit 1; }
pp_check_private
check "the server process has the ASan runtime loaded" t \
  "$(pp_psql -c "SELECT count(*) > 0 FROM regexp_split_to_table(pg_read_file('/proc/self/maps'), E'\\n') l
                 WHERE l LIKE '%/$(basename "$asan_rt")'")"

pp_regress
pp_stop
pp_check_no_crash
check "no AddressSanitizer report" 0 "$(grep -c 'ERROR: AddressSanitizer' "$pp_work/server.log")"
check "no UndefinedBehaviorSanitizer report" 0 "$(grep -c 'runtime error:' "$pp_work/server.log")"
if grep -qE 'ERROR: AddressSanitizer|runtime error:' "$pp_work/server.log"; then
  echo "# first sanitizer report:"
  grep -m 1 -A 30 -E 'ERROR: AddressSanitizer|runtime error:' "$pp_work/server.log" | sed 's/^/#   /'
fi
echo "# $pp_nfiles test files, ASan+UBSan build of cuckoo.so, $(($(date +%s) - start)) s"
finish
