#!/bin/sh
# lookup timing: right-sized fixed vs linear-grown 1000x vs chain, min of interleaved reps
for tg in 0.01 0.001; do for n in 10000 1000000 16000000; do ./proto3 timing $n $tg 5; done; done
