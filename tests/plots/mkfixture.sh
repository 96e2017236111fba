#!/bin/sh
# mkfixture.sh DIR - writes a small synthetic sweep directory (summary.csv line 1 and plotdata/*.dat) for the figure tests.
#
# The numbers are made up by a formula, not measured: they exist only so that
# plots/figures.sh can be tested without running a sweep.  The files follow
# docs/STATISTICS.md, "Plot data", exactly: a "# <columns>" header, rows
# grouped by workload with two blank lines between groups, one blank line
# between sub-series.  Three workloads, fixed and poisson allocation cells at
# four periods (32K, 64K, 128K, 4M), two time-sampling rates, five runs per cell, three stack
# depths, three in-process cells per workload, the peers figure's cells of
# three systems (one that keeps no count of its samples), and exactly one fixed-mode
# run whose sample count is off by one (match = 0), which the exactness
# figure must flag.
set -e
d=$1
[ -n "$d" ] || { echo "usage: mkfixture.sh DIR" >&2; exit 2; }
mkdir -p "$d/plotdata"
echo "# analyze seed=1 resamples=1000 confidence=0.9" > "$d/summary.csv"
awk -v pd="$d/plotdata" 'function word3(s, k,   a) { split(s, a, " "); return a[k] + 0 == a[k] ? a[k] + 0 : a[k] }
BEGIN {
    n = split("alpha beta gamma", w, " ")
    f["wl"] = pd "/workloads.dat";      print "# index workload" > f["wl"]
    f["ar"] = pd "/alloc_runs.dat";     print "# workload alloc_mode alloc_period round wall_ns ratio alloc_samples alloc_sps" > f["ar"]
    f["ac"] = pd "/alloc_cells.dat";    print "# workload alloc_mode alloc_period runs overhead overhead_lo overhead_hi alloc_sps alloc_sps_lo alloc_sps_hi norm_overhead norm_lo norm_hi cost_us cost_lo cost_hi ci" > f["ac"]
    f["tr"] = pd "/time_runs.dat";      print "# workload time_clock time_hz round wall_ns ratio time_samples time_sps" > f["tr"]
    f["tc"] = pd "/time_cells.dat";     print "# workload time_clock time_hz runs overhead overhead_lo overhead_hi time_sps time_sps_lo time_sps_hi hz_achieved norm_overhead norm_lo norm_hi cost_us cost_lo cost_hi ci" > f["tc"]
    f["br"] = pd "/baseline_runs.dat";  print "# workload round wall_ns ratio" > f["br"]
    f["no"] = pd "/normalized.dat";     print "# index workload alloc_period alloc_sps alloc_norm alloc_norm_lo alloc_norm_hi time_hz time_sps time_norm time_norm_lo time_norm_hi" > f["no"]
    f["ex"] = pd "/exactness.dat";      print "# workload alloc_mode alloc_period round sampled_bytes expected sample_points match" > f["ex"]
    f["de"] = pd "/depth.dat";          print "# workload depth kind alloc_period time_hz runs samples cost_us cost_lo cost_hi" > f["de"]
    f["ip"] = pd "/inprocess.dat";      print "# index workload label alloc_period time_hz ratio lo hi half_width_pct blocks kind runs verdict margin" > f["ip"]
    f["pe"] = pd "/peers.dat";          print "# workload system period_bytes overhead_pct lo_pct hi_pct samples_per_run samples cost_ns cost_lo cost_hi inproc_cost_ns inproc_cost_lo inproc_cost_hi sim_ir_per_sample sim_repeat sim_spread_pct" > f["pe"]
    base = 300000000
    for (i = 1; i <= n; i++) {
        print i - 1, w[i] > f["wl"]
        if (i > 1) for (k in f) if (k != "wl" && k != "no" && k != "de" && k != "pe") printf "\n\n" > f[k]
        # in-process: a baseline (A/A), a 64K cell and a 1000 Hz cell per
        # workload; one verdict of each kind, and one cell without an interval
        ipv = "no_effect_above_2% slower not_resolved"
        print 3 * (i - 1), w[i], w[i] "/baseline", 0, 0, 1.001, 0.995, 1.007, 0.6, 40, "baseline", 4, "no_effect_above_2%", 0.02 > f["ip"]
        print 3 * (i - 1) + 1, w[i], w[i] "/alloc-fixed-64K", 65536, 0, 1 + 0.01 * i, 1 + 0.01 * i - 0.004 * i, 1 + 0.01 * i + 0.005 * i, 0.45 * i, 40, "alloc", 4, word3(ipv, i), 0.02 > f["ip"]
        if (i < 3) print 3 * (i - 1) + 2, w[i], w[i] "/time-wall-1000Hz", 0, 1000, 1.05, 1.04, 1.06, 1, 40, "time", 4, "slower", 0.02 > f["ip"]
        else       print 3 * (i - 1) + 2, w[i], w[i] "/time-wall-1000Hz", 0, 1000, 1.05, "NaN", "NaN", "NaN", 2, "time", 1, "n/a", 0.02 > f["ip"]
        rate = 4e8 * i * i                        # bytes allocated per second
        for (r = 1; r <= 5; r++) print w[i], r, base + (r - 3) * 1e6, 1 + (r - 3) * 0.004 > f["br"]
        for (m = 1; m <= 2; m++) {
            mode = (m == 1) ? "fixed" : "poisson"
            if (m == 2) { print "" > f["ar"]; print "" > f["ac"]; print "" > f["ex"] }
            # 4M is off the every-other-octave grid of the period axis
            # from 32K: it must still get its tick label (and 64K too)
            for (pk = 1; pk <= 4; pk++) {
                p = word3("32768 65536 131072 4194304", pk)
                sps = rate / p; o = 1 + sps * 1e-5
                for (r = 1; r <= 5; r++) {
                    ratio = o * (1 + (r - 3) * 0.005)
                    print w[i], mode, p, r, int(base * ratio), ratio, int(sps * 0.3), sps > f["ar"]
                    bytes = int(rate * 0.3) + r * 1000 + 17
                    pts = int(bytes / p)
                    if (mode == "poisson") pts += (r - 3) * 3
                    mt = (mode == "fixed") ? 1 : "NaN"
                    if (mode == "fixed" && i == 2 && p == 65536 && r == 4) { pts += 1; mt = 0 }
                    printf "%s %s %d %d %d %.6g %d %s\n", w[i], mode, p, r, bytes, bytes / p, pts, mt > f["ex"]
                }
                nn = 1 + (o - 1) * 1000 / sps
                print w[i], mode, p, 5, o, o * 0.99, o * 1.01, sps, sps * 0.98, sps * 1.02, nn, nn - 0.002, nn + 0.003, 10, 9, 11, "bca" > f["ac"]
            }
        }
        for (h = 1000; h <= 2000; h *= 2) {
            o = 1 + h * 5e-6
            for (r = 1; r <= 5; r++) print w[i], "wall", h, r, int(base * o * (1 + (r - 3) * 0.005)), o * (1 + (r - 3) * 0.005), int(h * 0.3), h > f["tr"]
            nn = 1 + (o - 1) * 1000 / h
            print w[i], "wall", h, 5, o, o * 0.99, o * 1.01, h, h * 0.99, h * 1.01, h * 0.98, nn, nn - 0.01, nn + 0.01, 5, 4, 6, "percentile" > f["tc"]
        }
        sps = rate / 65536
        print i - 1, w[i], 65536, sps, 1 + 1e-2, 1.005, 1.02, 1000, 1000, 1.005, 0.99, 1.02 > f["no"]
    }
    # peers (figure 8): alpha on freecheck (process-level cost, exact
    # instructions), gperftools (no sample count) and jemalloc (in-process
    # cost, instructions not exact); beta on the same three, jemalloc
    # without a cost estimate; gamma on freecheck without any overhead
    # estimate (no panel)
    split("freecheck counted 412 398 430 NaN NaN NaN 1084 exact 0|gperftools not_counted NaN NaN NaN NaN NaN NaN NaN - NaN|jemalloc counted 1510 1402 1633 9625 9100 10200 35512 not_exact 0.02", sa, "|")
    split("freecheck counted 388 371 405 NaN NaN NaN NaN - NaN|gperftools not_counted NaN NaN NaN NaN NaN NaN NaN - NaN|jemalloc counted NaN NaN NaN NaN NaN NaN NaN - NaN", sb, "|")
    for (i = 1; i <= 3; i++)
        for (k = 1; k <= 3; k++) {
            split(i == 1 ? sa[k] : sb[k], v, " ")
            for (p = 32768; p <= 131072; p *= 2) {
                o = (i == 3) ? "NaN" : 40 * k * i * 32768 / p
                spr = (v[2] == "counted") ? 3e8 * i / p : "NaN"
                if (i == 3 && k == 1) print "gamma", "freecheck", p, "NaN", "NaN", "NaN", 1e8 / p, "counted", "NaN", "NaN", "NaN", "NaN", "NaN", "NaN", "NaN", "-", "NaN" > f["pe"]
                else if (i < 3) print w[i], v[1], p, o, (o == "NaN" ? o : o * 0.8), (o == "NaN" ? o : o * 1.25), spr, v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11] > f["pe"]
            }
        }
    for (k = 1; k <= 2; k++) {
        if (k == 2) print "" > f["de"]
        for (dp = 16; dp <= 256; dp *= 4)
            if (k == 1) print "deepstack", dp, "alloc", 65536, 0, 5, 4000, 0.5 + dp * 0.01, 0.4 + dp * 0.01, 0.6 + dp * 0.01 > f["de"]
            else        print "deepstack", dp, "time", 0, 1000, 5, 300, 3 + dp * 0.008, 2.7 + dp * 0.008, 3.4 + dp * 0.008 > f["de"]
    }
}'
# regress.csv (figure 3), the per-sample cost fits' wall-time rows, with
# regress.csv's header (stats/st_costfit.c): alpha fitted on the pairs and
# resolved (allocation cheaper), beta with an allocation interval 100 times
# wider than the others (cut at the frame with an arrow, not resolved),
# gamma with no time fit (n/a, no verdict); a cpu row that figure 3 ignores.
{
    echo "workload,kind,metric,unit,cells,runs,cost,cost_lo,cost_hi,intercept,intercept_lo,intercept_hi,base,fixed,fixed_lo,fixed_hi,fixed_frac,fixed_frac_lo,fixed_frac_hi,norm_overhead,norm_lo,norm_hi,max_abs_residual_frac,baseline_in_slope,note,verdict,norm_diff,norm_diff_lo,norm_diff_hi,paired_pairs,paired_cost,paired_cost_lo,paired_cost_hi,paired_fixed,paired_fixed_lo,paired_fixed_hi,paired_norm_overhead,paired_norm_lo,paired_norm_hi"
    echo "alpha,alloc,wall,ns,3,20,1.5,1,2,3e8,2.9e8,3.1e8,3e8,1e6,0,2e6,0.003,0,0.006,1.0015,1.001,1.002,0.01,0,,alloc_cheaper,-0.0290,-0.0350,-0.0230,10,1.2,0.9,1.6,1e6,0,2e6,1.0012,1.0009,1.0016"
    echo "alpha,alloc,cpu,ns,3,20,1.5,1,2,3e8,2.9e8,3.1e8,3e8,1e6,0,2e6,0.003,0,0.006,1.0015,1.001,1.002,0.01,0,,na,,,,10,1.2,0.9,1.6,1e6,0,2e6,1.0012,1.0009,1.0016"
    echo "alpha,time,wall,ns,2,15,30,24,36,3e8,2.9e8,3.1e8,3e8,1e6,0,2e6,0.003,0,0.006,1.032,1.024,1.041,0.01,0,,alloc_cheaper,-0.0290,-0.0350,-0.0230,10,30,25,35,1e6,0,2e6,1.0302,1.0250,1.0360"
    echo "beta,alloc,wall,ns,3,20,300,-50,2000,3e8,2.9e8,3.1e8,3e8,1e6,0,2e6,0.003,0,0.006,1.30,0.95,3.0,0.01,0,,not_resolved,0.26,-0.09,1.95,10,250,-40,1800,1e6,0,2e6,1.25,0.96,2.8"
    echo "beta,time,wall,ns,2,15,40,30,50,3e8,2.9e8,3.1e8,3e8,1e6,0,2e6,0.003,0,0.006,1.040,1.030,1.050,0.01,0,,not_resolved,0.26,-0.09,1.95,10,40,33,47,1e6,0,2e6,1.0400,1.0330,1.0470"
    echo "gamma,alloc,wall,ns,3,20,0.5,0.2,0.9,3e8,2.9e8,3.1e8,3e8,1e6,0,2e6,0.003,0,0.006,1.0005,1.0002,1.0009,0.01,0,,na,,,,10,0.5,0.2,0.8,1e6,0,2e6,1.0005,1.0002,1.0008"
} > "$d/regress.csv"
printf '%s\n' "By the regressions (...: cheaper when the interval excludes 0 on that side, equivalent within 2% when it lies within +-2%): resolved on 1 of 2 workloads." > "$d/summary.md"

# The files in the form analyze writes them: the columns of the plot data
# table (`analyze --print-plotdata-columns`, $ANALYZE), in its order; a
# column this fixture does not make up is NaN ("-" for a word).
analyze=${ANALYZE:-$(dirname "$0")/../../build/bin/analyze}
"$analyze" --print-plotdata-columns > "$d/.columns" || { echo "mkfixture.sh: $analyze --print-plotdata-columns failed" >&2; exit 1; }
while read -r name cols; do
    f="$d/plotdata/$name.dat"
    [ -f "$f" ] || continue
    awk -v cols="$cols" '
        NR == 1 { for (i = 2; i <= NF; i++) have[$i] = i - 1
                  n = split(cols, C, " "); h = "#"
                  for (j = 1; j <= n; j++) { split(C[j], a, ":"); name[j] = a[1]; word[j] = a[2] == "word"; h = h " " a[1] }
                  print h; next }
        !NF { print; next }
        { s = ""
          for (j = 1; j <= n; j++) s = s (j > 1 ? " " : "") ((name[j] in have) ? $(have[name[j]]) : (word[j] ? "-" : "NaN"))
          print s }' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
done < "$d/.columns"
rm -f "$d/.columns"
