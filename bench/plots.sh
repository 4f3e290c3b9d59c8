#!/usr/bin/env bash
# The pictures in docs/BENCHMARKS.md (gnuplot, Debian's gnuplot-nox):
#
#   bash bench/plots.sh [fpr] [sweep [ROWS]]     (default: both; ROWS 2000000)
#
# fpr:   docs/img/fpr_bits.png: false-positive rate against bits per item for
#        plain and semi-sorted (2,4) filters filled until the first failed
#        insert (bench/fpr_points.c, no server), beside the information-
#        theoretic bound, a space-optimal Bloom filter, the paper's formulas
#        for the cuckoo filter (Table 2, as in its Figure 4) and its measured
#        points (Table 3).  About 5 s.
# sweep: docs/img/ratios_by_size.png: probe and build ratios per filter size
#        (bench/sql_bench.sh with BENCH_ONLY=sweep: the *installed* cuckoo, a
#        throwaway cluster, as root).  About 2 minutes with ROWS=2000000.
# The data files go beside the images (docs/img/*.dat).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
img=docs/img
mkdir -p "$img"
command -v gnuplot >/dev/null || { echo "gnuplot is missing: apt-get install gnuplot-nox" >&2; exit 1; }

if [[ $what == all || $what == fpr ]]; then
  work=$(mktemp -d)
  ${CC:-cc} -O2 -std=gnu99 -Isrc/core -o "$work/fpr_points" bench/fpr_points.c src/core/cf_*.c -lm
  "$work/fpr_points" >"$img/fpr_bits.dat"
  rm -rf "$work"
  gnuplot <<GP
set terminal pngcairo size 820,520 font "sans,10"
set output "$img/fpr_bits.png"
set title "Bits per item against false-positive rate: (2,4) cuckoo filters filled until the first failed insert"
set xlabel "false-positive rate (measured, 4M random absent keys)"
set ylabel "bits per item"
set logscale x
set xrange [1e-5:0.5]
set yrange [0:26]
set format x "10^{%L}"
set grid
set key top right
lg(x) = log(1/x) / log(2)
plot lg(x) title "information-theoretic bound, log2(1/e)" lw 2 dt 2 lc rgb "black", \
     1.44 * lg(x) title "space-optimal Bloom filter, 1.44 log2(1/e)" lw 2 lc rgb "#888888", \
     (lg(x) + 3) / 0.955 title "paper: cuckoo filter, (log2(1/e) + 3) / 0.955" lw 1.5 lc rgb "#1f77b4", \
     (lg(x) + 2) / 0.955 title "paper: semi-sorted, (log2(1/e) + 2) / 0.955" lw 1.5 lc rgb "#d62728", \
     "$img/fpr_bits.dat" using (stringcolumn(1) eq "plain" ? \$6 : 1/0):5 title "cuckoo: plain, f = 4..16" with points pt 7 ps 1.2 lc rgb "#1f77b4", \
     "$img/fpr_bits.dat" using (stringcolumn(1) eq "semisorted" ? \$6 : 1/0):5 title "cuckoo: semi-sorted, f = 5..17" with points pt 5 ps 1.1 lc rgb "#d62728", \
     "-" using 1:2 title "paper, Table 3 (2^{25} buckets): CF 0.19%, ss-CF 0.09%" with points pt 12 ps 2.2 lw 2 lc rgb "black"
0.0019 12.60
0.0009 12.58
e
GP
  echo "wrote $img/fpr_bits.png"
fi

if [[ $what == all || $what == sweep ]]; then
  rows=${2:-2000000}
  if [[ -z ${PLOT_ONLY:-} ]]; then   # PLOT_ONLY=1: redraw from the .dat file
    dir=$(mktemp -d)
    chmod 777 "$dir"
    BENCH_ONLY=sweep BENCH_PLOT_DIR=$dir bash bench/sql_bench.sh "$rows" >"$img/ratios_by_size.md"
    cp "$dir/sweep.dat" "$img/ratios_by_size.dat"
    rm -rf "$dir"
  fi
  gnuplot <<GP
set terminal pngcairo size 820,520 font "sans,10"
set output "$img/ratios_by_size.png"
set title "Time against the baseline, by filter size ($rows probe rows, PostgreSQL 15, serial)"
set xlabel "items in the filter"
set ylabel "ratio (1 = the baseline's time)"
set logscale x
set format x "10^{%L}"
set xrange [500:2e7]
set yrange [0:*]
set grid
set key top left
plot "$img/ratios_by_size.dat" using 1:3 title "probe: WHERE cuckoo_contains(f, k) / WHERE k <> 0" noenhanced with linespoints pt 7 lw 2 lc rgb "#1f77b4", \
     "$img/ratios_by_size.dat" using 1:4 title "build: cuckoo_agg(k) / hll_add_agg(hll_hash_bigint(k))" noenhanced with linespoints pt 5 lw 2 lc rgb "#d62728", \
     1.3 title "goal, probe (1M items): 1.3" dt 2 lw 1.5 lc rgb "#1f77b4", \
     1.2 title "goal, build: 1.2" dt 3 lw 1.5 lc rgb "#d62728"
GP
  echo "wrote $img/ratios_by_size.png"
fi
