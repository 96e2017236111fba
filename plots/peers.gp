# peers.gp - the peers figure: allocation sampling overhead against the period,
# one panel per workload, one line per system (freecheck and the other
# runtimes' samplers measured in the same sweep; make peers).
#
# plots/peers.sh sets:
#   dat        DIR/plotdata/peers.dat (build/bin/peers-report writes it; columns
#              base system period_bytes overhead_pct lo_pct hi_pct samples_per_run)
#   outfile    the picture to write; fmt 'png' or 'svg'
#   workloads  the panels (the file's "# workloads:" line)
#   systems    every line's name (its "# systems:" line): a system keeps its colour in every panel
#   sys_K      the systems of panel K (the K-th workload), space separated
#   xmin, xmax the x range shared by the panels
#   sweep      the sweep's name, for the title
# Each point is a cell's paired overhead (its runs against their adjacent
# baseline runs, Hodges-Lehmann) with its bootstrap interval; the rows of one
# (workload, system) are contiguous and sorted by period, so the filtered
# column draws one connected line per system.

palette = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #882255 #999933"
ptypes = "7 5 9 11 13 15 1 2 3"
scolor(i) = word(palette, (i - 1) % 9 + 1)
spoint(i) = int(word(ptypes, (i - 1) % 9 + 1))
# The colour index of system s: its position in systems.
sidx(s) = words((" " . systems)[1:strstrt(" " . systems . " ", " " . s . " ")]) + 1
nw = words(workloads)
ns = words(systems)
ncol = nw < 3 ? nw : 3
nrow = (nw + ncol - 1) / ncol
W = 520 * ncol
H = 420 * nrow
if (fmt eq 'svg') {
    set terminal svg size W, H dynamic enhanced font 'Sans,12' background rgb 'white'
} else {
    set terminal pngcairo size W, H enhanced font 'Sans,11' background rgb 'white' linewidth 1.2
}
set output outfile
set datafile missing "NaN"
set logscale x 2
set xrange [xmin:xmax]
set offsets 0, 0, graph 0.05, graph 0.05
set format x "%.0b%B"
set xlabel "allocation sampling period (bytes, log_2 scale)"
set ylabel "overhead (%, paired wall time)"
set grid lc rgb "#dddddd"
set key top right font ",9"
set xzeroaxis lt 1 lc rgb "#888888"
set multiplot layout nrow, ncol title sprintf("Allocation samplers side by side (%s)", sweep)
do for [k = 1:nw] {
    w = word(workloads, k)
    ps_ = value(sprintf("sys_%d", k))
    set title w
    plot for [i = 1:words(ps_)] dat using (strcol(1) eq w && strcol(2) eq word(ps_, i) ? $3 : NaN):4:($5 == $5 ? $5 : $4):($6 == $6 ? $6 : $4) \
             with yerrorbars lc rgb scolor(sidx(word(ps_, i))) pt spoint(sidx(word(ps_, i))) ps 0.8 notitle, \
         for [i = 1:words(ps_)] dat using (strcol(1) eq w && strcol(2) eq word(ps_, i) ? $3 : NaN):4 \
             with lines lc rgb scolor(sidx(word(ps_, i))) lw 1.5 title word(ps_, i)
}
unset multiplot
