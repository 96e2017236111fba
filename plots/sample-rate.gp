# sample-rate.gp - figure 6: allocation samples per second against the sampling period, one line per workload, log-log.
#
# All workloads share one panel because the point of the figure is the
# comparison: the lines are parallel (slope -1) and their vertical offsets
# are the workloads' allocation rates, which is why one period costs
# different workloads differently.  The lines run from top left to bottom
# right, so the key sits bottom left where no line goes.  figures.sh passes
# panels (workloads with allocation cells), amode (the mode drawn: the first
# of the sweep's modes in the runtime's order, from the data) and time_rates (the sweep's time-sampling rates, drawn as
# dashed references).

f = datadir . "/alloc_cells.dat"
cm = c_alloc_cells_alloc_mode; cx = c_alloc_cells_alloc_period
cy = c_alloc_cells_alloc_sps; clo = c_alloc_cells_alloc_sps_lo; chi = c_alloc_cells_alloc_sps_hi
npan = words(panels)
pos(v) = (v > 0) ? v : NaN

# Ranges from figures.sh: xrange_ (periods) and yrange_ (positive samples/s).
xmin = rng(xrange_, 1, 32768); xmax = rng(xrange_, 2, xmin * 2)
xmax = (xmax > xmin) ? xmax : xmin * 2
ymin = rng(yrange_, 1, 1); ymax = rng(yrange_, 2, ymin * 10)
do for [k = 1:words(time_rates)] {
    r = real(word(time_rates, k))
    ymin = (r < ymin) ? r : ymin; ymax = (r > ymax) ? r : ymax
}

cw = 1100; ch = 720
eval set_canvas(cw, ch)
set output outfile
set title sprintf("Allocation samples per second vs sampling period, %s mode (sweep %s)", amode, sweep) \
    font title_font(sprintf("Allocation samples per second vs sampling period, %s mode (sweep %s)", amode, sweep), cw, 13)
set logscale x 2
set logscale y 10
set xrange [xmin / 1.4 : xmax * 1.4]
eval period_tics(xmin, xmax)
set yrange [ymin / 3 : ymax * 3]
set format y "10^{%T}"
set xlabel "allocation sampling period (bytes, log_2 scale)"
set ylabel "allocation samples per second of run time (log scale)"
set key bottom left samplen 2.5 spacing 1.1 font ",10" box opaque
set lmargin at screen 100.0 / cw
set rmargin at screen 1 - 90.0 / cw
do for [k = 1:words(time_rates)] {
    r = real(word(time_rates, k))
    set arrow from graph 0, first r to graph 1, first r nohead ls 100 back
    set label sprintf("%g Hz", r) at graph 1.01, first r left font ",9" tc rgb "#606060"
}
# Each workload's points are shifted sideways a little (dodge), so that nine
# sets of error bars at the same period do not hide one another; a workload
# with no value at all (no samples, or NaN) keeps its key entry, marked.
dodge(i) = 2**(0.045 * (i - (npan + 1) / 2.0))
ktitle(w) = esc(w) . (strstrt(" " . empty, " " . w . " ") > 0 ? " (no value)" : "")
plot for [k = 1:(words(time_rates) > 0)] NaN with lines ls 100 title "time-sampling rates (Hz)", \
     for [i = 1:npan] f using (strcol(1) eq word(panels, i) && strcol(cm) eq amode ? column(cx) * dodge(i) : NaN):(pos(column(cy))):(pos(column(clo))):(pos(column(chi))) \
         with yerrorlines lw 1.5 pt wpoint(windex(word(panels, i))) ps 0.8 lc rgb wcolor(windex(word(panels, i))) title ktitle(word(panels, i))
