# validation-inproc.gp - time samples measured in-process (make validate): injected vs recovered
# per-sample cost of the program's thread CPU time, signal and thread mode, with the identity line.
# gnuplot -e "dat='DIR/inproc.dat'; out='DIR/inproc.png'; term='png'" plots/validation-inproc.gp
# inproc.dat: workload time_mode time_hz injected_us recovered_us recovered_lo_us recovered_hi_us
# within_target.  Points at or below 0 cannot be shown on log axes.
if (term eq 'svg') { set terminal svg size 1000,650 dynamic font 'sans,12' } else { set terminal pngcairo size 1000,650 font 'sans,11' }
set output out
set title "make validate, time samples in-process: injected vs recovered cost per sample (CPU time, 95% intervals)"
set xlabel "injected cost per sample D (us of the program's CPU time)"
set ylabel "recovered: cost at D minus at D = 0 (us)"
set logscale xy
set xrange [0.5:200]
set yrange [0.1:1000]
set key outside right top
set grid
# Small offsets keep the points of one D apart.
off(w, m) = (w eq 'deepstack' ? 0.88 : w eq 'gcbench' ? 1.0 : 1.13) * (m eq 'thread' ? 1.04 : 0.96)
lo(v) = v > 0 ? v : 0.1
plot x title "identity" with lines lw 2 lc rgb "#888888", \
     x * 1.1 notitle with lines dt 2 lc rgb "#bbbbbb", x * 0.9 title "+-10%" with lines dt 2 lc rgb "#bbbbbb", \
     for [m in "signal thread"] for [w in "deepstack gcbench interp"] \
         dat using ((strcol(1) eq w && strcol(2) eq m) ? $4 * off(w, m) : NaN):(($5 > 0) ? $5 : NaN):(lo($6)):7 \
         with yerrorbars pt (m eq 'signal' ? 5 : 7) ps 0.9 \
         lc (w eq 'deepstack' ? 1 : w eq 'gcbench' ? 2 : 3) title sprintf("%s, %s mode", w, m)
