# exactness.gp - figure 4: allocation samples taken against bytes allocated / period, log-log with the identity line, plus the exact residual.
#
# One point per measured run of every allocation cell, coloured by workload.
# On log-log axes an off-by-one is invisible, so a lower panel shows the
# fixed-mode residual sample_points - floor(sampled_bytes / period), which
# the sampling rule makes exactly 0; mismatching runs (match = 0) get a red
# cross in both panels.  Runs of modes without exact counts (match NaN:
# poisson, any mode but fixed; open circles) appear only in the upper panel:
# they scatter around the line by design.
# figures.sh passes panels (the workloads present), n_bad (mismatching runs),
# n_exact and n_other (runs checked by the rule and not), other_modes (the
# names of the modes not checked, from the data), and the axis ranges.

f = datadir . "/exactness.dat"
cm = c_exactness_alloc_mode; ce = c_exactness_expected; cs = c_exactness_sample_points; cmatch = c_exactness_match
npan = words(panels)
# floor(bytes / period) by integer division of the integer columns: the
# printed decimal "expected" is rounded and could cross an integer.
cb = c_exactness_sampled_bytes; cp = c_exactness_alloc_period
# Runs checked by the exact rule have match 0 or 1 (fixed mode); the others NaN.
checked(x) = valid(cmatch)
# Each workload's points sit a little to the side (a 25th of a decade per
# workload, centred), so a workload whose runs allocate exactly what
# another's do does not hide under it.
xoff(i) = 10**(0.04 * (i - (npan + 1) / 2.0))
pidx(w) = pidx_k(w, 1)
pidx_k(w, k) = (k > npan) ? 0 : (word(panels, k) eq w ? k : pidx_k(w, k + 1))
resid(m, e, s) = (checked(0) && e >= 1 && s >= 1) ? int(s) - int(column(cb)) / int(column(cp)) : NaN

# Ranges from figures.sh: logrange over expected and sample_points, resrange
# over the fixed-mode residuals (at least -1 .. 1).
lo = rng(logrange, 1, 1); hi = rng(logrange, 2, 10)
lo = (lo < 1) ? 1 : lo; hi = (hi < lo * 10) ? lo * 10 : hi
rlo = rng(resrange, 1, -1); rhi = rng(resrange, 2, 1)

cw = 1100; ch = 820
eval set_canvas(cw, ch)
set output outfile
set multiplot
set label 1 sprintf("Allocation samples taken vs bytes allocated / period (sweep %s)", sweep) \
    at screen 0.5, screen 1 - 22.0 / ch center font ",13"
set lmargin at screen 100.0 / cw
set rmargin at screen 1 - 190.0 / cw

# Upper panel: the log-log picture with the identity line.
set tmargin at screen 1 - 50.0 / ch
set bmargin at screen 0.36
set logscale xy 10
set xrange [lo / 1.5 : hi * 1.5]
set yrange [lo / 1.5 : hi * 1.5]
lt_lo = lo / 1.5; lt_hi = hi * 1.5
eval log_tics_on("y")
set format x ""
set ylabel "sample points counted (alloc\\_sample\\_points)"
set key outside right top samplen 1 spacing 1.15 font ",10"
set size ratio 0
plot x with lines ls 100 title "identity y = x", \
     for [i = 1:npan] f using (strcol(1) eq word(panels, i) && checked(0) ? column(ce) * xoff(i) : NaN):(column(cs)) \
         with points pt wpoint(windex(word(panels, i))) ps 0.7 lc rgb wcolor(windex(word(panels, i))) title esc(word(panels, i)), \
     for [i = 1:npan * (n_other > 0)] f using (strcol(1) eq word(panels, i) && !checked(0) ? column(ce) * xoff(i) : NaN):(column(cs)) \
         with points pt 6 ps 0.8 lc rgb wcolor(windex(word(panels, i))) title (i == 1 ? other_modes . " mode (open)" : ""), \
     for [j = 1:(n_bad > 0)] f using (column(cmatch) == 0 ? column(ce) * xoff(pidx(strcol(1))) : NaN):(column(cs)) \
         with points pt 2 ps 2.2 lw 2.5 lc rgb "#E00000" title sprintf("mismatching runs: %d", n_bad)
unset label 1

# Lower panel: the residual the rule fixes at exactly 0.
set tmargin at screen 0.34
set bmargin at screen 70.0 / ch
set logscale x 10
unset logscale y
set yrange [rlo - 0.5 : rhi + 0.5]
set ytics 1
eval log_tics_on("x")
set format y "%g"
set xlabel "bytes allocated while sampling / period (sampled\\_bytes / alloc\\_period)"
set ylabel "points − floor(bytes / period)\n(runs with exact counts; must be 0)"
unset key
plot 0 with lines ls 100, \
     for [i = 1:npan] f using (strcol(1) eq word(panels, i) ? column(ce) * xoff(i) : NaN):(resid(strcol(cm), column(ce), column(cs))) \
         with points pt wpoint(windex(word(panels, i))) ps 0.7 lc rgb wcolor(windex(word(panels, i))), \
     for [j = 1:(n_bad > 0)] f using (column(cmatch) == 0 ? column(ce) * xoff(pidx(strcol(1))) : NaN):(resid(strcol(cm), column(ce), column(cs))) \
         with points pt 2 ps 2.2 lw 2.5 lc rgb "#E00000"
unset multiplot
