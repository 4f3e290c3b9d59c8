#!/bin/sh
# final-binary correctness runs (MEMO 2.3, 4.2, 4.4)
P=./proto
for mc in 1 2 3 6; do MAXCOPIES=$mc $P stress lin 6 9 0 0 100 300000 1; done
for seed in 1 2; do
  $P stress lin 6 9 0 0 100 2000000 $seed
  $P stress lin 6 9 3 4 1000 2000000 $seed 1
done
for seed in 1 2 3 4; do
  UDIV=50 CHK=63 $P stress lin 4 3 3 4 20 300000 $seed 1
  UDIV=50 CHK=63 $P stress lin 4 3 3 4 20 300000 $seed 0
done
for seed in 1 2; do
  UDIV=20 CHK=63 $P stress lin 5 6 0 0 20 100000 $seed
  UDIV=20 CHK=63 ANYMATCH=1 $P stress lin 5 6 0 0 20 100000 $seed
done
