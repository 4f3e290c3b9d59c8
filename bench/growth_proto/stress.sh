#!/bin/sh
# delete / rotation correctness against an exact multiset model (see MEMO.md).
# Tiny f and t make fingerprint collisions and exhausted (s = 0) entries frequent.
P=./proto
for seed in 1 2 3 4; do
  UDIV=50 CHK=63 timeout 120 $P stress lin 4 3 3 4 20 300000 $seed 1
  UDIV=50 CHK=63 timeout 120 $P stress lin 4 3 3 4 20 300000 $seed 0
done
for seed in 1 2; do
  UDIV=20 CHK=63 timeout 60 $P stress lin 5 6 0 0 20 100000 $seed || echo "(timeout/abort above: runaway growth, see MEMO 4.2)"
  UDIV=20 CHK=63 ANYMATCH=1 timeout 60 $P stress lin 5 6 0 0 20 100000 $seed || echo "(timeout/abort)"
done
for seed in 1 2; do
  timeout 300 $P stress lin 6 9 0 0 100 2000000 $seed
  timeout 300 $P stress lin 6 9 3 4 1000 2000000 $seed 1
done
