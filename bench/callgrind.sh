#!/usr/bin/env bash
# Instructions per insert, lookup and delete of the core, counted by callgrind
# (bench/core_count.c): exact and repeatable, for before/after comparisons of
# a change that must not slow the hot path.
#
#   bash bench/callgrind.sh [CORE_DIR]    (default: src/core of this checkout)
#   bash bench/callgrind.sh --v2 [CORE_DIR]
#       lookups of growing filters (format version 2, bench/core_count_v2.c)
#       grown 1000x, beside right-sized version-1 filters
#
# CORE_DIR may also be the src/ of a checkout from before the layout change
# (one file, cuckoo_core.c and .h), to compare with.
#
# Built with -O2 and no -march=native (valgrind does not decode every
# extension that -march=native may use), once as a plain executable and once
# with the core in a shared library linked like cuckoo.so (-fPIC, -Bsymbolic).
set -euo pipefail
cd "$(dirname "$0")/.."
driver=bench/core_count.c
if [ "${1:-}" = --v2 ]; then
  driver=bench/core_count_v2.c
  shift
fi
core=$(cd "${1:-src/core}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -f "$core/cf.h" ]; then
  srcs=("$core"/cf_*.c)
else
  srcs=("$core/cuckoo_core.c")
  echo '#include "cuckoo_core.h"' >"$work/cf.h"
fi
CC=${CC:-cc}
# GCC would fold the identical phase functions into one (identical code folding)
flags=(-O2 -g -std=gnu99 -I"$work" -I"$core")
if $CC -fno-ipa-icf -x c -c -o /dev/null /dev/null 2>/dev/null; then flags+=(-fno-ipa-icf); fi
$CC "${flags[@]}" -o "$work/static" "$driver" "${srcs[@]}" -lm
$CC "${flags[@]}" -fPIC -shared -Wl,-Bsymbolic -o "$work/libcf.so" "${srcs[@]}" -lm
$CC "${flags[@]}" -o "$work/shared" "$driver" -L"$work" -lcf -Wl,-rpath,"$work"
echo "| phase | instructions per operation, executable | with the core in a shared library |"
echo "|---|---|---|"
for v in static shared; do
  "$work/$v" >/dev/null
  valgrind --tool=callgrind --callgrind-out-file="$work/$v.out" "$work/$v" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --threshold=100 "$work/$v.out" >"$work/$v.txt"
done
python3 - "$work/static.txt" "$work/shared.txt" "$driver" <<'PY'
import re, sys
if sys.argv[3].endswith("_v2.c"):
    ops = {}
    for v, w in (("v2", "w15"), ("v1", "f10"), ("v2", "w18"), ("v1", "f13")):
        if "phase_%s_%s_insert" % (v, w) in open(sys.argv[1]).read():
            ops["phase_%s_%s_insert" % (v, w)] = 246000
        ops["phase_%s_%s_absent" % (v, w)] = 1000000
        ops["phase_%s_%s_present" % (v, w)] = 984000
else:
    ops = {"phase_insert": 246000, "phase_lookup_absent": 1000000, "phase_lookup_present": 984000,
           "phase_ss_insert": 246000, "phase_ss_lookup_absent": 1000000}
    if "phase_delete" in open(sys.argv[1]).read():
        ops["phase_delete"] = 24600
def per_op(path):
    got = {}
    for line in open(path):
        m = re.match(r"\s*([\d,]+) .*:(phase_\w+) \[", line)
        if m and m.group(2) in ops and m.group(2) not in got:
            got[m.group(2)] = int(m.group(1).replace(",", "")) / ops[m.group(2)]
    return got
a, b = per_op(sys.argv[1]), per_op(sys.argv[2])
for name in ops:
    print("| %s | %.1f | %.1f |" % (name, a[name], b[name]))
PY
