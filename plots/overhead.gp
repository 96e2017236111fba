# overhead.gp - figures 1 and 2: overhead against the sampling setting (allocation period or time-sampling rate), one panel per workload.
#
# figures.sh sets "which" to 'alloc' (figure 1: x = allocation sampling period,
# log2 axis) or 'time' (figure 2: x = requested time-sampling rate in Hz, log
# axis), "panels" (the workloads that have such cells), has_base (the
# baseline's runs exist) and modes (the allocation modes, figure 1, or the
# clocks and time sampler's modes, figure 2 (time_series: "wall",
# "wall-thread"), present in the data, in the runtime's order: the first is
# the main series, each further one an extra series of open points and a
# dashed line, shifted a little right).
# Every measured run is a faint dot (its wall time / the median of its
# workload's baseline), spread a little sideways so thirty runs stay visible;
# the black line joins the cell medians and the bars are their bootstrap CIs.
# The baseline's own runs over their median stand at "off" on the left: the
# noise an overhead has to stand out from.
# Panels share the x axis but each has its own y range: overheads differ by
# orders of magnitude between workloads and a shared axis would flatten the
# allocation-light ones.  A y range wider than 2x is drawn on a log scale, so
# small overheads at long periods stay readable next to large ones.

# has_paired (from figures.sh): the cells carry paired ratios (blocked design),
# drawn in blue a little to the left of each setting.
if (!exists("has_paired")) { has_paired = 0 }
if (which eq 'alloc') {
    runs = datadir . "/alloc_runs.dat"; cells = datadir . "/alloc_cells.dat"
    rx = c_alloc_runs_alloc_period; rround = c_alloc_runs_round; rratio = c_alloc_runs_ratio; rmode = c_alloc_runs_alloc_mode
    cx = c_alloc_cells_alloc_period; cmed = c_alloc_cells_overhead; clo = c_alloc_cells_overhead_lo; chi = c_alloc_cells_overhead_hi
    cmode = c_alloc_cells_alloc_mode
    cpair = exists("c_alloc_cells_paired") ? c_alloc_cells_paired : 0
    cplo = exists("c_alloc_cells_paired_lo") ? c_alloc_cells_paired_lo : 0
    cphi = exists("c_alloc_cells_paired_hi") ? c_alloc_cells_paired_hi : 0
    fig_title = "Allocation sampling: overhead vs sampling period"
    fig_xlabel = "allocation sampling period (bytes, log_2 scale)"
} else {
    runs = datadir . "/time_runs.dat"; cells = datadir . "/time_cells.dat"
    # The series of figure 2: clocks, and the time sampler's modes after the
    # first (time_series: "wall", "wall-thread"); plot data written before
    # that column (has_series = 0, from figures.sh) have the clocks alone.
    if (!exists("has_series")) { has_series = 0 }
    rx = c_time_runs_time_hz; rround = c_time_runs_round; rratio = c_time_runs_ratio
    rmode = has_series ? c_time_runs_time_series : c_time_runs_time_clock
    cx = c_time_cells_time_hz; cmed = c_time_cells_overhead; clo = c_time_cells_overhead_lo; chi = c_time_cells_overhead_hi
    cmode = has_series ? c_time_cells_time_series : c_time_cells_time_clock
    cpair = exists("c_time_cells_paired") ? c_time_cells_paired : 0
    cplo = exists("c_time_cells_paired_lo") ? c_time_cells_paired_lo : 0
    cphi = exists("c_time_cells_paired_hi") ? c_time_cells_paired_hi : 0
    fig_title = "Time sampling: overhead vs sampling rate"
    fig_xlabel = "time-sampling rate, Hz: requested (achieved)"
}
base = datadir . "/baseline_runs.dat"
npan = words(panels)
nmodes = words(modes)
mode1 = word(modes, 1)
# The styles of the further modes (m = 2, 3, ...): colour, dash type, point type.
mcolors = "#A03000 #6A3D9A #117733 #AA4499"
mcolor(m) = word(mcolors, (m - 2) % 4 + 1)
mpt(m) = int(word("6 8 10 12", (m - 2) % 4 + 1))
mdt(m) = (m - 2) % 3 + 2

# Axis ranges come from figures.sh (computed over the data with awk):
# xrange_ = "min max" of the x values, yranges = one "min max" pair of the
# overhead values (runs, medians, intervals, baseline runs) per panel, and
# for figure 2 achieved = each panel's achieved rate at each requested rate
# (-1 where there is none): the timer can deliver fewer signals than asked
# for, and the cost follows what was achieved, so the ticks show both.
xmin = rng(xrange_, 1, 32768); xmax = rng(xrange_, 2, xmin)
array ylo[npan]; array yhi[npan]
do for [i = 1:npan] {
    ylo[i] = real(word(yranges, 2 * i - 1)); yhi[i] = real(word(yranges, 2 * i))
    ylo[i] = (ylo[i] > 1) ? 1 : ylo[i]
    yhi[i] = (yhi[i] < 1) ? 1 : yhi[i]
}
nrates = (which eq 'time') ? words(time_rates) : 0

# The layout for the panels actually drawn.
pcols = (npan <= 1) ? 1 : ceil(sqrt(npan))
prows = ceil(1.0 * npan / pcols)
xextra = (which eq 'time') ? 20 : 0     # room for the two-line ticks of figure 2
cw = pcols * panel_w; ch = prows * (panel_h + xextra) + 100
eval set_canvas(cw, ch)
set output outfile
# The further modes' medians (poisson mode, CPU clock) sit a little to the
# right, each a step further, so that all intervals stay visible where they coincide.
xshift2 = 2**0.2
# The baseline's column sits one and a half steps left of the first setting.
if (which eq 'alloc') {
    set logscale x 2
    xbase = xmin / 2**1.5
    set xrange [xbase / 1.5 : xmax * 1.6]
    eval period_tics(xmin, xmax)
    xjit = 0.45          # log2 units: neighbouring periods are 1 apart
} else {
    set logscale x 10
    xbase = xmin / 4
    set xrange [xbase / 1.6 : xmax * 1.6]
    # ticks at the sweep's own rates only (figures.sh passes time_rates)
    set xtics ()
    do for [k = 1:words(time_rates)] { set xtics add (word(time_rates, k) real(word(time_rates, k))) }
    xjit = 0.3           # 1000 and 2000 Hz are only 1 log2 unit apart
}
if (has_base) { set xtics add ("off" xbase) }
unset key
eval "set multiplot layout prows, pcols " . multiplot_margins(cw, ch, xextra) . \
    " title sprintf('%s (sweep %s)', fig_title, sweep) font '" . title_font(sprintf('%s (sweep %s)', fig_title, sweep), cw, 14) . "'"
# A run beyond the panel's range (which follows the cells, not the runs) is
# drawn on the frame's edge, so it is still seen without setting the scale.
edge(v) = (v < ybot) ? ybot : (v > ytop) ? ytop : v
do for [i = 1:npan] {
    w = word(panels, i)
    wk = windex(w)       # the workload's colour (k is taken by loops below)
    yspan = yhi[i] / ylo[i]
    if (yspan > 2) {
        set logscale y
        ybot = ylo[i] / yspan**0.04; ytop = yhi[i] * yspan**0.06
        eval ratio_tics(ylo[i], yhi[i])
    } else {
        unset logscale y
        set ytics autofreq
        yd = (yhi[i] - ylo[i] > 0) ? yhi[i] - ylo[i] : 0.01
        ybot = ylo[i] - 0.04 * yd; ytop = yhi[i] + 0.06 * yd
    }
    set yrange [ybot : ytop]
    set title esc(w) font ",12" offset 0, -0.6
    if (which eq 'time') {
        set xtics ()
        do for [k = 1:nrates] {
            a = real(word(achieved, (i - 1) * nrates + k))
            set xtics add ((a >= 0 ? sprintf("%s\n(%.0f)", word(time_rates, k), a) : word(time_rates, k)) real(word(time_rates, k)))
        }
        if (has_base) { set xtics add ("off" xbase) }
    }
    set xlabel ((i > npan - pcols) ? fig_xlabel : "") offset 0, (which eq 'time' ? -0.9 : 0)
    set ylabel ((i - 1) % pcols == 0 ? "overhead (× baseline median wall time)" : "") offset 1, 0
    plot 1 with lines ls 100 notitle, \
         for [j = 1:has_base] base using (strcol(1) eq w ? xbase * 2**(xjit * jitter(column(c_baseline_runs_round))) : NaN):(edge(column(c_baseline_runs_ratio))) \
              with points pt 7 ps 0.35 lc rgb "#A0808080" notitle, \
         runs using (strcol(1) eq w && strcol(rmode) eq mode1 ? column(rx) * 2**(xjit * jitter(column(rround))) : NaN):(edge(column(rratio))) \
              with points pt 7 ps 0.35 lc rgb wfaint(wk) notitle, \
         cells using (strcol(1) eq w && strcol(cmode) eq mode1 ? column(cx) : NaN):(column(cmed)):(column(clo)):(column(chi)) \
              with yerrorbars ls 101 pt 7 ps 0.5 notitle, \
         cells using (strcol(1) eq w && strcol(cmode) eq mode1 ? column(cx) : NaN):(column(cmed)) with lines ls 101 notitle, \
         for [j = 1:has_paired] cells using (strcol(1) eq w && strcol(cmode) eq mode1 ? column(cx) / xshift2 : NaN):(column(cpair)):(column(cplo)):(column(cphi)) \
              with yerrorbars lc rgb "#1050C0" lw 1.5 pt 5 ps 0.5 notitle, \
         for [m = 2:nmodes] runs using (strcol(1) eq w && strcol(rmode) eq word(modes, m) ? column(rx) * 2**(xjit * jitter(column(rround))) : NaN):(edge(column(rratio))) \
              with points pt mpt(m) ps 0.35 lc rgb wfaint(wk) notitle, \
         for [m = 2:nmodes] cells using (strcol(1) eq w && strcol(cmode) eq word(modes, m) ? column(cx) * xshift2**(m - 1) : NaN):(column(cmed)):(column(clo)):(column(chi)) \
              with yerrorbars lc rgb mcolor(m) lw 1.5 pt mpt(m) ps 0.6 notitle, \
         for [m = 2:nmodes] cells using (strcol(1) eq w && strcol(cmode) eq word(modes, m) ? column(cx) * xshift2**(m - 1) : NaN):(column(cmed)) with lines lc rgb mcolor(m) dt mdt(m) lw 1.5 notitle
}
# The key, once for all panels, in a row under the title (see legend_row).
nleg = 0
if (has_base) { nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = "#808080"; leg_pt[nleg] = 7; leg_text[nleg] = "baseline run / its median" }
nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = wcolor(1); leg_pt[nleg] = 7
leg_text[nleg] = "one run (" . mode1 . "; colour = workload)"
nleg = nleg + 1; leg_kind[nleg] = "bar"; leg_color[nleg] = "#202020"; leg_pt[nleg] = 7; leg_text[nleg] = sprintf("median and %s CI", cilabel)
if (has_paired) {
    nleg = nleg + 1; leg_kind[nleg] = "bar"; leg_color[nleg] = "#1050C0"; leg_pt[nleg] = 5
    leg_text[nleg] = sprintf("paired ratio and %s CI (" . mode1 . ")", cilabel)
}
do for [m = 2:nmodes] {
    nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = wcolor(1); leg_pt[nleg] = mpt(m); leg_text[nleg] = "one run (" . word(modes, m) . ")"
    nleg = nleg + 1; leg_kind[nleg] = "bar"; leg_color[nleg] = mcolor(m); leg_pt[nleg] = mpt(m)
    leg_text[nleg] = sprintf("median and %s CI (%s)", cilabel, word(modes, m))
}
eval legend_row(cw, ch)
do for [k = 1:nleg] {
    if (k > 1 && (leg_x - leg_x0) * cw + leg_w(k) > leg_width(cw) + 1) {
        leg_x = leg_x0; leg_y = leg_y - 19.0 / ch
    }
    sx = leg_x + 8.0 / cw
    if (leg_kind[k] eq "bar") {
        set arrow from screen sx, screen leg_y - 9.0 / ch to screen sx, screen leg_y + 9.0 / ch heads size screen 0.004, 90 \
            lc rgb leg_color[k] lw 1.5 front
    }
    set label "" at screen sx, screen leg_y point pt leg_pt[k] ps 0.9 lc rgb leg_color[k] front
    set label leg_text[k] at screen sx + 14.0 / cw, screen leg_y left font ",10" front
    leg_x = leg_x + (leg_w(k) + 22) / cw
}
eval key_plot_setup
plot NaN notitle
unset multiplot
