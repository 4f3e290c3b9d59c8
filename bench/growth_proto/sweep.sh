#!/bin/sh
# parameter sweep (no timing): target fpr, fdelta (f = f_fixed + fdelta), tail bits t, split load alpha
for a in 0.90 0.93; do
for cfg in "0.01 -3 8" "0.01 -4 8" "0.01 -4 9" "0.01 -3 7" "0.001 -3 8" "0.001 -4 9" "0.001 -3 7" "0.001 -4 8"; do
  set -- $cfg
  ./proto grow lin 1000 $1 $3 $a 2 $2 1000 0 | grep -v compact | sed 's/| ns.*//'
done; done
