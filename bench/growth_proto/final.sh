#!/bin/sh
# final measurements for MEMO.md (chosen design: lin, f = f_fixed - 4, t = 9, split load 0.90)
P=./proto
{
for tg in 0.01 0.001; do
  for c0 in 100 1000 10000; do $P grow lin $c0 $tg 9 0.90 2 -4 1000 0; done
done
$P grow lin 10 0.01 9 0.90 2 -4 100000 0 | grep -v compact
$P grow lin 10 0.001 9 0.90 2 -4 100000 0 | grep -v compact
} > final_table.out 2>&1
for tg in 0.01 0.001; do for n in 10000 1000000 16000000; do $P timing $n $tg 5; done; done > final_timing.out 2>&1
$P rotation 100000 0.01 16 > rotation.out 2>&1
for n in 100000 1000000; do $P compactdel 1000 $n $((n/10)) 0.01; TB=9 FD=4 $P compactdel 1000 $n $((n/10)) 0.01; done > compactdel.out 2>&1
for t in 0.01 0.001; do $P union 1000 1000000 50000 $t; $P union 1000 300000 300000 $t; done > union.out 2>&1
