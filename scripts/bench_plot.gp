# SPDX-License-Identifier: GPL-2.0
# psem's benchmark plot: grouped bars per cell, one bar per variant at its
# median, whiskers from the fastest to the slowest round. Log scale: the
# cells differ by an order of magnitude.
#
#   gnuplot -e "dir='DIR'; out='OUT.png'" scripts/bench_plot.gp
#
# DIR holds the data files and panels.gp that
# `scripts/bench_table.py --plot-data DIR` writes; scripts/bench.sh runs both.
if (!exists("dir")) dir = "."
if (!exists("out")) out = "psem-bench.png"
load dir."/panels.gp"

set terminal pngcairo noenhanced size 1600,(480 * npanels + 60) font "sans,10"
set output out
set datafile missing "-"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set grid ytics mytics lc rgb "#dddddd"
set key outside right top vertical
set xtics rotate by -25 nomirror
set ytics nomirror
set bars front

set multiplot layout npanels,1 title plot_title noenhanced
do for [p = 1:npanels] {
	f = dir."/".value(sprintf("panel%d_file", p))
	vars = value(sprintf("panel%d_vars", p))
	colors = value(sprintf("panel%d_colors", p))
	set ylabel value(sprintf("panel%d_ylabel", p))
	set title value(sprintf("panel%d_title", p)) noenhanced
	plot for [i = 1:words(vars)] f using (column(3 * i - 1)):(column(3 * i)):(column(3 * i + 1)):xtic(1) \
		title word(vars, i) lc rgb word(colors, i)
}
unset multiplot
