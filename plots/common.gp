# common.gp - terminal, palette and axis helpers shared by every figure script (loaded first by figures.sh).
#
# figures.sh sets these variables before this file runs:
#   fmt        'png' or 'svg': the same script draws both, so they never disagree
#   outfile    where this format goes (a temporary name; figures.sh renames it)
#   datadir    the sweep's plotdata directory
#   sweep      the sweep's name, for titles
#   workloads  every workload of the sweep, space separated, in one fixed order:
#              a workload keeps its colour and point type in every figure
# Every data file starts with a "# <column names>" line; figures.sh turns it
# into variables c_<file>_<column> = <column number>, so scripts read columns
# by name (column(c_alloc_cells_overhead)) and never depend on their order.
# Column 1 is always the workload; rows are selected by it (strcol(1) eq w).

set encoding utf8

# set_canvas(w, h): a command string; "eval set_canvas(w, h)" picks the terminal.
# PNG through cairo (anti-aliased, alpha) and SVG at the same size and fonts.
set_canvas(w, h) = (fmt eq 'svg') ? \
    sprintf("set terminal svg size %d,%d dynamic enhanced font 'Sans,12' background rgb 'white'", w, h) : \
    sprintf("set terminal pngcairo size %d,%d enhanced font 'Sans,11' background rgb 'white' linewidth 1.2", w, h)

# Nine colours a reader with colour-vision deficiency can still tell apart
# (Okabe-Ito without its yellow, which vanishes on white, plus wine and olive),
# each paired with its own point type (all filled or line-drawn: open circles
# mean "the other mode" in some figures) so print and grey-scale work too.
palette = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #882255 #999933"
ptypes = "7 5 9 11 13 15 1 2 3"
nwl = words(workloads)
wcolor(i) = word(palette, (i - 1) % 9 + 1)
wpoint(i) = int(word(ptypes, (i - 1) % 9 + 1))
# The same colour, mostly transparent: for the cloud of per-run dots.
wfaint(i) = "#A0" . wcolor(i)[2:7]

# Small multiples: one panel per workload, ceil(sqrt(n)) columns.
ncols = (nwl <= 1) ? 1 : ceil(sqrt(nwl))
nrows = ceil(1.0 * nwl / ncols)
panel_w = 460
panel_h = 330

# multiplot_margins(W, H, X): fixed pixel margins around a grid of panels (room
# for the figure title, the axis labels of the outer panels, the panel titles).
# X is extra room under each panel (two-line tick labels).
multiplot_margins(W, H, X) = sprintf("margins %f, %f, %f, %f spacing %f, %f", \
    88.0 / W, 1 - 16.0 / W, (58.0 + X) / H, 1 - 112.0 / H, 72.0 / W, (84.0 + X) / H)
# The key of a small-multiples figure: one row under the figure title, clear
# of every panel (inside a panel it would cover data wherever that lands).
# gnuplot fits a key's columns to the width of one panel, so the row is laid
# out here by hand: the entries go into the leg_* arrays, legend_row(W, H)
# places them (text width estimated from the font size), and a last,
# invisible plot spanning the canvas (key_plot_setup) draws them once.
key_plot_setup = "unset title; unset xlabel; unset ylabel; unset border; unset tics; unset grid; unset key; " . \
    "unset logscale; set xrange [0:1]; set yrange [0:1]; " . \
    "set lmargin at screen 0.02; set rmargin at screen 0.98; set tmargin at screen 0.99; set bmargin at screen 0.9"
array leg_kind[16]     # "point" or "bar" (a median with its interval)
array leg_color[16]
array leg_pt[16]
array leg_text[16]
nleg = 0
leg_w(k) = 34 + 6.6 * strlen(leg_text[k])   # symbol, gap and text, in pixels at font 10
leg_sum(k) = (k > nleg) ? 0 : leg_w(k) + 22 + leg_sum(k + 1)
# The row is centred; when it is wider than the canvas it wraps into further
# rows starting at the same left edge (see overhead.gp).
leg_width(W) = (leg_sum(1) < 0.94 * W) ? leg_sum(1) : 0.94 * W
legend_row(W, H) = sprintf("leg_y = %f; leg_x0 = %f; leg_x = leg_x0", 1 - 44.0 / H, 0.5 - leg_width(W) / 2.0 / W)

# Byte counts as readers write them: 32K, 4M (powers of 1024, as SGC_ALLOC_PERIOD).
fmtbytes(b) = (b >= 2**30 && b % 2**30 == 0) ? sprintf("%dG", b / 2**30) : \
              (b >= 2**20 && b % 2**20 == 0) ? sprintf("%dM", b / 2**20) : \
              (b >= 2**10 && b % 2**10 == 0) ? sprintf("%dK", b / 2**10) : sprintf("%d", b)

# period_tics(lo, hi): tick command for a log2 period axis, a label on every
# other power of two (every one when the range is short) and minor ticks between.
period_tics(lo, hi) = sprintf("set xtics (%s)", period_tic_list(lo, hi))
period_step(lo, hi) = (log(hi / lo) / log(2) > 6) ? 2 : 1
period_tic_list(lo, hi) = period_tic_rec(2**floor(log(lo) / log(2) + 1e-9), hi, period_step(lo, hi), 0)
# Every period of the plan (plan_periods, from figures.sh: the periods in the
# data, space separated) gets a label; the every-other labels of the grid are
# dropped next to (one octave from) a plan period that is off the grid, so
# labels never crowd.
if (!exists("plan_periods")) { plan_periods = "" }
in_plan(b) = in_plan_k(b, 1)
in_plan_k(b, k) = (k > words(plan_periods)) ? 0 : (abs(real(word(plan_periods, k)) - b) < 0.5 ? 1 : in_plan_k(b, k + 1))
near_plan(b) = in_plan(b * 2) || in_plan(b / 2)
period_lab(b, step, k) = in_plan(b) || (k % step == 0 && !near_plan(b))
period_tic_rec(b, hi, step, k) = (b > hi * 1.0001) ? "" : \
    sprintf("%s\"%s\" %.0f %d", (k == 0 ? "" : ", "), (period_lab(b, step, k) ? fmtbytes(int(b)) : ""), b, (period_lab(b, step, k) ? 0 : 1)) . \
    period_tic_rec(b * 2, hi, step, k + 1)

# log_tics: a command string ("eval log_tics") that labels a logarithmic y
# axis from lt_lo to lt_hi (set them first) with at least three round values:
# gnuplot's own ticks give a single label on a range under a decade.
# The mantissas per decade: any window of the ranges used holds three.
lt_mant(lo, hi) = (log10(hi / lo) >= 4) ? "1" : (log10(hi / lo) >= 2.5) ? "1 3" : \
    (log10(hi / lo) >= 1) ? "1 2 5" : "1 1.5 2 3 5 7"
# log_tics_on(ax): the same for axis ax ("x" or "y"); log_tics is the y axis's.
log_tics_on(ax) = "set " . ax . "tics (); lt_m = lt_mant(lt_lo, lt_hi); " . \
    "do for [lt_e = floor(log10(lt_lo)) - 1 : ceil(log10(lt_hi)) + 1] { do for [lt_k = 1 : words(lt_m)] { " . \
    "lt_v = real(word(lt_m, lt_k)) * 10.0**lt_e; " . \
    "if (lt_v >= lt_lo * 0.9999 && lt_v <= lt_hi * 1.0001) { set " . ax . "tics add (sprintf('%g', lt_v) lt_v) } } }"
log_tics = log_tics_on("y")

# title_font(text, width, size): the font size at which a title fits the
# canvas (a title's characters average about 0.7 of the font size in pixels
# in the PNG), at most size: a long sweep name on a narrow figure shrinks the
# title, never clips it.
title_font(t, w, sz) = sprintf(",%d", (0.7 * strlen(t) * sz < 0.96 * w) ? sz : int(0.96 * w / (0.7 * strlen(t))))

# ratio_tics(lo, hi): tick command for a logarithmic ratio axis (overheads).
# gnuplot's own log ticks give only 1 and 10 over a narrow range; this picks
# readable round values at least a seventh of the range apart, always with 1.
ratio_cands = "0.1 0.2 0.3 0.5 0.7 0.8 0.9 0.95 0.98 0.99 0.995 1 1.005 1.01 1.02 1.05 1.1 1.2 1.3 1.5 2 3 5 7 10 20 30 50 100 200 500 1000"
ratio_sep(lo, hi) = log(hi / lo) / 7.0
ratio_list(lo, hi) = ratio_up(lo, hi, 12, -1e9, ratio_sep(lo, hi)) . ratio_down(lo, hi, 12, 0.0, ratio_sep(lo, hi))
ratio_tics(lo, hi) = "set ytics (" . ratio_list(lo, hi)[3:] . ")"
# upward from the candidate "1" (index 12), then downward from it; each
# entry comes with a leading ", " that ratio_tics drops from the first
ratio_up(lo, hi, k, last, sep) = (k > words(ratio_cands)) ? "" : \
    (real(word(ratio_cands, k)) > hi) ? "" : \
    (real(word(ratio_cands, k)) >= lo && log(real(word(ratio_cands, k))) - last >= sep) ? \
        ", " . word(ratio_cands, k) . ratio_up(lo, hi, k + 1, log(real(word(ratio_cands, k))), sep) : \
        ratio_up(lo, hi, k + 1, last, sep)
ratio_down(lo, hi, k, last, sep) = (k < 1) ? "" : \
    (real(word(ratio_cands, k)) < lo) ? "" : \
    (real(word(ratio_cands, k)) <= hi && last - log(real(word(ratio_cands, k))) >= sep) ? \
        ", " . word(ratio_cands, k) . ratio_down(lo, hi, k - 1, log(real(word(ratio_cands, k))), sep) : \
        ratio_down(lo, hi, k - 1, last, sep)

# Deterministic horizontal jitter for per-run dots: the golden-ratio sequence
# spreads rounds 1..n evenly over [-0.5, 0.5) without any randomness, so the
# same data always gives the same picture.
jitter(r) = (r * 0.6180339887) - floor(r * 0.6180339887) - 0.5

set style line 100 lc rgb "#808080" dt 2 lw 1      # reference lines (no overhead, identity)
set style line 101 lc rgb "#202020" lw 1.5 pt 7 ps 0.6   # medians and their CIs
set grid back lc rgb "#E0E0E0" lw 1
set border 3 lc rgb "#404040"
set tics nomirror out scale 0.6

# rng(s, k, default): the k-th number of a range string from figures.sh
# ("min max" pairs), or default where figures.sh found no value ("none").
rng(s, k, def) = (word(s, k) eq "none" || word(s, k) eq "") ? def : real(word(s, k))

# esc(s): s shown literally in enhanced text, where "_" would start a
# subscript (workload names may contain "_"; figures.sh escapes the sweep name).
esc(s) = (strstrt(s, "_") == 0) ? s : s[1:strstrt(s, "_") - 1] . "\\_" . esc(s[strstrt(s, "_") + 1:])

# windex(w): the position of workload w in the fixed order (0 if absent), so
# a workload has the same colour in a figure that shows only some of them.
windex(w) = windex_from(w, 1)
windex_from(w, k) = (k > nwl) ? 0 : (word(workloads, k) eq w ? k : windex_from(w, k + 1))
