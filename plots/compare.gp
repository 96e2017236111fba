# compare.gp - the forest plot of build/bin/compare: one row per cell, B's change against A in
# percent with its interval, the +-threshold band shaded.  Colours (Okabe-Ito, docs/FIGURES.md):
# vermillion #D55E00 slower, blue #0072B2 faster, grey #777777 same, orange #E69F00 inconclusive.  gate: 'ratio' (default; the change of the median wall time)
# or 'overhead' (the change in overhead, in percent of the baseline's time), as compare.dat's
# first line says; timev: 'wall' (default) or 'cpu', the run time compared (compare --time).
# gnuplot -e "dat='DIR/compare.dat'; out='DIR/compare.png'; term='png'; thr=2; nrows=10; gate='ratio'; timev='wall'" plots/compare.gp
# compare.dat: row label change_pct lo_pct hi_pct verdict (docs/STATISTICS.md, "Comparing two sweeps").
if (!exists("gate")) gate = 'ratio'
if (!exists("timev")) timev = 'wall'
tname = (timev eq 'cpu') ? 'CPU time' : 'wall time'
h = 150 + 22 * nrows     # room for the key under the plot
if (term eq 'svg') { set terminal svg size 900,h dynamic font 'sans,12' background rgb 'white' } else { set terminal pngcairo size 900,h font 'sans,11' background rgb 'white' }
set output out
if (gate eq 'overhead') {
    set title sprintf("compare: B against A, change in overhead (95%% intervals; band +-%g%% of the baseline)", thr)
    set xlabel sprintf("change in overhead, B - A (%% of the baseline's %s)", tname)
} else {
    set title sprintf("compare: B against A, change of the median %s (95%% intervals; band +-%g%%)", tname, thr)
    set xlabel "change, B/A - 1 (%)"
}
set yrange [nrows - 0.5:-0.5]
set ytics scale 0 font ',9'
set grid xtics
# The key: what each colour means (the verdicts of compare.dat's last column),
# in a row under the plot, clear of the rows.
set key below center horizontal maxcols 2 Left reverse samplen 1 spacing 1.1 font ',10'
set bmargin 7
set object 1 rectangle from -thr, graph 0 to thr, graph 1 behind fillcolor rgb "#e6e6e6" fillstyle solid 1.0 noborder
set arrow 1 from 0, graph 0 to 0, graph 1 nohead lc rgb "#888888" dt 2
col(v) = v eq 'slower' ? 0xD55E00 : v eq 'faster' ? 0x0072B2 : v eq 'same' ? 0x777777 : 0xE69F00
plot dat using 3:1:4:5:(col(strcol(6))):ytic(2) with xerrorbars pt 7 ps 0.8 lc rgb variable notitle, \
     NaN with points pt 7 ps 0.8 lc rgb "#D55E00" title "slower: interval above the band", \
     NaN with points pt 7 ps 0.8 lc rgb "#0072B2" title "faster: below the band", \
     NaN with points pt 7 ps 0.8 lc rgb "#777777" title "same: within the band", \
     NaN with points pt 7 ps 0.8 lc rgb "#E69F00" title "inconclusive or other (compare.md says why)"
