# inprocess.gp - figure 7: the in-process design's steady-state marginal overhead, one row per cell.
#
# inprocess.dat has one row per cell of a sweep in the in-process design,
# grouped by workload: the ratio of CPU time per unit of work with sampling
# on over off inside one process (median of per-block log-ratios over ABBA
# blocks) with its one-sample interval over blocks.  Each cell is one row of
# a forest plot: x the overhead in percent, (ratio - 1) x 100, with its
# interval; the +-margin band (column margin) shaded.  Colours follow the
# verdict (column verdict): slower red, faster blue, no effect above the
# margin grey, not resolved orange; baseline rows (kind baseline) are the
# A/A floor, drawn as open black circles.  A cell without an interval is
# marked "no interval" at 0.
# figures.sh passes nrow (rows), xrange_ (the smallest and largest value in
# percent over estimates and interval ends) and margin_pct.

f = datadir . "/inprocess.dat"
ci_ = c_inprocess_index; cl = c_inprocess_label; ck = c_inprocess_kind; cv = c_inprocess_verdict
xlo = rng(xrange_, 1, -1); xhi = rng(xrange_, 2, 1)
xlo = (xlo > -margin_pct) ? -margin_pct : xlo
xhi = (xhi < margin_pct) ? margin_pct : xhi
xpad = 0.06 * (xhi - xlo)
pct(c) = (column(c) - 1) * 100
vcolor(v) = (v eq "slower") ? 0xD55E00 : (v eq "faster") ? 0x0072B2 : (v eq "not_resolved") ? 0xE69F00 : 0x777777
base(k) = (k eq "baseline")

cw = 1100; ch = 190 + 22 * (nrow < 4 ? 4 : nrow)
eval set_canvas(cw, ch)
set output outfile
set label 1 sprintf("In-process alternation: steady-state marginal overhead of sampling (sweep %s)", sweep) \
    at screen 0.5, screen 1 - 22.0 / ch center font ",13"
set tmargin at screen 1 - 45.0 / ch
set bmargin at screen 105.0 / ch
set lmargin at screen 300.0 / cw
set rmargin at screen 1 - 30.0 / cw
set xrange [xlo - xpad : xhi + xpad]
set yrange [nrow - 0.5 : -0.5]
set ytics scale 0 font ",9"
set grid xtics noytics
set xlabel sprintf("CPU per unit of work, sampling on over off, minus 1 (%%); median over blocks with %s CI", cilabel)
set object 1 rectangle from -margin_pct, graph 0 to margin_pct, graph 1 behind fillcolor rgb "#EBEBEB" fillstyle solid 1.0 noborder
set arrow 1 from 0, graph 0 to 0, graph 1 nohead lc rgb "#888888" dt 2
set key at screen 0.5, screen 24.0 / ch center center horizontal reverse Left maxrows 2 samplen 1 font ",10"
plot f using (0):(column(ci_)):ytic(esc(strcol(cl))) with points pt 7 ps 0.1 lc rgb "#FFFFFFFF" notitle, \
     f using (base(strcol(ck)) ? NaN : pct(c_inprocess_ratio)):(column(ci_)):(pct(c_inprocess_lo)):(pct(c_inprocess_hi)):(vcolor(strcol(cv))) \
        with xerrorbars pt 7 ps 0.8 lc rgb variable notitle, \
     f using (base(strcol(ck)) ? pct(c_inprocess_ratio) : NaN):(column(ci_)):(pct(c_inprocess_lo)):(pct(c_inprocess_hi)) \
        with xerrorbars pt 6 ps 0.9 lc rgb "#202020" title "A/A (baseline: nothing switched)", \
     f using (valid(c_inprocess_lo) ? NaN : 0):(column(ci_)):("no interval") with labels left offset 0.8, 0 font ",8" tc rgb "#606060" notitle, \
     NaN with points pt 7 lc rgb "#D55E00" title "slower", \
     NaN with points pt 7 lc rgb "#0072B2" title "faster", \
     NaN with points pt 7 lc rgb "#777777" title sprintf("no effect above %g%%", margin_pct), \
     NaN with points pt 7 lc rgb "#E69F00" title "not resolved"
