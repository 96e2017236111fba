# normalized.gp - figure 3: normalized overhead per 1000 samples/s, allocation vs time sampling, one pair of points per workload.
#
# normalized.dat has one row per workload and time sampler's mode (the
# workload's slot, "gcbench", for signal; "gcbench/thread" for the sampler
# thread): the allocation cell (fixed mode) and the mode's time cell whose
# sample rate is nearest 1000/s, each with its
# normalized overhead and interval, unpaired (from the medians) and, in a
# blocked sweep, paired (Hodges-Lehmann over blocks), and the verdict of the
# comparison (column resolved), written over each workload's slot.  The two samplers of a workload sit side
# by side around its slot, each labelled with its setting, because which
# period or rate was nearest 1000 samples/s differs between workloads.
# The y range follows the medians: an interval far wider than the spread of
# the medians (a workload that takes almost no samples, whose extrapolation
# to 1000/s is meaningless) is cut at the frame rather than squashing the
# others to a line.  A value analyze could not compute (NaN: no samples, no
# baseline) is marked "n/a" on the line at 1; summary.csv's note says why.
# figures.sh says whether there is any (na_alloc, na_time: 0 or 1) and
# whether any value exists (has_alloc, has_time): gnuplot 5.4 can crash on
# a plot whose every point is undefined, so such plots are left out.  The
# workload names come from an invisible series that always has points.

f = datadir . "/normalized.dat"
cw_ = c_normalized_workload
# Ranges from figures.sh: medrange (the medians), intrange (the interval
# ends), xrange_ (the index column: each workload's slot in workloads.dat,
# since row numbers would restart in every block of the file).
mlo = rng(medrange, 1, 1); mhi = rng(medrange, 2, 1)
ilo = rng(intrange, 1, mlo); ihi = rng(intrange, 2, mhi)
xmin = rng(xrange_, 1, 0); xmax = rng(xrange_, 2, xmin); nrow = xmax - xmin + 1
mlo = (mlo > 1) ? 1 : mlo
mhi = (mhi < 1) ? 1 : mhi
spread = (mhi - mlo > 0.02) ? mhi - mlo : 0.02
ylo = (ilo > mlo - spread) ? ilo : mlo - spread
yhi = (ihi < mhi + spread) ? ihi : mhi + spread
ypad = 0.08 * (yhi - ylo)

cw = (nrow < 6 ? 6 : nrow) * 150 + 140; ch = 560      # wide enough for the title with few workloads
eval set_canvas(cw, ch)
set output outfile
# Title, key and plot stacked top-down at fixed pixel heights.
set label 1 sprintf("Normalized overhead per 1000 samples/s, allocation vs time sampling (sweep %s)", sweep) \
    at screen 0.5, screen 1 - 22.0 / ch center font ",13"
set xrange [xmin - 0.6 : xmax + 0.6]
set yrange [ylo - ypad : yhi + 2.5 * ypad]
set xtics scale 0 font ",11"
set grid noxtics ytics
set ylabel "normalized overhead\n1 + (overhead − 1) × 1000 / (samples/s)"
set xlabel "workload (each point labelled with its period or rate: the cell nearest 1000 samples/s)"
set tmargin at screen 1 - (has_paired ? 94.0 : 80.0) / ch
set key at screen 0.5, screen 1 - 48.0 / ch center center horizontal maxrows (has_paired ? 2 : 1) maxcols 2 samplen 1.5 font ",10"
set lmargin at screen 110.0 / cw
set rmargin at screen 1 - 20.0 / cw
dx = 0.17
# With paired values (a blocked sweep: has_paired), they are the main points
# at -dx (allocation) and +dx (time), and the unpaired ones stand beside them,
# open and lighter, further out; without, the unpaired are the main points.
du = has_paired ? 2.2 * dx : dx
# The verdict of each workload (column resolved), over its slot.
vtext(s) = s eq "alloc_cheaper" ? "allocation cheaper" : s eq "time_cheaper" ? "time cheaper" : \
    s eq "equivalent" ? "equivalent" : s eq "not_resolved" ? "not resolved" : ""
ytop = yhi + 1.6 * ypad
# The time cell's sampler, when it is not signal (a sweep of both time
# sampler's modes has a slot per mode, "gcbench/thread"): under its rate.
tmode(m) = (m eq "" || m eq "-" || m eq "signal") ? "" : "\n" . m
plot 1 with lines ls 100 notitle, \
     f using (column(c_normalized_index)):(1):xtic(esc(strcol(cw_))) with points pt 7 ps 0.1 lc rgb "#FFFFFFFF" notitle, \
     f using (column(c_normalized_index)):(ytop):(vtext(strcol(c_normalized_resolved))) with labels center font ",9" tc rgb "#404040" notitle, \
     for [j = 1:has_paired] f using (column(c_normalized_index) - dx):(column(c_normalized_alloc_paired)):(column(c_normalized_alloc_paired_lo)):(column(c_normalized_alloc_paired_hi)) \
        with yerrorbars lc rgb "#0072B2" lw 1.6 pt 7 ps 0.9 title sprintf("allocation, paired (HL over blocks), %s CI", cilabel), \
     for [j = 1:has_paired] f using (column(c_normalized_index) + dx):(column(c_normalized_time_paired)):(column(c_normalized_time_paired_lo)):(column(c_normalized_time_paired_hi)) \
        with yerrorbars lc rgb "#D55E00" lw 1.6 pt 9 ps 1.0 title sprintf("time, paired (HL over blocks), %s CI", cilabel), \
     for [j = 1:has_alloc] f using (column(c_normalized_index) - du):(column(c_normalized_alloc_norm)):(column(c_normalized_alloc_norm_lo)):(column(c_normalized_alloc_norm_hi)) \
        with yerrorbars lc rgb (has_paired ? "#7FB8D8" : "#0072B2") lw (has_paired ? 1 : 1.6) pt (has_paired ? 6 : 7) ps 0.9 \
        title sprintf(has_paired ? "allocation, unpaired (medians), %s CI" : "allocation sampling (fixed mode), median and %s CI", cilabel), \
     for [j = 1:has_time] f using (column(c_normalized_index) + du):(column(c_normalized_time_norm)):(column(c_normalized_time_norm_lo)):(column(c_normalized_time_norm_hi)) \
        with yerrorbars lc rgb (has_paired ? "#EAAE80" : "#D55E00") lw (has_paired ? 1 : 1.6) pt (has_paired ? 8 : 9) ps 1.0 \
        title sprintf(has_paired ? "time, unpaired (medians), %s CI" : "time sampling, median and %s CI", cilabel), \
     for [j = 1:has_alloc] f using (column(c_normalized_index) - du):(column(c_normalized_alloc_norm)):(fmtbytes(int(column(c_normalized_alloc_period)))) \
        with labels center offset 0, -1 font ",9" tc rgb "#0072B2" notitle, \
     for [j = 1:has_time] f using (column(c_normalized_index) + du):(column(c_normalized_time_norm)):(sprintf("%d Hz%s", int(column(c_normalized_time_hz)), tmode(strcol(c_normalized_time_mode)))) \
        with labels center offset 0, -1 font ",9" tc rgb "#D55E00" notitle, \
     for [j = 1:na_alloc] f using (column(c_normalized_index) - dx):(valid(c_normalized_alloc_norm) ? NaN : 1):("n/a") \
        with labels center offset 0, 0.8 font ",9" tc rgb "#0072B2" notitle, \
     for [j = 1:na_time] f using (column(c_normalized_index) + dx):(valid(c_normalized_time_norm) ? NaN : 1):("n/a") \
        with labels center offset 0, 0.8 font ",9" tc rgb "#D55E00" notitle
