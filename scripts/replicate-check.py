#!/usr/bin/env python3
"""replicate-check.py - do a replicated sweep's replicates agree as their intervals say?

The check of issue 29's replicate targets (docs/STATISTICS.md, "Replication
as a level", "Checking the replicates against each other"): a sweep of K >= 2
replicates (sweep --replicates K) is analysed once whole (its summary.csv,
whose intervals are over replicates) and once per replicate (analyze on a
copy of results.db holding only that replicate's runs and the simulated
part's; the intervals over that replicate's blocks).  For every cell and
every pair of replicates r, r' the paired ratio's estimates are compared on
the log scale with the two-level standard errors, each replicate's own
(from its interval: log(hi / lo) / (2 x 1.959964)) combined with the
between-replicate SD the sweep's interval used (summary.csv
rep_paired_tau_used, the cell's family's for K < 5):

  z = (t_r - t_r') / sqrt(se_r^2 + se_r'^2 + 2 tau^2)

which is standard normal when the two-level model holds, so its SD over a
family's pairs, about its expectation 0 (the root mean square: a replicate
that sits above the others in every cell of a family is a between-replicate
effect, which an SD about the pairs' mean would hide), should be near 1
(target [0.8, 1.2]); and t_r lies inside
replicate r''s two-level interval, t_r' +- 1.959964 sqrt(se_r'^2 + tau^2),
with the probability 2 Phi(1.959964 sqrt(se_r'^2 + tau^2) / sqrt(se_r^2 +
se_r'^2 + 2 tau^2)) - 1, so the observed share inside should be within 3
points of the mean of those (the target).  The same with tau = 0 (the
replicates' block-level intervals alone) shows what the second level adds.
Families are analyze's (st_rep_family): a workload's time-sampling cells,
and its other cells; a sweep of both time samplers also gets a row per
workload and time sampler.  Each family's between-replicate component
(rep_paired_tau_family) is printed with its Q-profile interval.

Usage:
  replicate-check.py [--analyze BIN] [--resamples B] [--keep DIR] SWEEP_DIR
      analyses each replicate of the analysed sweep in SWEEP_DIR (a copy of
      its results.db per replicate, in a temporary directory or DIR/rN) and
      prints the table (Markdown);
  replicate-check.py --csv FULL.csv REP0.csv REP1.csv [...]
      the table from summary.csv files already made (the whole sweep's, then
      one per replicate), e.g. those --keep left.
Exit status: 0 done (whether the targets are met or not: the table says),
2 bad input (a missing file or column, fewer than 2 replicates), 1 when an
analyze run fails.
"""
import csv
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

Z = 1.959963984540054
ME = "replicate-check"


def die(msg, code=2):
    print(f"{ME}: {msg}", file=sys.stderr)
    sys.exit(code)


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def read_summary(path):
    """The rows of an analyze summary.csv (its '# analyze ...' line skipped), by label."""
    try:
        with open(path, newline="") as f:
            lines = [ln for ln in f if not ln.startswith("#")]
    except OSError as e:
        die(f"{path}: {e.strerror}: give the summary.csv analyze wrote")
    rows = list(csv.DictReader(lines))
    if not rows:
        die(f"{path}: no cells")
    for col in ("label", "workload", "kind", "paired", "paired_lo", "paired_hi"):
        if col not in rows[0]:
            die(f"{path}: no column {col} (not an analyze summary.csv of this revision): rerun build/bin/analyze")
    return {r["label"]: r for r in rows}


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def family(row):
    """analyze's family (st_rep_family): the workload and 'time' or 'other'."""
    t = num(row.get("time_hz", "0")) or 0
    return f"{row['workload']}/{'time' if t > 0 else 'other'}"


def mode_family(row):
    """The time cells split by time sampler: a label ending in -thread is the sampler thread's."""
    if family(row).endswith("/time"):
        return f"{row['workload']}/time-{'thread' if row['label'].endswith('-thread') else 'signal'}"
    return None


def replicate_estimates(rep_rows, label):
    """(log estimate, its block-level SE) of the paired ratio in each replicate, or None."""
    out = []
    for rows in rep_rows:
        r = rows.get(label)
        if r is None:
            return None
        est, lo, hi = num(r["paired"]), num(r["paired_lo"]), num(r["paired_hi"])
        if est is None or lo is None or hi is None or not (0 < lo <= est <= hi) or hi == lo:
            return None
        out.append((math.log(est), math.log(hi / lo) / (2 * Z)))
    return out


def pm_tau2(cells):
    """Paule-Mandel between-replicate variance pooled over cells (each a list of (est, se)) with
    different means: the tau^2 at which sum_c sum_r (t_rc - mu_c)^2 / (se_rc^2 + tau^2) equals
    sum_c (k_c - 1), as analyze pools a family (st_levels.h); 0 when it is below at tau = 0."""
    df = sum(len(c) - 1 for c in cells)

    def q(t2):
        tot = 0.0
        for c in cells:
            w = [1 / (se * se + t2) for _, se in c]
            mu = sum(wi * t for wi, (t, _) in zip(w, c)) / sum(w)
            tot += sum(wi * (t - mu) ** 2 for wi, (t, _) in zip(w, c))
        return tot

    if df < 1 or q(0.0) <= df:
        return 0.0
    lo, hi = 0.0, 1e-6
    while q(hi) > df:
        hi *= 4
        if hi > 1e6:
            return float("inf")
    for _ in range(200):
        mid = (lo + hi) / 2
        if q(mid) > df:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def check(full, rep_rows):
    """Per family: pairs, z SD and RMS, observed and predicted share inside (two-level and blocks only)."""
    fams = {}
    skipped = []
    # Every cell's replicate estimates first, by analyze's family, for the
    # between-replicate SD from the family's other cells (out of sample).
    by_fam = {}
    for label, row in full.items():
        if row.get("pairs", "1") in ("", "0") or row.get("kind") == "sim" or "/sim/" in label:
            continue
        ests = replicate_estimates(rep_rows, label)
        if ests is not None:
            by_fam.setdefault(family(row), {})[label] = ests
    for label, row in full.items():
        if row.get("pairs", "1") in ("", "0"):
            continue
        if row.get("kind") == "sim" or "/sim/" in label:
            continue
        ests = replicate_estimates(rep_rows, label)
        tau = num(row.get("rep_paired_tau_used"))
        if ests is None or tau is None:
            skipped.append(label)
            continue
        others = [e for lab, e in by_fam[family(row)].items() if lab != label]
        tau_oos = math.sqrt(pm_tau2(others)) if others else None
        for fam in (family(row), mode_family(row)):
            if fam is None:
                continue
            f = fams.setdefault(fam, {"cells": 0, "z2": [], "z0": [], "in2": [], "p2": [], "in0": [], "p0": [],
                                      "zo": [], "ino": [], "po": [], "row": row, "pm": None})
            if fam == family(row) and f["pm"] is None:
                f["pm"] = math.sqrt(pm_tau2(list(by_fam[fam].values())))
            f["cells"] += 1
            k = len(ests)
            levels = [(tau, "z2", "in2", "p2"), (0.0, "z0", "in0", "p0")]
            if tau_oos is not None and math.isfinite(tau_oos):
                levels.append((tau_oos, "zo", "ino", "po"))
            for t2, key_z, key_in, key_p in levels:
                for a in range(k):
                    for b in range(k):
                        if a == b:
                            continue
                        (ta, sa), (tb, sb) = ests[a], ests[b]
                        sd = math.sqrt(sa * sa + sb * sb + 2 * t2 * t2)
                        if a < b:
                            f[key_z].append((ta - tb) / sd)
                        h = Z * math.sqrt(sb * sb + t2 * t2)
                        f[key_in].append(1 if abs(ta - tb) <= h else 0)
                        f[key_p].append(2 * phi(h / sd) - 1)
    return fams, skipped


def sd(v):
    if len(v) < 2:
        return float("nan")
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def rms(v):
    return math.sqrt(sum(x * x for x in v) / len(v)) if v else float("nan")


def fmt(x, d=3):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def table(fams, k):
    out = []
    out.append(f"Replicates: {k}. z and shares of the paired ratio (log scale); two-level: each replicate's "
               "block-level SE with the between-replicate SD the sweep's interval used; blocks: without it.")
    out.append("")
    out.append("| family | cells | pairs | z SD about 0 (two-level) | in [0.8, 1.2] | z SD about its mean | "
               "inside (two-level) | predicted | within 3 points | z SD about 0 (blocks only) | "
               "inside / predicted (blocks only) | z SD about 0, inside / predicted (tau from the family's other "
               "cells) | between-replicate SD (family) [Q-profile 95%] | the same by this script | "
               "within SE (RMS) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    met_sd = met_share = total = 0
    for fam in sorted(fams):
        f = fams[fam]
        z2, z0 = f["z2"], f["z0"]
        s2 = rms(z2)
        inside, pred = 100 * sum(f["in2"]) / len(f["in2"]), 100 * sum(f["p2"]) / len(f["p2"])
        in0, p0 = 100 * sum(f["in0"]) / len(f["in0"]), 100 * sum(f["p0"]) / len(f["p0"])
        ok_sd = 0.8 <= s2 <= 1.2
        ok_sh = abs(inside - pred) <= 3
        row = f["row"]
        if f["zo"]:
            oos = (f"{fmt(rms(f['zo']))}, {100 * sum(f['ino']) / len(f['ino']):.1f}% / "
                   f"{100 * sum(f['po']) / len(f['po']):.1f}%")
        else:
            oos = "n/a"
        comp = ""
        if "/time-" not in fam:  # analyze's own families carry the component
            total += 1
            met_sd += ok_sd
            met_share += ok_sh
            comp = (f"{fmt(num(row.get('rep_paired_tau_family')), 4)} [{fmt(num(row.get('rep_paired_tau_lo')), 4)}, "
                    f"{fmt(num(row.get('rep_paired_tau_hi')), 4)}]")
        else:
            comp = "(time sampler's cells of the family above)"
        out.append(f"| {fam} | {f['cells']} | {len(z2)} | {fmt(s2)} | {'yes' if ok_sd else 'no'} | {fmt(sd(z2))} | "
                   f"{inside:.1f}% | {pred:.1f}% | {'yes' if ok_sh else 'no'} | {fmt(rms(z0))} | "
                   f"{in0:.1f}% / {p0:.1f}% | {oos} | {comp} | {fmt(f['pm'], 4) if f['pm'] is not None else ''} | "
                   f"{fmt(num(row.get('rep_paired_within')), 4)} |")
    out.append("")
    out.append(f"Targets met (analyze's {total} families): z SD within [0.8, 1.2] in {met_sd} of {total}; "
               f"share inside within 3 points of the prediction in {met_share} of {total}.")
    return "\n".join(out)


def replicates_of(db):
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        cols = [r[1] for r in con.execute("PRAGMA table_info(runs)")]
        if "replicate" not in cols:
            die(f"{db}: runs has no replicate column: not a replicated sweep (sweep --replicates K)")
        reps = [r[0] for r in con.execute("SELECT DISTINCT replicate FROM runs WHERE replicate IS NOT NULL "
                                          "ORDER BY 1")]
        con.close()
    except sqlite3.Error as e:
        die(f"{db}: {e}: give a sweep directory")
    return reps


def analyse_replicates(sweep, analyze, resamples, keep):
    db = os.path.join(sweep, "results.db")
    if not os.path.isfile(db):
        die(f"{sweep}: no results.db: give a sweep directory")
    full = os.path.join(sweep, "summary.csv")
    if not os.path.isfile(full):
        die(f"{full}: missing: run build/bin/analyze {sweep} first")
    reps = replicates_of(db)
    if len(reps) < 2:
        die(f"{db}: {len(reps)} replicate(s): the check needs 2 or more")
    base = keep or tempfile.mkdtemp(prefix="replicate-check.")
    paths = []
    try:
        for r in reps:
            d = os.path.join(base, f"r{r}")
            os.makedirs(d, exist_ok=True)
            shutil.copyfile(db, os.path.join(d, "results.db"))
            con = sqlite3.connect(os.path.join(d, "results.db"))
            con.execute("DELETE FROM runs WHERE replicate IS NOT NULL AND replicate != ?", (r,))
            tabs = [t[0] for t in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            if "schedule" in tabs:
                scols = [c[1] for c in con.execute("PRAGMA table_info(schedule)")]
                if "replicate" in scols:
                    con.execute("DELETE FROM schedule WHERE replicate IS NOT NULL AND replicate != ?", (r,))
            con.commit()
            con.close()
            p = subprocess.run([analyze, "--quiet", "--resamples", str(resamples), d], capture_output=True, text=True)
            if p.returncode != 0:
                die(f"analyze on replicate {r} ({d}) failed (exit {p.returncode}): {p.stderr.strip()}", 1)
            paths.append(os.path.join(d, "summary.csv"))
        return full, paths, [read_summary(p) for p in paths]
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def hodges_lehmann(v):
    w = sorted((v[i] + v[j]) / 2 for i in range(len(v)) for j in range(i, len(v)))
    n = len(w)
    return w[n // 2] if n % 2 else (w[n // 2 - 1] + w[n // 2]) / 2


def estimator_check(db, rep_rows):
    """Why z can be off: per cell and replicate, the blocks' log-ratios (wall) from results.db; the
    between-replicate variance of the block means over the mean of their SD^2 / n (1 when the replicates
    are independent and the plain SE is right), the same of the Hodges-Lehmann estimates over the
    means' (their relative efficiency here), and the SE read off each replicate's interval over the
    means' SE (median)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT c.label, r1.replicate, ln(1.0 * r1.wall_ns / r0.wall_ns) FROM runs r1 JOIN runs r0 ON r0.block = "
        "r1.block AND r0.block_role = 0 AND r1.block_role = 1 JOIN cells c ON c.cell_id = r1.cell_id WHERE r1.round "
        ">= 1 AND r1.block > 0 AND r1.status = 'ok' AND r0.status = 'ok' AND r1.wall_ns > 0 AND r0.wall_ns > 0"
    ).fetchall()
    con.close()
    reps = sorted({r for _, r, _ in rows if r is not None})
    d = {}
    for lab, r, x in rows:
        d.setdefault((lab, r), []).append(x)
    ratio_mean, var_hl, var_mean, se_ratio = [], [], [], []
    for lab in sorted({lab for lab, _ in d}):
        vs = [d.get((lab, r)) for r in reps]
        if any(v is None or len(v) < 3 for v in vs):
            continue
        means = [sum(v) / len(v) for v in vs]
        se2 = [sd(v) ** 2 / len(v) for v in vs]
        if not all(x > 0 for x in se2):
            continue
        ratio_mean.append(sd(means) ** 2 / (sum(se2) / len(se2)))
        var_hl.append(sd([hodges_lehmann(v) for v in vs]) ** 2)
        var_mean.append(sd(means) ** 2)
        for i, rows_r in enumerate(rep_rows):
            r = rows_r.get(lab)
            lo, hi = (num(r["paired_lo"]), num(r["paired_hi"])) if r else (None, None)
            if lo and hi and hi > lo > 0:
                se_ratio.append(math.log(hi / lo) / (2 * Z) / math.sqrt(se2[i]))
    if not ratio_mean:
        return ""
    se_ratio.sort()
    med = se_ratio[len(se_ratio) // 2] if se_ratio else float("nan")
    hl_eff = sum(var_hl) / sum(var_mean)
    return (f"\nThe estimators ({len(ratio_mean)} cells, the blocks' wall-time log-ratios in results.db): the "
            f"between-replicate variance of the replicates' block means over their mean SD^2 / n: "
            f"{sum(ratio_mean) / len(ratio_mean):.3f} on average (1 when the replicates are independent and that SE "
            f"is right); the Hodges-Lehmann estimates vary between replicates with {hl_eff:.3f} times the means' "
            f"variance; the SE read off each replicate's interval is {med:.3f} times its means' SE (median of "
            f"{len(se_ratio)}); so that SE squared is about {med * med / hl_eff:.2f} times the variance of the "
            f"estimate it goes with, and z's SD should be about {math.sqrt(hl_eff) / med:.2f} when nothing "
            f"varies between replicates.")


def main(argv):
    analyze, resamples, keep, csvs, sweep, extra = "build/bin/analyze", 10000, None, None, None, ""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a == "--csv":
            csvs = argv[i + 1:]
            break
        if a in ("--analyze", "--resamples", "--keep"):
            if i + 1 >= len(argv):
                die(f"{a} needs a value")
            v = argv[i + 1]
            if a == "--analyze":
                analyze = v
            elif a == "--keep":
                keep = v
            else:
                try:
                    resamples = int(v)
                except ValueError:
                    die(f"--resamples {v}: not a whole number")
            i += 2
            continue
        if a.startswith("-"):
            die(f"{a}: unknown option (see --help)")
        if sweep:
            die(f"{a}: one sweep directory only")
        sweep = a
        i += 1
    if csvs is not None:
        if len(csvs) < 3:
            die("--csv FULL.csv REP0.csv REP1.csv [...]: the whole sweep's summary.csv and 2 or more replicates'")
        full = read_summary(csvs[0])
        reps = [read_summary(p) for p in csvs[1:]]
    elif sweep:
        fullp, _, reps = analyse_replicates(sweep, analyze, resamples, keep)
        full = read_summary(fullp)
        extra = estimator_check(os.path.join(sweep, "results.db"), reps)
    else:
        die("give a sweep directory or --csv FULL.csv REP0.csv REP1.csv (see --help)")
    fams, skipped = check(full, reps)
    if not fams:
        die("no cell has a paired ratio with an interval in every replicate and a between-replicate SD")
    print(table(fams, len(reps)))
    if extra:
        print(extra)
    if skipped:
        print(f"\nNot compared ({len(skipped)} cells without a paired interval in every replicate or without a "
              f"between-replicate SD): {', '.join(sorted(skipped)[:10])}{', ...' if len(skipped) > 10 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
