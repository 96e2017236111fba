# normalized.gp - figure 3: allocation against time sampling, the cost of 1000 samples/s from the regressions.
#
# figures.sh (fig3_data) reads regress.csv's wall-time rows and writes fig3
# (a file of its temporary directory): one row per workload with a fit (one
# per time sampler's mode, labelled <workload>/<mode>, where the workload has a
# time fit per mode: regress.csv time_mode), at its slot in the fixed order
# (column slot), every value in % per 1000 samples/s, (normalized overhead -
# 1) x 100:
#   a, t      allocation and time: the values the verdict uses (the fits on
#             the pairs when both have them: paired = 1; else on the runs)
#   au, tu    with paired = 1, the fits on the runs beside them (else NaN)
#   d         the difference alloc - time, with the interval of the
#             difference of the fits' bootstrap replicates
#   verdict   regress.csv's (summary.md's) verdict from d's interval
# Each value X comes as X X_lo X_hi X_up X_dn X_lab, already cut to the
# panel's range (yr1: upper, yr2: lower): X_up / X_dn = 1 where the interval
# or the estimate goes past the frame, which then gets an arrow and X_lab
# (the true "est [lo, hi]").  So a single unbounded interval neither sets
# the range nor hides the others' 1% differences.
# Linear axes in %: negative values and 0 are drawn like any other.

f = fig3
xmin = -0.6; xmax = (nrow < 1 ? 1 : nrow) - 0.4
lo1 = rng(yr1, 1, -1); hi1 = rng(yr1, 2, 1)
lo2 = rng(yr2, 1, -1); hi2 = rng(yr2, 2, 1)
# round tick steps giving 4-10 labelled ticks
tstep(lo, hi) = (hi - lo) / 10 <= 10**floor(log10((hi - lo) / 10)) ? 10**floor(log10((hi - lo) / 10)) : \
    (hi - lo) / 10 <= 2 * 10**floor(log10((hi - lo) / 10)) ? 2 * 10**floor(log10((hi - lo) / 10)) : \
    (hi - lo) / 10 <= 5 * 10**floor(log10((hi - lo) / 10)) ? 5 * 10**floor(log10((hi - lo) / 10)) : 10 * 10**floor(log10((hi - lo) / 10))

cw = (nrow < 6 ? 6 : nrow) * 150 + 150; ch = 760
eval set_canvas(cw, ch)
set output outfile
set multiplot
set label 1 sprintf("Allocation vs time sampling: the cost of 1000 samples/s, from the regressions (sweep %s)", sweep) \
    at screen 0.5, screen 1 - 20.0 / ch center font ",13"
set lmargin at screen 110.0 / cw
set rmargin at screen 1 - 20.0 / cw
set xrange [xmin : xmax]
set xtics scale 0 font ",11"
set grid noxtics ytics
dx = 0.14
du = 0.32
vtext(s) = s eq "alloc_cheaper" ? "allocation cheaper" : s eq "time_cheaper" ? "time cheaper" : \
    s eq "equivalent" ? sprintf("equivalent within %g%%", margin_pct) : s eq "not_resolved" ? "not resolved" : "no verdict (n/a)"
vcolor(s) = s eq "alloc_cheaper" ? 0x0072B2 : s eq "time_cheaper" ? 0xD55E00 : s eq "equivalent" ? 0x009E73 : 0x606060
col(n) = column(n)
# columns of the fig3 file (fixed by fig3_data)
cA = 5; cT = 11; cAU = 17; cTU = 23; cD = 29
# an arrow from just inside the frame to it, for a cut interval: up (edge hi) or down (edge lo)
arrows(c, x0, lo, hi) = 0

# Upper panel: the two samplers' values.
set tmargin at screen 1 - 82.0 / ch
set bmargin at screen 0.44
set yrange [lo1 : hi1]
set ytics tstep(lo1, hi1) format "%g"
set ylabel "% overhead per 1000 samples/s\n(normalized overhead − 1) × 100"
set key at screen 0.5, screen 1 - 50.0 / ch center center horizontal maxrows (npaired > 0 ? 2 : 1) samplen 1.5 font ",10"
a1 = 0.05 * (hi1 - lo1)
plot 0 with lines ls 100 notitle, \
     f using 1:(lo1 - 1):xtic(esc(strcol(2))) with points pt 7 ps 0 notitle, \
     for [j = 1:has_a] f using (col(1) - dx):(col(cA)):(col(cA + 1)):(col(cA + 2)) with yerrorbars lc rgb "#0072B2" lw 1.6 pt 7 ps 1.0 \
        title sprintf(npaired > 0 ? "allocation sampling, fit on the pairs, %s CI" : "allocation sampling, %s CI", cilabel), \
     for [j = 1:has_t] f using (col(1) + dx):(col(cT)):(col(cT + 1)):(col(cT + 2)) with yerrorbars lc rgb "#D55E00" lw 1.6 pt 9 ps 1.1 \
        title sprintf(npaired > 0 ? "time sampling, fit on the pairs, %s CI" : "time sampling, %s CI", cilabel), \
     for [j = 1:(npaired > 0)] f using (col(1) - du):(col(cAU)):(col(cAU + 1)):(col(cAU + 2)) with yerrorbars lc rgb "#7FB8D8" lw 1 pt 6 ps 0.9 \
        title sprintf("allocation, fit on the runs (unpaired), %s CI", cilabel), \
     for [j = 1:(npaired > 0)] f using (col(1) + du):(col(cTU)):(col(cTU + 1)):(col(cTU + 2)) with yerrorbars lc rgb "#EAAE80" lw 1 pt 8 ps 1.0 \
        title sprintf("time, fit on the runs (unpaired), %s CI", cilabel), \
     for [s = 0:(cut1 ? 3 : -1)] f using (col(1) + (s == 0 ? -dx : s == 1 ? dx : s == 2 ? -du : du)):(col(cA + 6 * s + 3) > 0 ? hi1 - a1 : NaN):(0):(a1) \
        with vectors head filled size screen 0.008, 25 lc rgb (s % 2 ? "#D55E00" : "#0072B2") lw 1.6 notitle, \
     for [s = 0:(cut1 ? 3 : -1)] f using (col(1) + (s == 0 ? -dx : s == 1 ? dx : s == 2 ? -du : du)):(col(cA + 6 * s + 4) > 0 ? lo1 + a1 : NaN):(0):(-a1) \
        with vectors head filled size screen 0.008, 25 lc rgb (s % 2 ? "#D55E00" : "#0072B2") lw 1.6 notitle, \
     for [s = 0:(cut1 ? 2 : -1):2] f using (col(1) + (s == 0 ? -dx : -du)):(col(cA + 6 * s + 3) > 0 ? hi1 - (s < 2 ? 2.2 : 3.6) * a1 : (col(cA + 6 * s + 4) > 0 ? lo1 + (s < 2 ? 2.2 : 3.6) * a1 : NaN)):(strcol(cA + 6 * s + 5)) \
        with labels right offset -0.6, 0 font ",9" tc rgb "#0072B2" notitle, \
     for [s = 1:3 * cut1:2] f using (col(1) + (s == 1 ? dx : du)):(col(cA + 6 * s + 3) > 0 ? hi1 - (s < 2 ? 2.2 : 3.6) * a1 : (col(cA + 6 * s + 4) > 0 ? lo1 + (s < 2 ? 2.2 : 3.6) * a1 : NaN)):(strcol(cA + 6 * s + 5)) \
        with labels left offset 0.6, 0 font ",9" tc rgb "#D55E00" notitle, \
     for [j = 1:na_a] f using (col(1) - dx):(valid(cA) ? NaN : 0):("n/a") with labels center offset 0, 0.8 font ",9" tc rgb "#0072B2" notitle, \
     for [j = 1:na_t] f using (col(1) + dx):(valid(cT) ? NaN : 0):("n/a") with labels center offset 0, 0.8 font ",9" tc rgb "#D55E00" notitle
unset label 1
unset key

# Lower panel: the difference the verdict reads, with the margin band.
set tmargin at screen 0.36
set bmargin at screen 70.0 / ch
a2 = 0.05 * (hi2 - lo2)
# room above the cut level hi2 for the verdicts
set yrange [lo2 : hi2 + 3 * a2]
set ytics tstep(lo2, hi2) format "%g"
set ylabel "allocation − time\n(% per 1000 samples/s)"
set xlabel sprintf("workload; over each: the verdict from the difference's %s interval (the band: ±%g%%)", cilabel, margin_pct)
set object 1 rect from graph 0, first -margin_pct to graph 1, first margin_pct fc rgb "#E8F4EC" fs solid 1.0 noborder back
set label 2 sprintf("allocation cheaper ↓    time cheaper ↑") at graph 0.005, graph 0.04 left font ",9" tc rgb "#606060"
plot 0 with lines ls 100 notitle, \
     f using 1:(lo2 - 1):xtic(esc(strcol(2))) with points pt 7 ps 0 notitle, \
     for [j = 1:has_d] f using 1:(col(cD)):(col(cD + 1)):(col(cD + 2)) with yerrorbars lc rgb "#303030" lw 1.6 pt 7 ps 0.9 notitle, \
     for [j = 1:cut2] f using 1:(col(cD + 3) > 0 ? hi2 - a2 : NaN):(0):(a2) with vectors head filled size screen 0.008, 25 lc rgb "#303030" lw 1.6 notitle, \
     for [j = 1:cut2] f using 1:(col(cD + 4) > 0 ? lo2 + a2 : NaN):(0):(-a2) with vectors head filled size screen 0.008, 25 lc rgb "#303030" lw 1.6 notitle, \
     for [j = 1:cut2] f using 1:(col(cD + 3) > 0 ? hi2 - 2.2 * a2 : (col(cD + 4) > 0 ? lo2 + 2.2 * a2 : NaN)):(strcol(cD + 5)) with labels left offset 0.6, 0 font ",9" tc rgb "#303030" notitle, \
     f using 1:(hi2 + 1.8 * a2):(vtext(strcol(4))):(vcolor(strcol(4))) with labels center font ",10" tc rgb variable notitle, \
     for [j = 1:na_d] f using 1:(valid(cD) ? NaN : 0):("n/a") with labels center offset 0, 0.8 font ",9" tc rgb "#303030" notitle
unset multiplot
