# peers.gp - figure 8: allocation sampling overhead against the period, one
# panel per workload, one line per system (freecheck and the other runtimes'
# samplers measured in the same sweep; make peers).
#
# figures.sh sets, besides common.gp's variables:
#   npanel     the number of panels (workloads with an overhead estimate)
#   panel_K    the K-th panel's workload
#   sys_K      the systems (lines) of panel K, space separated
#   lab_K_I    the key entry of system I of panel K: the system and its
#              per-sample cost with its interval, or that it has none (a
#              system that keeps no count of its samples)
#   systems    every line's name in the file's order: a system keeps its
#              colour in every panel
#   xmin, xmax the x range shared by the panels (the sweep's periods)
# Each point is a cell's paired overhead (its runs against their adjacent
# baseline runs, Hodges-Lehmann) with its bootstrap interval, from
# plotdata/peers.dat; the rows of one (workload, system) are contiguous and
# sorted by period, so the filtered column draws one connected line per
# system.

f = datadir . "/peers.dat"
cw_ = c_peers_workload; cs_ = c_peers_system; cx_ = c_peers_period_bytes
cy_ = c_peers_overhead_pct; clo_ = c_peers_lo_pct; chi_ = c_peers_hi_pct
scolor(i) = word(palette, (i - 1) % 9 + 1)
spoint(i) = int(word(ptypes, (i - 1) % 9 + 1))
# The colour index of system s: its position in systems.
sidx(s) = words((" " . systems)[1:strstrt(" " . systems . " ", " " . s . " ")]) + 1
ncol = npanel < 3 ? npanel : 3
nrow = (npanel + ncol - 1) / ncol
W = (ncol < 2) ? 820 : 600 * ncol     # one panel: room for the key's long entries
H = 540 * nrow + 60
eval set_canvas(W, H)
set output outfile
set datafile missing "NaN"
set logscale x 2
set xrange [xmin / 1.5 : xmax * 1.5]
eval period_tics(xmin, xmax)
set offsets 0, 0, graph 0.05, graph 0.05
set xlabel "allocation sampling period (bytes, log_2 scale)"
set ylabel "overhead (%, paired wall time)"
set key outside below left Left reverse font ",9" samplen 2 spacing 1.1
set xzeroaxis ls 100
set multiplot layout nrow, ncol title sprintf("Allocation samplers side by side: overhead vs sampling period (sweep %s)", sweep) \
    font title_font(sprintf("Allocation samplers side by side: overhead vs sampling period (sweep %s)", sweep), W, 13)
do for [k = 1:npanel] {
    w = value(sprintf("panel_%d", k))
    ps_ = value(sprintf("sys_%d", k))
    set title esc(w)
    # each system a little to the side of the period (a tenth of an octave
    # per system, centred), so intervals at the same period never coincide
    sh(i) = 2**(0.1 * (i - (words(ps_) + 1) / 2.0))
    plot for [i = 1:words(ps_)] f using (strcol(cw_) eq w && strcol(cs_) eq word(ps_, i) ? column(cx_) * sh(i) : NaN):(column(cy_)):(column(clo_) == column(clo_) ? column(clo_) : column(cy_)):(column(chi_) == column(chi_) ? column(chi_) : column(cy_)) \
             with yerrorbars lc rgb scolor(sidx(word(ps_, i))) pt spoint(sidx(word(ps_, i))) ps 0.8 notitle, \
         for [i = 1:words(ps_)] f using (strcol(cw_) eq w && strcol(cs_) eq word(ps_, i) ? column(cx_) * sh(i) : NaN):(column(cy_)) \
             with lines lc rgb scolor(sidx(word(ps_, i))) lw 1.5 title esc(value(sprintf("lab_%d_%d", k, i)))
}
unset multiplot
