# sim.gp - the figures of the simulated cells (exact counts under valgrind's cachegrind).
#
# figures.sh sets "which":
#   'alloc'     extra instructions or estimated cycles (metric = 'Ir' or
#               'est_cycles') against the allocation sampling period, one panel
#               per workload (the layout of figure 1), log-log: exact counts
#               need no intervals, and a log axis shows 0.001% next to 1%.
#   'time'      time sampling's modelled overhead at the native rate against
#               the rate, one panel per workload (the layout of figure 2): the
#               counted user-space part and the total with the kernel's
#               measured delivery cost.
#   'normalized' the normalized overheads per 1000 samples/s, per workload:
#               allocation sampling in instructions and in estimated cycles,
#               time sampling modelled (the layout of figure 3).
#   'compare'   the 32K and 4M allocation cells of every workload: overhead in
#               instructions, estimated cycles and wall time (median and
#               interval, when the sweep has timed cells) side by side, in %.
# and panels (the workloads drawn), yranges (per panel "min max" of the
# values drawn, in %), xrange_ (the x values' "min max"), has_wall (compare).

pct(r) = (r - 1) * 100
# has_off (from figures.sh): some value is at or below 0 (the key then explains its marker)
if (!exists("has_off")) { has_off = 1 }
pos(v) = (v > 0) ? v : NaN
npan = words(panels)

if (which eq 'alloc' || which eq 'time') {
    if (which eq 'alloc') {
        f = datadir . "/sim_alloc.dat"
        cx = c_sim_alloc_alloc_period
        cy = (metric eq 'Ir') ? c_sim_alloc_overhead_Ir : c_sim_alloc_overhead_est_cycles
        mname = (metric eq 'Ir') ? "instructions" : "estimated cycles"
        fig_title = sprintf("Allocation sampling, simulated: extra %s vs sampling period", mname)
        fig_xlabel = "allocation sampling period (bytes, log_2 scale)"
        fig_ylabel = sprintf("extra %s, %% of the baseline", mname)
    } else {
        f = datadir . "/sim_time.dat"
        cx = c_sim_time_time_hz
        fig_title = "Time sampling, modelled at the native rate: overhead vs rate"
        fig_xlabel = "time-sampling rate (Hz, log scale)"
        fig_ylabel = "modelled overhead, % of the baseline"
    }
    xmin = rng(xrange_, 1, 32768); xmax = rng(xrange_, 2, xmin)
    pcols = (npan <= 1) ? 1 : ceil(sqrt(npan))
    prows = ceil(1.0 * npan / pcols)
    cw = pcols * panel_w; ch = prows * panel_h + 100
    eval set_canvas(cw, ch)
    set output outfile
    if (which eq 'alloc') {
        set logscale x 2
        set xrange [xmin / 1.5 : xmax * 1.5]
        eval period_tics(xmin, xmax)
    } else {
        set logscale x 10
        set xrange [xmin / 1.6 : xmax * 1.6]
        set xtics ()
        do for [k = 1:words(time_rates)] { set xtics add (word(time_rates, k) real(word(time_rates, k))) }
    }
    set logscale y 10
    set format y "%g"
    unset key
    eval "set multiplot layout prows, pcols " . multiplot_margins(cw, ch, 0) . \
        " title sprintf('%s (sweep %s)', fig_title, sweep) font '" . title_font(sprintf('%s (sweep %s)', fig_title, sweep), cw, 14) . "'"
    do for [i = 1:npan] {
        w = word(panels, i)
        wk = windex(w)
        lo = real(word(yranges, 2 * i - 1)); hi = real(word(yranges, 2 * i))
        lo = (lo > 0) ? lo : 1e-4; hi = (hi > lo) ? hi : lo * 10
        set yrange [lo / 2 : hi * 2]
        lt_lo = lo / 2; lt_hi = hi * 2
        eval log_tics
        set title esc(w) font ",12" offset 0, -0.6
        set xlabel ((i > npan - pcols) ? fig_xlabel : "")
        set ylabel ((i - 1) % pcols == 0 ? fig_ylabel : "")
        if (which eq 'alloc') {
            # a value at or below 0 cannot sit on the log axis: a filled
            # down-triangle at the bottom edge marks it (the caption lists it)
            plot f using (strcol(1) eq w ? column(cx) : NaN):(pos(pct(column(cy)))) with linespoints lc rgb wcolor(wk) pt wpoint(wk) ps 0.8 lw 1.5 notitle, \
                 f using (strcol(1) eq w && pct(column(cy)) <= 0 ? column(cx) : NaN):(lo / 2 * 1.12) with points lc rgb "#C00000" pt 11 ps 1.1 notitle
        } else {
            plot f using (strcol(1) eq w ? column(cx) : NaN):(pos(column(cx) * column(c_sim_time_model_user_ns) * 1e-7)) \
                     with linespoints lc rgb wcolor(wk) pt 6 ps 0.8 dt 2 lw 1.5 notitle, \
                 f using (strcol(1) eq w ? column(cx) : NaN):(pos(pct(column(c_sim_time_model_overhead)))) \
                     with linespoints lc rgb wcolor(wk) pt 7 ps 0.8 lw 1.5 notitle, \
                 f using (strcol(1) eq w && (column(cx) * column(c_sim_time_model_user_ns) <= 0 || pct(column(c_sim_time_model_overhead)) <= 0) ? column(cx) : NaN):(lo / 2 * 1.12) \
                     with points lc rgb "#C00000" pt 11 ps 1.1 notitle
        }
    }
    nleg = 0
    if (which eq 'alloc') {
        nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = wcolor(1); leg_pt[nleg] = 7
        leg_text[nleg] = sprintf("counted %s, cell / baseline - 1 (exact; colour = workload)", mname)
        if (has_off) { nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = "#C00000"; leg_pt[nleg] = 11
            leg_text[nleg] = "at or below 0, off the log axis (value in the caption)" }
    } else {
        nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = wcolor(1); leg_pt[nleg] = 6
        leg_text[nleg] = "counted: user-space instructions per sample at native speed"
        nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = wcolor(1); leg_pt[nleg] = 7
        leg_text[nleg] = "counted + measured kernel delivery (modelled total)"
        if (has_off) { nleg = nleg + 1; leg_kind[nleg] = "point"; leg_color[nleg] = "#C00000"; leg_pt[nleg] = 11
            leg_text[nleg] = "at or below 0, off the log axis (in the caption)" }
    }
    eval legend_row(cw, ch)
    do for [k = 1:nleg] {
        if (k > 1 && (leg_x - leg_x0) * cw + leg_w(k) > leg_width(cw) + 1) {
            leg_x = leg_x0; leg_y = leg_y - 19.0 / ch
        }
        sx = leg_x + 8.0 / cw
        set label "" at screen sx, screen leg_y point pt leg_pt[k] ps 0.9 lc rgb leg_color[k] front
        set label leg_text[k] at screen sx + 14.0 / cw, screen leg_y left font ",10" front
        leg_x = leg_x + (leg_w(k) + 22) / cw
    }
    eval key_plot_setup
    plot NaN notitle
    unset multiplot
}

if (which eq 'normalized') {
    f = datadir . "/sim_normalized.dat"
    xmin = rng(xrange_, 1, 0); xmax = rng(xrange_, 2, xmin); nrow = xmax - xmin + 1
    lo = rng(yranges, 1, 1e-4); hi = rng(yranges, 2, 1)
    hi = (hi > lo) ? hi : lo * 10
    cw = (nrow < 6 ? 6 : nrow) * 150 + 140; ch = 560
    eval set_canvas(cw, ch)
    set output outfile
    set label 1 sprintf("Normalized overhead per 1000 samples/s, simulated (sweep %s)", sweep) \
        at screen 0.5, screen 1 - 22.0 / ch center font title_font(sprintf("Normalized overhead per 1000 samples/s, simulated (sweep %s)", sweep), cw, 13)
    set xrange [xmin - 0.6 : xmax + 0.6]
    set logscale y 10
    set format y "%g"
    set yrange [lo / 2 : hi * 3]
    lt_lo = lo / 2; lt_hi = hi * 3
    eval log_tics
    set xtics scale 0 font ",11"
    set grid noxtics ytics
    set ylabel "normalized overhead - 1, %\n(overhead - 1) × 1000 / (native samples/s)"
    set xlabel "workload (allocation: the period nearest 1000 samples/s natively)"
    # the key's entries one under the other between the title and the plot
    set tmargin at screen 1 - 112.0 / ch
    set key at screen 0.5, screen 1 - 38.0 / ch center top vertical maxrows 4 samplen 1.5 font ",10"
    set lmargin at screen 110.0 / cw
    set rmargin at screen 1 - 20.0 / cw
    dx = 0.2
    plot f using (column(c_sim_normalized_index)):(lo):xtic(esc(strcol(c_sim_normalized_workload))) with points pt 7 ps 0.1 lc rgb "#FFFFFFFF" notitle, \
         f using (column(c_sim_normalized_index) - dx):(pos(pct(column(c_sim_normalized_normalized_Ir)))) \
            with points lc rgb "#0072B2" pt 7 ps 1.2 title "allocation, instructions (counted)", \
         f using (column(c_sim_normalized_index)):(pos(pct(column(c_sim_normalized_normalized_est_cycles)))) \
            with points lc rgb "#009E73" pt 5 ps 1.1 title "allocation, estimated cycles (counted)", \
         f using (column(c_sim_normalized_index) + dx):(pos(pct(column(c_sim_normalized_time_normalized_model)))) \
            with points lc rgb "#D55E00" pt 9 ps 1.3 title "time, modelled (counted handler + measured kernel delivery)", \
         for [k = 0:(has_off ? 2 : -1)] f using (column(c_sim_normalized_index) + (k - 1) * dx):(pct(column(k == 0 ? c_sim_normalized_normalized_Ir : k == 1 ? c_sim_normalized_normalized_est_cycles : c_sim_normalized_time_normalized_model)) <= 0 ? lo / 2 * 1.15 : NaN) \
            with points lc rgb "#C00000" pt 11 ps 1.2 title (k == 0 ? "at or below 0, off the log axis (value in the caption)" : "")
}

if (which eq 'compare') {
    f = datadir . "/sim_compare.dat"
    s5_periods = (p_long > p_short) ? fmtbytes(int(p_short)) . " and " . fmtbytes(int(p_long)) : fmtbytes(int(p_short))
    pcols = (npan <= 1) ? 1 : ceil(sqrt(npan))
    prows = ceil(1.0 * npan / pcols)
    cw = pcols * panel_w; ch = prows * panel_h + 100
    eval set_canvas(cw, ch)
    set output outfile
    set xrange [-0.7 : 1.7]
    # the two periods of sim_compare.dat (p_short, p_long from figures.sh;
    # a plan with one has only it)
    if (p_long > p_short) { set xtics (fmtbytes(int(p_short)) 0, fmtbytes(int(p_long)) 1) } else { set xtics (fmtbytes(int(p_short)) 0); set xrange [-0.7 : 0.7] }
    unset key
    eval "set multiplot layout prows, pcols " . multiplot_margins(cw, ch, 0) . \
        " title sprintf('Allocation sampling at %s: instructions, cycles, wall time (sweep %s)', s5_periods, sweep) font '" . title_font(sprintf('Allocation sampling at %s: instructions, cycles, wall time (sweep %s)', s5_periods, sweep), cw, 13) . "'"
    px(p) = (abs(p - p_short) < 0.5) ? 0 : (abs(p - p_long) < 0.5) ? 1 : NaN
    do for [i = 1:npan] {
        w = word(panels, i)
        lo = real(word(yranges, 2 * i - 1)); hi = real(word(yranges, 2 * i))
        lo = (lo < 0) ? lo : 0; hi = (hi > 0) ? hi : 0
        d = (hi - lo > 0.01) ? hi - lo : 0.01
        set yrange [lo - 0.08 * d : hi + 0.12 * d]
        set title esc(w) font ",12" offset 0, -0.6
        set xlabel ((i > npan - pcols) ? "allocation sampling period" : "")
        set ylabel ((i - 1) % pcols == 0 ? "overhead, % of the baseline" : "")
        plot 0 with lines ls 100 notitle, \
             f using (strcol(c_sim_compare_workload) eq w ? px(column(c_sim_compare_alloc_period)) - 0.22 : NaN):(pct(column(c_sim_compare_overhead_Ir))) \
                with points lc rgb "#0072B2" pt 7 ps 1.0 notitle, \
             f using (strcol(c_sim_compare_workload) eq w ? px(column(c_sim_compare_alloc_period)) : NaN):(pct(column(c_sim_compare_overhead_est_cycles))) \
                with points lc rgb "#009E73" pt 5 ps 1.0 notitle, \
             f using (strcol(c_sim_compare_workload) eq w ? px(column(c_sim_compare_alloc_period)) - 0.22 : NaN):(pct(column(c_sim_compare_overhead_Ir))):(sprintf("%+.2g%%", pct(column(c_sim_compare_overhead_Ir)))) \
                with labels right offset -0.8, 0 font ",8" tc rgb "#0072B2" notitle, \
             for [j = 1:has_wall] f using (strcol(c_sim_compare_workload) eq w ? px(column(c_sim_compare_alloc_period)) + 0.22 : NaN):(pct(column(c_sim_compare_overhead_wall))):(pct(column(c_sim_compare_overhead_wall_lo))):(pct(column(c_sim_compare_overhead_wall_hi))) \
                with yerrorbars lc rgb "#D55E00" pt 9 ps 1.0 lw 1.5 notitle
    }
    nleg = 3
    leg_kind[1] = "point"; leg_color[1] = "#0072B2"; leg_pt[1] = 7; leg_text[1] = "instructions (counted, exact)"
    leg_kind[2] = "point"; leg_color[2] = "#009E73"; leg_pt[2] = 5; leg_text[2] = "estimated cycles (counted, exact)"
    leg_kind[3] = "bar"; leg_color[3] = "#D55E00"; leg_pt[3] = 9
    leg_text[3] = has_wall ? sprintf("wall time, median and %s CI (measured)", cilabel) : "wall time: not in this sweep"
    eval legend_row(cw, ch)
    do for [k = 1:nleg] {
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
}
