# cost-depth.gp - figure 5: per-sample cost in microseconds against the depth of the sampled stack, allocation and time samples.
#
# depth.dat holds one sub-series per (workload, kind, alloc_period, time_hz)
# sorted by depth; figures.sh passes them as "series", words of the form
# workload:kind:alloc_period:time_hz.  Allocation series are drawn in blues,
# time series in oranges and combined cells in greens, a different shade and
# marker per setting, so the two families read apart at a glance even when
# several periods or rates were swept.  A depth range wider than 8x is drawn
# on a log2 axis.

f = datadir . "/depth.dat"
cd_ = c_depth_depth; ck = c_depth_kind; cp = c_depth_alloc_period; ch_ = c_depth_time_hz
cy = c_depth_cost_us; clo = c_depth_cost_lo; chi = c_depth_cost_hi
ns = words(series)
# field(s, n): the n-th ':'-separated field of a series word
field(s, n) = (n == 1) ? s[1:strstrt(s, ":") - 1] : field(s[strstrt(s, ":") + 1:], n - 1)
sw(i) = field(word(series, i), 1)
sk(i) = field(word(series, i), 2)
sp(i) = real(field(word(series, i), 3))
sh(i) = real(field(word(series, i), 4))
is_series(i) = strcol(1) eq sw(i) && strcol(ck) eq sk(i) && column(cp) == sp(i) && column(ch_) == sh(i)
# How many series of the same kind come before series i: its shade.
rank_of(i) = rank_from(i, 1, 0)
rank_from(i, j, n) = (j >= i) ? n : rank_from(i, j + 1, n + (sk(j) eq sk(i) ? 1 : 0))
blues = "#08306B #2171B5 #6BAED6 #08519C #4292C6 #9ECAE1"
oranges = "#7F2704 #D94801 #FD8D3C #A63603 #F16913 #FDAE6B"
greens = "#00441B #238B45 #74C476 #006D2C #41AB5D #A1D99B"
scolor(i) = word(sk(i) eq "alloc" ? blues : (sk(i) eq "time" ? oranges : greens), rank_of(i) % 6 + 1)
spoint(i) = (sk(i) eq "alloc" ? 7 : (sk(i) eq "time" ? 9 : 5)) + 0 * rank_of(i)
stitle(i) = (sk(i) eq "alloc" ? sprintf("allocation samples, period %s", fmtbytes(int(sp(i)))) : \
             sk(i) eq "time" ? sprintf("time samples, %g Hz", sh(i)) : \
             sprintf("allocation + time, %s and %g Hz", fmtbytes(int(sp(i))), sh(i))) . \
            (words(series) > 0 && sw(i) ne "deepstack" ? " (" . esc(sw(i)) . ")" : "")

# Ranges from figures.sh: depthrange and costrange ("min max").
dmin = rng(depthrange, 1, 1); dmax = rng(depthrange, 2, dmin + 1)
dmax = (dmax > dmin) ? dmax : dmin + 1
ymin = rng(costrange, 1, 0); ymax = rng(costrange, 2, 1)
ymin = (ymin > 0) ? 0 : ymin
ymax = (ymax > ymin) ? ymax : ymin + 1

cw = 1000; ch = 680
eval set_canvas(cw, ch)
set output outfile
set title sprintf("Per-sample cost vs stack depth (sweep %s)", sweep) font title_font(sprintf("Per-sample cost vs stack depth (sweep %s)", sweep), cw, 13)
if (dmax / dmin > 8) {
    set logscale x 2
    set xrange [dmin / 1.4 : dmax * 1.4]
    set xlabel "stack depth (frames on the shadow stack at each sample, log_2 scale)"
} else {
    set xrange [dmin - 0.05 * (dmax - dmin) : dmax + 0.05 * (dmax - dmin)]
    set xlabel "stack depth (frames on the shadow stack at each sample)"
}
set yrange [ymin : ymax + 0.3 * (ymax - ymin)]
set ylabel "extra wall time per sample (µs)"
set key top left samplen 2.5 spacing 1.15 font ",10"
plot for [i = 1:ns] f using (is_series(i) ? column(cd_) : NaN):(column(cy)):(column(clo)):(column(chi)) \
         with yerrorlines lw 1.6 pt spoint(i) ps 0.9 lc rgb scolor(i) title stitle(i)
