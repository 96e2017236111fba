# validation.gp - injected vs recovered per-sample cost (make validate), with the identity line.
# gnuplot -e "dat='DIR/validation.dat'; out='DIR/validation.png'; term='png'" plots/validation.gp
# validation.dat: workload kind spin_clock metric injected_us recovered_us recovered_lo_us
# recovered_hi_us within_target.  Each point is measured on its spin's own clock: wall time for
# the wall-clock spin, CPU time for the cpu one.  Points at or below 0 cannot be shown on log axes.
if (term eq 'svg') { set terminal svg size 1000,650 dynamic font 'sans,12' } else { set terminal pngcairo size 1000,650 font 'sans,11' }
set output out
set title "make validate: injected vs recovered per-sample cost (95% intervals)"
set xlabel "injected cost per sample D (us)"
set ylabel "recovered: fitted cost at D minus at D = 0 (us)"
set logscale xy
set xrange [0.5:200]
set yrange [0.1:1000]
set key outside right top
set grid
# Small offsets keep the points of one D apart.
off(w, k, c) = (w eq 'deepstack' ? 0.86 : w eq 'gcbench' ? 1.0 : 1.16) * (k eq 'time' ? 1.03 : 0.97) * (c eq 'cpu' ? 1.06 : 0.94)
lo(v) = v > 0 ? v : 0.1
plot x title "identity" with lines lw 2 lc rgb "#888888", \
     x * 1.1 notitle with lines dt 2 lc rgb "#bbbbbb", x * 0.9 title "+-10%" with lines dt 2 lc rgb "#bbbbbb", \
     for [c in "wall cpu"] for [w in "deepstack gcbench interp"] for [k in "alloc time"] \
         dat using ((strcol(1) eq w && strcol(2) eq k && strcol(3) eq c && strcol(4) eq c) ? $5 * off(w, k, c) : NaN):(($6 > 0) ? $6 : NaN):(lo($7)):8 \
         with yerrorbars pt (c eq 'wall' ? (k eq 'alloc' ? 7 : 5) : (k eq 'alloc' ? 6 : 4)) ps 0.9 \
         lc (w eq 'deepstack' ? 1 : w eq 'gcbench' ? 2 : 3) title sprintf("%s %s, %s spin", w, k, c)
