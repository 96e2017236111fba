# accuracy.gp - the accuracy study's figures (plots/accuracy.sh draws them;
# docs/FIGURES.md, "Accuracy figures"), one panel per workload:
#   which = 'tvd'       total variation distance between the sampled and the
#                       exact site distribution vs period: fixed (black) and
#                       poisson (red, open, shifted right), median and 95%
#                       range over the offsets / seeds, with the distance
#                       independent sampling would give (workload colour);
#   which = 'top10'     the largest relative error of the ten largest sites
#                       holding >= 1% of the bytes vs period, with 1.96 /
#                       sqrt(expected samples of the smallest of them) and
#                       the 5% line;
#   which = 'overhead'  median TVD against the overhead the reference sweep
#                       measured at the same period (fixed-mode cells), one
#                       point per period, labelled.
# accuracy.sh sets fmt, outfile, datadir, study (the study's name), panels
# and workloads (the fixed colour order), yranges (for 'overhead': x ranges).
# Columns of accuracy.dat: 1 workload 2 mode 3 period 4 dimension 5 runs
# 6 tvd_median 7 tvd_lo 8 tvd_hi 9 tvd_indep 10 err_median 11 err_lo 12 err_hi
# 13 within5 14 set_ok 15 order_ok 16 min_expected (of the smallest top key)
# 17 err_indep.
# accuracy_overhead.dat: 1 workload 2 period 3 overhead 4 overhead_lo
# 5 overhead_hi 6 fixed_tvd 7 poisson_tvd 8 fixed_err 9 poisson_err.

f = datadir . "/accuracy.dat"
fo = datadir . "/accuracy_overhead.dat"
npan = words(panels)
pos(v) = (v > 0) ? v : NaN

pcols = (npan <= 1) ? 1 : ceil(sqrt(npan))
prows = ceil(1.0 * npan / pcols)
cw = pcols * panel_w; ch = prows * panel_h + 100
eval set_canvas(cw, ch)
set output outfile
xshift2 = 2**0.2
unset key

if (which eq 'overhead') {
    fig_title = "Accuracy vs overhead: site TVD against the reference sweep's overhead at the same period"
    unset logscale x
    set logscale y 10
    set format y "%g"
} else {
    set logscale x 2
    set logscale y 10
    set xrange [xmin / 1.6 : xmax * 1.6]
    eval period_tics(xmin, xmax)
    set format y "%g"
    fig_title = (which eq 'tvd') ? "Sampled vs exact allocation sites: total variation distance vs period" : \
        "Sampled vs exact allocation sites: largest relative error of the top 10 (>= 1% each) vs period"
}
eval "set multiplot layout prows, pcols " . multiplot_margins(cw, ch, 0) . \
    " title sprintf('%s (%s)', fig_title, study) font ',14'"
do for [i = 1:npan] {
    w = word(panels, i)
    wk = windex(w)
    set title esc(w) font ",12" offset 0, -0.6
    if (which eq 'overhead') {
        xl = real(word(yranges, 2 * i - 1)); xh = real(word(yranges, 2 * i))
        xd = (xh - xl > 0.02) ? xh - xl : 0.02
        set xrange [xl - 0.08 * xd : xh + 0.08 * xd]
        set xtics autofreq
        set yrange [0.00001 : 1.5]
        set xlabel ((i > npan - pcols) ? "overhead (× baseline, reference sweep)" : "")
        set ylabel ((i - 1) % pcols == 0 ? "TVD of sites (median)" : "")
        set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead ls 100 back
        plot fo using (strcol(1) eq w ? column(3) : NaN):(pos(column(6))):(column(4)):(column(5)) with xerrorbars ls 101 pt 7 ps 0.5 notitle, \
             fo using (strcol(1) eq w ? column(3) : NaN):(pos(column(7))) with points lc rgb "#A03000" lw 1.5 pt 6 ps 0.6 notitle, \
             fo using (strcol(1) eq w ? column(3) : NaN):(pos(column(6))):(fmtbytes(int(column(2)))) with labels offset 0.9, 0.45 font ",8" tc rgb "#404040" notitle
        unset arrow 1
    } else {
        cm = (which eq 'tvd') ? 6 : 10; clo = cm + 1; chi = cm + 2; cth = (which eq 'tvd') ? 9 : 17
        if (which eq 'tvd') { set yrange [0.00001 : 1.5] } else { set yrange [0.0001 : 20] }
        set xlabel ((i > npan - pcols) ? "allocation sampling period (bytes, log_2 scale)" : "")
        set ylabel ((i - 1) % pcols == 0 ? ((which eq 'tvd') ? "TVD of sites" : "top-10 max |relative error|") : "")
        plot for [j = 1:(which eq 'top10')] 0.05 with lines ls 100 notitle, \
             f using (strcol(1) eq w && strcol(2) eq "poisson" && strcol(4) eq "site" ? column(3) : NaN):(pos(column(cth))) \
                 with lines lc rgb wcolor(wk) lw 2 notitle, \
             f using (strcol(1) eq w && strcol(2) eq "fixed" && strcol(4) eq "site" ? column(3) : NaN):(pos(column(cm))):(pos(column(clo))):(pos(column(chi))) \
                 with yerrorbars ls 101 pt 7 ps 0.5 notitle, \
             f using (strcol(1) eq w && strcol(2) eq "fixed" && strcol(4) eq "site" ? column(3) : NaN):(pos(column(cm))) with lines ls 101 notitle, \
             f using (strcol(1) eq w && strcol(2) eq "poisson" && strcol(4) eq "site" ? column(3) * xshift2 : NaN):(pos(column(cm))):(pos(column(clo))):(pos(column(chi))) \
                 with yerrorbars lc rgb "#A03000" lw 1.5 pt 6 ps 0.6 notitle, \
             f using (strcol(1) eq w && strcol(2) eq "poisson" && strcol(4) eq "site" ? column(3) * xshift2 : NaN):(pos(column(cm))) \
                 with lines lc rgb "#A03000" dt 2 lw 1.5 notitle
    }
}
nleg = 0
nleg = nleg + 1; leg_kind[nleg] = "bar"; leg_color[nleg] = "#202020"; leg_pt[nleg] = 7
leg_text[nleg] = (which eq 'overhead') ? "fixed: median TVD, overhead CI (label: period)" : "fixed: median and 95% range over 10 offsets"
nleg = nleg + 1; leg_kind[nleg] = (which eq 'overhead') ? "point" : "bar"; leg_color[nleg] = "#A03000"; leg_pt[nleg] = 6
leg_text[nleg] = (which eq 'overhead') ? "poisson: median TVD" : "poisson: median and 95% range over 10 seeds"
if (which ne 'overhead') {
    nleg = nleg + 1; leg_kind[nleg] = "line"; leg_color[nleg] = wcolor(1); leg_pt[nleg] = -1
    leg_text[nleg] = (which eq 'tvd') ? "independent sampling: expected TVD (workload colour)" : "independent sampling: 1.96/sqrt(samples of the smallest top site)"
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
    if (leg_kind[k] eq "line") {
        set arrow from screen sx - 8.0 / cw, screen leg_y to screen sx + 8.0 / cw, screen leg_y nohead lc rgb leg_color[k] lw 2 front
    } else {
        set label "" at screen sx, screen leg_y point pt leg_pt[k] ps 0.9 lc rgb leg_color[k] front
    }
    set label leg_text[k] at screen sx + 14.0 / cw, screen leg_y left font ",10" front
    leg_x = leg_x + (leg_w(k) + 22) / cw
}
eval key_plot_setup
plot NaN notitle
unset multiplot
