# summarize.awk - the accuracy study's summary (accuracy/accuracy.sh runs it):
#   awk -f accuracy/summarize.awk -v outdir=DIR [-v overhead=FILE] DIR/truth.csv DIR/keys.csv DIR/runs.csv
# Writes DIR/summary.csv (one row per workload, mode, period and dimension),
# DIR/summary.md (the recommendation, the aliasing cases, the exact runs'
# cost) and DIR/plotdata/accuracy.dat, accuracy_overhead.dat (for
# plots/accuracy.sh).  Quantiles over a cell's runs interpolate linearly
# between order statistics (position (n - 1) q); with 10 runs the 2.5% and
# 97.5% quantiles are close to the minimum and maximum.  A run's "top-10
# error" is the largest |relative error| among the truth's ten largest keys
# that hold at least 1% of the bytes each (at least the largest key): a
# site with 0.001% of the bytes is not what a profile is read for, and no
# period the study tries samples it reliably.  The plain top-10 error (every
# one of the ten, sgcprof accuracy's top_max_err) is reported next to it.
# A cell is "within 5%" when every one of its runs is.  Plain POSIX awk.
BEGIN { FS = ","; ndims = split("site leaf type survival", dims, " "); minshare = 0.01 }

# Sorts a[1..n] ascending (n is small: the runs of one cell).
function isort(a, n,    i, j, v) {
    for (i = 2; i <= n; i++) {
        v = a[i]; j = i - 1
        while (j >= 1 && a[j] > v) { a[j + 1] = a[j]; j-- }
        a[j + 1] = v
    }
}
function quant(a, n, q,    pos, lo) {
    if (n == 0) return "nan"
    pos = (n - 1) * q; lo = int(pos)
    if (lo + 1 > n - 1) return a[n]
    return a[lo + 1] + (pos - lo) * (a[lo + 2] - a[lo + 1])
}
function fmtp(b) {
    if (b >= 1048576 && b % 1048576 == 0) return (b / 1048576) "M"
    if (b >= 1024 && b % 1024 == 0) return (b / 1024) "K"
    return b
}
function pct(x) { return (x == "nan" || x == "") ? "-" : sprintf("%.1f%%", 100 * x) }

FNR == 1 { file++; for (i = 1; i <= NF; i++) col[file, $i] = i; next }
file == 1 {
    w = $col[1, "workload"]
    tw[++ntw] = w
    tbytes[w] = $col[1, "bytes"]; tobj[w] = $col[1, "objects"]; tsites[w] = $col[1, "sites"]
    tident[w] = $col[1, "truth_identical"]; tbase[w] = $col[1, "baseline_s"]; texact[w] = $col[1, "exact_s"]
    tratio[w] = $col[1, "exact_ratio"]; tpsize[w] = $col[1, "exact_profile_bytes"]; tload[w] = $col[1, "loadavg"]
    next
}
file == 2 {
    # the exact tables, largest key first: how many of the ten hold >= 1%
    if ($3 + 0 <= 10 && ($NF + 0 >= minshare || $3 + 0 == 1)) { kmaj[$1, $2]++; kshare[$1, $2] = $NF + 0 }
    next
}
file == 3 {
    w = $col[3, "workload"]; m = $col[3, "mode"]; p = $col[3, "period"] + 0; d = $col[3, "dimension"]
    g = w SUBSEP m SUBSEP p SUBSEP d
    if (!(g in n)) { n[g] = 0; if (!((w, p) in seenp)) { seenp[w, p] = 1; np[w]++; plist[w, np[w]] = p } }
    k = ++n[g]
    tvd[g, k] = $col[3, "tvd"] + 0
    kk = ((w, d) in kmaj) ? kmaj[w, d] : 1
    e = 0
    for (i = 1; i <= kk; i++) {
        v = $col[3, "err_" i]
        if (v == "") continue
        v = (v < 0) ? -v : v
        if (v > e) e = v
    }
    err[g, k] = e
    errall[g, k] = $col[3, "top_max_err"] + 0
    samples[g, k] = $col[3, "samples"] + 0
    topk[w, d] = kk
    tbytes_run[w] = $col[3, "truth_bytes"]
    indep[g] = $col[3, "tvd_indep"]
    minexp[g] = $col[3, "top_min_expected"]
    topn[g] = $col[3, "top_n"]
    if (err[g, k] < 0.05) within[g]++
    if ($col[3, "top_set"] == 1) setok[g]++
    if ($col[3, "top_order"] == 1) orderok[g]++
    next
}

END {
    cmd = "mkdir -p '" outdir "/plotdata'"; system(cmd)
    # Overheads of fixed-mode cells from a sweep's plot data, if given.
    if (overhead != "" && overhead != "none") {
        while ((getline line < overhead) > 0) {
            nf = split(line, f, " ")
            if (f[1] == "#") { for (i = 2; i <= nf; i++) ocol[f[i]] = i - 1; continue }
            if (f[ocol["alloc_mode"]] != "fixed") continue
            ow = f[ocol["workload"]]; op = f[ocol["alloc_period"]] + 0
            oh[ow, op] = f[ocol["overhead"]]; ohlo[ow, op] = f[ocol["overhead_lo"]]; ohhi[ow, op] = f[ocol["overhead_hi"]]
        }
        close(overhead)
    }
    sc = outdir "/summary.csv"
    print "workload,mode,period,dimension,runs,tvd_median,tvd_lo,tvd_hi,tvd_indep,top_keys,top_err_median,top_err_lo,top_err_hi,runs_within_5pct,top10_err_all_median,top10_set_runs,top10_order_runs,top10_min_expected,samples_median" > sc
    pd = outdir "/plotdata/accuracy.dat"
    print "# workload mode period dimension runs tvd_median tvd_lo tvd_hi tvd_indep err_median err_lo err_hi within5 set_ok order_ok min_expected err_indep" > pd
    po = outdir "/plotdata/accuracy_overhead.dat"
    print "# workload period overhead overhead_lo overhead_hi fixed_tvd poisson_tvd fixed_err poisson_err" > po
    for (wi = 1; wi <= ntw; wi++) {
        w = tw[wi]
        # periods in ascending order
        for (i = 1; i <= np[w]; i++) pp[i] = plist[w, i]
        isort(pp, np[w])
        for (i = 1; i <= np[w]; i++) {
            p = pp[i]
            for (mi = 1; mi <= 2; mi++) {
                m = (mi == 1) ? "fixed" : "poisson"
                for (di = 1; di <= ndims; di++) {
                    d = dims[di]; g = w SUBSEP m SUBSEP p SUBSEP d
                    if (!(g in n)) continue
                    c = n[g]
                    for (k = 1; k <= c; k++) { a[k] = tvd[g, k]; b[k] = err[g, k]; s[k] = samples[g, k]; ea[k] = errall[g, k] }
                    isort(a, c); isort(b, c); isort(s, c); isort(ea, c)
                    eall[g] = quant(ea, c, 0.5)
                    med[g] = quant(a, c, 0.5); lo[g] = quant(a, c, 0.025); hi[g] = quant(a, c, 0.975)
                    emed[g] = quant(b, c, 0.5); elo[g] = quant(b, c, 0.025); ehi[g] = quant(b, c, 0.975)
                    # expected samples of the smallest top key (>= 1%), and the 95%
                    # bound of its relative error under independent sampling
                    kexp[g] = ((w, d) in kshare) ? kshare[w, d] * tbytes[w] / p : "nan"
                    ei = (kexp[g] != "nan" && kexp[g] > 0) ? 1.96 / sqrt(kexp[g]) : "nan"
                    printf "%s,%s,%d,%s,%d,%.6g,%.6g,%.6g,%s,%d,%.6g,%.6g,%.6g,%d,%.6g,%d,%d,%s,%.0f\n", w, m, p, d, c, med[g], lo[g], hi[g], \
                        indep[g], topk[w, d], emed[g], elo[g], ehi[g], within[g] + 0, eall[g], setok[g] + 0, orderok[g] + 0, minexp[g], quant(s, c, 0.5) > sc
                    # plot data: each workload, mode and dimension's periods contiguous (gnuplot joins them)
                    prow[w, m, d, i] = sprintf("%s %s %d %s %d %.6g %.6g %.6g %s %.6g %.6g %.6g %d %d %d %s %s", w, m, p, d, c, med[g], lo[g], hi[g], \
                        (indep[g] == "" ? "nan" : indep[g]), emed[g], elo[g], ehi[g], within[g] + 0, setok[g] + 0, orderok[g] + 0, \
                        kexp[g], ei)
                }
            }
            gf = w SUBSEP "fixed" SUBSEP p SUBSEP "site"; gp = w SUBSEP "poisson" SUBSEP p SUBSEP "site"
            if ((w, p) in oh && (gf in n) && (gp in n))
                printf "%s %d %s %s %s %s %s %s %s\n", w, p, oh[w, p], ohlo[w, p], ohhi[w, p], med[gf], med[gp], emed[gf], emed[gp] > po
        }
    }
    for (wi = 1; wi <= ntw; wi++)
        for (mi = 1; mi <= 2; mi++)
            for (di = 1; di <= ndims; di++)
                for (i = 1; i <= np[tw[wi]]; i++)
                    if ((tw[wi], (mi == 1 ? "fixed" : "poisson"), dims[di], i) in prow)
                        print prow[tw[wi], (mi == 1 ? "fixed" : "poisson"), dims[di], i] > pd
    close(sc); close(pd); close(po)

    md = outdir "/summary.md"
    print "# Accuracy of sampled allocation profiles" > md
    print "" > md
    print "Every sampled run compared with the exact profile of the same workload (`sgcprof accuracy`, site = calling context). " \
          "\"top-10 error\" is a run's largest |relative error| of the estimated bytes of the ten largest sites that hold at least 1% of the bytes each " \
          "(\"top sites\" below says how many there are); " \
          "a period is *within 5%* when every run at it (every offset, every seed) is, and so is every smaller period." > md
    print "" > md
    print "## Recommended period (top-10 sites within 5% in every run)" > md
    print "" > md
    print "| workload | bytes allocated | sites | top sites (>= 1%) | fixed: every run within 5% up to | fixed: median run within 5% up to | poisson: every run within 5% up to | poisson: median run within 5% up to | samples at the poisson every-run period |" > md
    print "|---|---|---|---|---|---|---|---|---|" > md
    for (wi = 1; wi <= ntw; wi++) {
        w = tw[wi]
        for (i = 1; i <= np[w]; i++) pp[i] = plist[w, i]
        isort(pp, np[w])
        for (mi = 1; mi <= 4; mi++) {
            m = (mi == 1 || mi == 4) ? "fixed" : "poisson"
            best[mi] = "none"; bestp[mi] = 0
            for (i = 1; i <= np[w]; i++) {
                g = w SUBSEP m SUBSEP pp[i] SUBSEP "site"
                ok = (mi < 3) ? (within[g] + 0 == n[g]) : (emed[g] < 0.05)
                if (!ok) break
                best[mi] = fmtp(pp[i]); bestp[mi] = pp[i]
            }
        }
        g = w SUBSEP "poisson" SUBSEP bestp[2] SUBSEP "site"
        smp = (bestp[2] > 0) ? sprintf("%.0f", tbytes[w] / bestp[2]) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w, tbytes[w], tsites[w], topk[w, "site"], best[1], best[4], best[2], best[3], smp > md
    }
    print "" > md
    print "## Fixed vs poisson: where fixed mode aliases" > md
    print "" > md
    print "Per workload, among the periods with at least 100 expected samples (bytes / P), the one at which fixed mode's median TVD exceeds poisson's the most (ratio of medians), with the plain top-10 set recovered in how many runs." > md
    print "" > md
    print "| workload | period | fixed TVD median [95% range] | poisson TVD median [95% range] | ratio | fixed top-10 set | poisson top-10 set | fixed top-10 error median | poisson top-10 error median |" > md
    print "|---|---|---|---|---|---|---|---|---|" > md
    worst = 0; worstw = ""
    for (wi = 1; wi <= ntw; wi++) {
        w = tw[wi]; r = 0; rp = 0
        for (i = 1; i <= np[w]; i++) {
            gf = w SUBSEP "fixed" SUBSEP plist[w, i] SUBSEP "site"; gp = w SUBSEP "poisson" SUBSEP plist[w, i] SUBSEP "site"
            if (!(gf in n) || !(gp in n) || med[gp] <= 0 || tbytes[w] / plist[w, i] < 100) continue
            if (med[gf] / med[gp] > r) { r = med[gf] / med[gp]; rp = plist[w, i] }
        }
        if (rp == 0) continue
        gf = w SUBSEP "fixed" SUBSEP rp SUBSEP "site"; gp = w SUBSEP "poisson" SUBSEP rp SUBSEP "site"
        printf "| %s | %s | %.4f [%.4f, %.4f] | %.4f [%.4f, %.4f] | %.1f | %d/%d | %d/%d | %s | %s |\n", w, fmtp(rp), med[gf], lo[gf], hi[gf], \
            med[gp], lo[gp], hi[gp], r, setok[gf], n[gf], setok[gp], n[gp], pct(emed[gf]), pct(emed[gp]) > md
        if (r > worst) { worst = r; worstw = w " at " fmtp(rp) }
    }
    print "" > md
    printf "Worst aliasing: %s (fixed mode's median TVD %.1f times poisson's).\n", worstw, worst > md
    print "" > md
    print "## The exact runs (SGC_ALLOC_PERIOD=8)" > md
    print "" > md
    print "| workload | objects | truth identical in two runs | baseline s | exact s | ratio | exact profile MB | load average |" > md
    print "|---|---|---|---|---|---|---|---|" > md
    for (wi = 1; wi <= ntw; wi++) {
        w = tw[wi]
        printf "| %s | %s | %s | %s | %s | %s | %.1f | %s |\n", w, tobj[w], (tident[w] == 1 ? "yes" : "NO"), tbase[w], texact[w], \
            tratio[w], tpsize[w] / 1e6, tload[w] > md
    }
    print "" > md
    print "Wall times of single runs on a shared machine: indicative only (see the load average)." > md
    print "" > md
    print "## Every cell (site dimension)" > md
    print "" > md
    print "| workload | mode | period | TVD median [95% range] | independent-sampling TVD | top-10 error median [95% range] | runs within 5% | plain top-10 error median | plain top-10 set | plain top-10 order | expected samples of the 10th site |" > md
    print "|---|---|---|---|---|---|---|---|---|---|---|" > md
    for (wi = 1; wi <= ntw; wi++) {
        w = tw[wi]
        for (i = 1; i <= np[w]; i++) pp[i] = plist[w, i]
        isort(pp, np[w])
        for (i = 1; i <= np[w]; i++)
            for (mi = 1; mi <= 2; mi++) {
                m = (mi == 1) ? "fixed" : "poisson"; g = w SUBSEP m SUBSEP pp[i] SUBSEP "site"
                if (!(g in n)) continue
                printf "| %s | %s | %s | %.4f [%.4f, %.4f] | %.4f | %s [%s, %s] | %d/%d | %s | %d/%d | %d/%d | %.1f |\n", w, m, fmtp(pp[i]), med[g], lo[g], hi[g], \
                    indep[g], pct(emed[g]), pct(elo[g]), pct(ehi[g]), within[g], n[g], pct(eall[g]), setok[g], n[g], orderok[g], n[g], minexp[g] > md
            }
    }
    close(md)
}
