#!/bin/sh
# main measurement table (timing on). Output: table.out
P=./proto
for tg in 0.01 0.001; do
  for n in 1000 10000 100000 1000000 10000000; do $P grow fixed $n $tg 0 0.94 2 0 1 1 | grep -v -e worst -e compact; done
  for c0 in 100 1000 10000; do $P grow lin $c0 $tg 8 0.90 2 -3 1000 1; done
  $P grow dbl 1000 $tg 8 0.90 2 -3 1000 1
  $P grow chain 1000 $tg 0 0.94 2 0 1000 1
  $P grow chain 1000 $tg 0 0.94 4 0 1000 1
done
