#!/bin/sh
# demo/plot.sh CONSOLE.LOG OUT.PNG: plot the "sample <ms> <limited>
# <unlimited>" lines demo/run.sh printed, negative dentries over time.
set -eu
data=$2.dat
awk '$1 == "sample" { print $2 / 1000, $3, $4 }' "$1" >"$data"
[ -s "$data" ] || { echo "plot: no samples in $1" >&2; exit 1; }
gnuplot <<GNUPLOT
set terminal pngcairo size 900,500 noenhanced
set output "$2"
set title "Negative dentries of two cgroups stat()ing the same missing names"
set xlabel "seconds"
set ylabel "negative dentries (memory.negative_dentry.current)"
set format y "%.0f"
set key top left
set grid
plot "$data" using 1:3 with linespoints title "memory.negative_dentry.max = max", \
     "$data" using 1:2 with linespoints title "memory.negative_dentry.max = ${MAX:-50000}"
GNUPLOT
echo "plot: $2"
