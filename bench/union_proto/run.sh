#!/bin/bash
# Prototype of docs/DESIGN.md "Unions to the size limit: the address budget".
#   bash bench/union_proto/run.sh [grid|A|overlap|dedup|cost]   (default: all; outputs beside this script)
# Builds union_proto.c against a copy of src/core under a temporary directory,
# patched in two places: CF_V2_MAX_TAIL_BITS 15 -> 26, and the address bits
# an insert gives its entries (CF_V2_ADDR_BITS = 32) read from
# proto_addr_bits.  The repository's core is not changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$top/src/core" "$tmp/core"
sed -i 's/^#define CF_V2_MAX_TAIL_BITS\t15/#define CF_V2_MAX_TAIL_BITS\t26/' "$tmp/core/cf_format.h"
grep -q 'CF_V2_MAX_TAIL_BITS.26' "$tmp/core/cf_format.h"
sed -i 's/^uint64_t\tcf_v2_limit_bytes = CF_MAX_BYTES;/&\nuint32_t\tproto_addr_bits = CF_V2_ADDR_BITS;/' "$tmp/core/cf_v2_grow.c"
sed -i 's/^extern uint64_t cf_v2_limit_bytes;/&\nextern uint32_t proto_addr_bits;/' "$tmp/core/cf_v2.h"
sed -i 's/make_slot(cf, v.fp, v.a\(2\{0,1\}\), CF_V2_ADDR_BITS, /make_slot(cf, v.fp, v.a\1, proto_addr_bits, /' "$tmp/core/cf_v2_table.c"
test "$(cat "$tmp/core/cf_v2_grow.c" "$tmp/core/cf_v2_table.c" | grep -c proto_addr_bits)" = 3
${CC:-cc} -O2 -std=c99 -I"$tmp/core" -o "$tmp/union_proto" "$here/union_proto.c" "$tmp"/core/*.c -lm
what=${1:-all}
hdr='| t | A | parts | merged | items / distinct | bytes | bits/item | fpr | fpr of one part | false negatives | cf_validate |
|---|---|---|---|---|---|---|---|---|---|---|'
cases=("8 100 3000" "100 100 3000" "10 100 100000" "30 1000 100000")
if [ "$what" = all ] || [ "$what" = grid ]; then
	{ echo "$hdr"
	  for t in 9 12 15 18; do for c in "${cases[@]}"; do "$tmp/union_proto" $t 32 $c; done; done
	  "$tmp/union_proto" 15 32 1000 100 3000
	} | tee "$here/grid.out"
fi
if [ "$what" = all ] || [ "$what" = A ]; then
	{ echo "$hdr"
	  for A in 16 18; do for c in "100 100 3000" "10 100 30000" "1 100 300000"; do "$tmp/union_proto" 26 $A $c; done; done
	  for c in "${cases[@]}" "1000 100 3000"; do "$tmp/union_proto" 26 24 $c; done
	} | tee "$here/budget.out"
fi
if [ "$what" = all ] || [ "$what" = overlap ]; then
	{ echo "$hdr"
	  for c in "2 1000 20000" "30 1000 20000" "30 1000 100000"; do "$tmp/union_proto" 9 32 $c half; done
	  "$tmp/union_proto" 9 32 30 1000 20000      # the same parts, disjoint
	  for c in "30 1000 20000"; do "$tmp/union_proto" 15 32 $c half; "$tmp/union_proto" 26 24 $c half; done
	} | tee "$here/overlap.out"
fi
if [ "$what" = all ] || [ "$what" = dedup ]; then
	# the union's rehome with union_held.diff: an entry counts as held when
	# its bucket or its alternate has one of its fingerprint and generation
	# whose spare bits agree over the shorter's length (>= SAME bits)
	cp -r "$tmp/core" "$tmp/core_dedup"
	patch -s -d "$tmp/core_dedup" -p3 < "$here/union_held.diff"
	{ echo "$hdr" | sed 's/^| t |/| same bits | t |/; s/^|---|/|---|---|/'
	  for same in 0 4 8; do
		${CC:-cc} -O2 -std=c99 -DCF_V2_UNION_SAME_BITS=$same -I"$tmp/core_dedup" -o "$tmp/union_dedup" \
			"$here/union_proto.c" "$tmp"/core_dedup/*.c -lm
		for c in "2 1000 20000 half" "30 1000 20000 half" "30 1000 20000" "30 1000 100000 half"; do
			echo -n "| $same "; "$tmp/union_dedup" 9 32 $c
		done
		for c in "30 1000 20000 half" "30 1000 20000"; do
			echo -n "| $same "; "$tmp/union_dedup" 15 32 $c; echo -n "| $same "; "$tmp/union_dedup" 26 24 $c
		done
	  done
	} | tee "$here/dedup.out"
fi
if [ "$what" = all ] || [ "$what" = cost ]; then
	"$tmp/union_proto" cost | tee "$here/cost.out"
fi
