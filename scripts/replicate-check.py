#!/usr/bin/env python3
"""replicate-check.py - do a replicated sweep's replicates agree as their intervals say?

The check of issue 29's replicate targets (docs/STATISTICS.md, "Replication
as a level", "Checking the replicates against each other"): a sweep of K >= 2
replicates (sweep --replicates K) is analysed once whole (its summary.csv,
whose intervals are over replicates) and once per replicate (analyze on a
copy of results.db holding only that replicate's runs and the simulated
part's; the intervals over that replicate's blocks).  For every cell and
every pair of replicates r, r' the paired ratio's estimates are compared on
the log scale with the two-level standard errors, each replicate's own combined with the
between-replicate SD the sweep's interval used (summary.csv
rep_paired_tau_used, the cell's family's for K < 5).  A replicate's own SE
is its estimator's: the kernel SE of the Hodges-Lehmann estimate of its
blocks' log-ratios (results.db), 1 / (sqrt(12 n) * integral fhat^2), fhat
the Gaussian kernel density estimate of the blocks with Silverman's
bandwidth, the SE analyze's combination uses (st_levels.h,
st_hl_kernel_se), computed here independently; with --csv, where no
blocks are at hand, analyze's own (each replicate's summary.csv
paired_se; for a summary.csv from before that column, the SE the
replicate's interval implies, log(hi / lo) / (2 x 1.959964), which
overstates it for an exact 12-block interval):

  z = (t_r - t_r') / sqrt(se_r^2 + se_r'^2 + 2 tau^2)

which is standard normal when the two-level model holds, so its SD over a
family's pairs, about its expectation 0 (the root mean square: a replicate
that sits above the others in every cell of a family is a between-replicate
effect, which an SD about the pairs' mean would hide), should be near 1
(target [0.8, 1.2]); and t_r lies inside
replicate r''s two-level interval, t_r' +- 1.959964 sqrt(se_r'^2 + tau^2),
with the probability 2 Phi(1.959964 sqrt(se_r'^2 + tau^2) / sqrt(se_r^2 +
se_r'^2 + 2 tau^2)) - 1, so the observed share inside should be within 3
points of the mean of those (the target).  Both figures are noisy with few
cells: with m cells of k replicates and equal SEs, the sum of a family's
z^2 over its pairs is k / 2 times a chi-square of m (k - 1) degrees of
freedom, so z's RMS lies in sqrt(chi2_df(0.025, 0.975) / df), df = m (k -
1), 95% of the time when the model holds (printed as "RMS range";
[0.66, 1.34] for 8 cells of 3 replicates).  The same with tau = 0 (the
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
  replicate-check.py --coverage EXPERIMENTS SE_RESAMPLES [--smooth] [--centred TAU] [--draw K] SWEEP_DIR
      the coverage of analyze's interval over replicates under the sweep's own
      noise (its observed replicates and blocks resampled, see coverage());
      SE_RESAMPLES the resamples of the bootstrap SE of the candidate
      "bootstrap-SE" (analyze's SE is the kernel one, without resampling);
      --smooth draws the blocks from the kernel density estimate of the
      replicate's blocks (the smoothed bootstrap: no repeated values, which
      a resample with replacement has and real blocks do not); --centred
      TAU centres each observed replicate's blocks of a cell at their own
      estimand and shifts each synthetic replicate by N(0, TAU^2) shared by
      the family's cells, TAU "family" (analyze's estimate of the family's
      between-replicate SD), "hi" (its Q-profile upper bound) or a number,
      in place of the observed replicates' own centres, whose spread holds
      their estimation noise as well as the between-replicate SD; --draw K
      draws K distinct replicates of the sweep's (fewer than it has) for
      each experiment instead of as many as it has with replacement;
  replicate-check.py --unpaired-se SPLITS RESAMPLES SWEEP_DIR
      which SE of a replicate's unpaired overhead is right on the sweep's own
      runs (unpaired_se_bench): z's RMS over pairs of replicates and of random
      splits of the runs, for analyze's bootstrap SE and two others;
  replicate-check.py --coverage-synthetic EXPERIMENTS SE_RESAMPLES
      the same coverage on synthetic families with known noise (normal, t3)
      and between-replicate SD (0, 0.01, 0.03), for analyze's rule and the
      candidates (combine_variant);
  replicate-check.py --csv FULL.csv REP0.csv REP1.csv [...]
      the table from summary.csv files already made (the whole sweep's, then
      one per replicate), e.g. those --keep left.
With a sweep directory the script also recomputes what analyze computes
(each replicate's estimate from its blocks, the replicates' SEs, also
against each replicate's summary.csv paired_se, each
family's pooled between-replicate SD and every cell's interval over
replicates) and prints how far apart the two are ("Agreement with
analyze"); beyond the tolerances (half-widths and centres 1e-4 relative or
in half-widths plus the rounding of their ends to 6 digits, each
replicate's SE against its paired_se 1e-5 relative, the within SE and the
family SD, printed to 4 digits, 6e-4 relative, estimates to analyze's 6
digits: the two compute the same numbers, without resampling)
it lists the disagreements and exits 3.
Exit status: 0 done (whether the targets are met or not: the table says),
2 bad input (a missing file or column, fewer than 2 replicates), 1 when an
analyze run fails, 3 when this script and analyze disagree.
"""
import csv
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import random
import tempfile

Z = 1.959963984540054
ME = "replicate-check"
SE_RESAMPLES = 2000  # resamples of the bootstrap SE where a candidate uses it (analyze's ST_LEVEL_SE_RESAMPLES)
SE_SEED = 20250616


def die(msg, code=2):
    print(f"{ME}: {msg}", file=sys.stderr)
    sys.exit(code)


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def betacf(a, b, x):
    """The continued fraction of the regularized incomplete beta function (Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1) < 1e-15:
            break
    return h


def betainc(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lb = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lb) * betacf(a, b, x) / a
    return 1 - math.exp(lb) * betacf(b, a, 1 - x) / b


def t_cdf(t, df):
    p = 0.5 * betainc(df / 2, 0.5, df / (df + t * t))
    return 1 - p if t > 0 else p


def t_quantile(p, df):
    """The p-quantile (p > 0.5) of Student's t with df degrees of freedom, by bisection."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def hl(v):
    """The Hodges-Lehmann estimate: the median of the Walsh averages (v_i + v_j) / 2, i <= j."""
    w = sorted(v[i] + v[j] for i in range(len(v)) for j in range(i, len(v)))
    n = len(w)
    return w[n // 2] / 2 if n % 2 else (w[n // 2 - 1] + w[n // 2]) / 4


def hl_boot_se(v, resamples, rng):
    """The bootstrap SE of the Hodges-Lehmann estimate of the blocks v (their SD over resamples of the
    blocks, times sqrt(n / (n - 1))), analyze's replicate SE before the kernel one (st_hl_boot_se, with
    this script's own generator): the candidate "bootstrap-SE" of --coverage."""
    n = len(v)
    if n < 3:
        return None
    t = []
    for _ in range(resamples):
        x = [v[rng.randrange(n)] for _ in range(n)]
        t.append(hl(x))
    return sd(t) * math.sqrt(n / (n - 1))


def quantile7(s, p):
    """The p-quantile of the sorted list s with linear interpolation between order statistics
    (h = (n - 1) p: Hyndman and Fan's type 7)."""
    h = (len(s) - 1) * p
    i = int(math.floor(h))
    return s[i] + (h - i) * (s[min(i + 1, len(s) - 1)] - s[i])


def silverman_h(v):
    """Silverman's bandwidth of v (2 or more values), 0.9 min(SD, IQR / 1.349) n^(-1/5), the SD where the
    IQR is 0; 0 when every value is equal."""
    n = len(v)
    s = sorted(v)
    m = sum(v) / n
    sdv = math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1))
    iqr = (quantile7(s, 0.75) - quantile7(s, 0.25)) / 1.3489795003921634
    scale = iqr if 0 < iqr < sdv else sdv
    return 0.9 * scale * n ** -0.2 if scale > 0 else 0.0


def hl_kernel_se(v):
    """The kernel SE of the Hodges-Lehmann estimate of the blocks v, as analyze computes a replicate's
    (st_levels.h, st_hl_kernel_se): 1 / (sqrt(12 n) * I), I the integral of the square of the
    Gaussian kernel density estimate of v with bandwidth h = 0.9 min(SD, IQR / 1.349) n^(-1/5) (the SD
    when the IQR is 0), I = (1 / n^2) sum_i sum_j phi(v_i - v_j; SD h sqrt 2).  None below 3 blocks,
    0 when every block is equal."""
    n = len(v)
    if n < 3:
        return None
    h = silverman_h(v)
    if not h > 0:
        return 0.0
    s2 = h * math.sqrt(2)
    tot = sum(math.exp(-0.5 * ((a - b) / s2) ** 2) for a in v for b in v)
    integral = tot / (n * n * s2 * math.sqrt(2 * math.pi))
    return 1 / (math.sqrt(12 * n) * integral)


def gammainc_lower(a, x):
    """The regularized lower incomplete gamma function P(a, x): its series below a + 1, else 1 minus
    the continued fraction of the upper one (modified Lentz), to about 1e-14."""
    if x <= 0:
        return 0.0
    lg = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = tot = 1 / a
        n = a
        while abs(term) > 1e-16 * abs(tot):
            n += 1
            term *= x / n
            tot += term
        return tot * math.exp(lg)
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return 1 - math.exp(lg) * h


def chi2_quantile(p, df):
    """The p-quantile of the chi-square distribution of df degrees of freedom, by bisection on P(df / 2,
    x / 2)."""
    lo, hi = 0.0, max(1.0, 10.0 * df)
    while gammainc_lower(df / 2, hi / 2) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if gammainc_lower(df / 2, mid / 2) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def rms_range(df):
    """The 95% range of z's RMS over a family of df = m (k - 1) degrees of freedom when the model holds:
    sqrt(chi2_df(p) / df) at p = 0.025 and 0.975."""
    return math.sqrt(chi2_quantile(0.025, df) / df), math.sqrt(chi2_quantile(0.975, df) / df)


def block_series(db):
    """(label, replicate) -> the blocks' log-ratios of wall time (the compared run over its block's
    baseline run, both used: status ok, wall time above 0), as analyze pairs them (st_pairs.c)."""
    return by_label_replicate(
        db, "SELECT c.label, r1.replicate, ln(1.0 * r1.wall_ns / r0.wall_ns) FROM runs r1 JOIN runs r0 ON r0.block = "
        "r1.block AND r0.block_role = 0 AND r1.block_role = 1 JOIN cells c ON c.cell_id = r1.cell_id WHERE r1.round "
        ">= 1 AND r1.block > 0 AND r1.status = 'ok' AND r0.status = 'ok' AND r1.wall_ns > 0 AND r0.wall_ns > 0 "
        "ORDER BY r1.run_id")


def by_label_replicate(db, sql):
    """The rows (label, replicate, x) of the query sql on db (read only), as (label, replicate) -> [x]."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(sql).fetchall()
    con.close()
    d = {}
    for lab, r, x in rows:
        d.setdefault((lab, r), []).append(x)
    return d


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


def read_regress(path):
    """The timed fits of an analyze regress.csv by (workload, kind, metric, time_mode); {} when the file
    is missing (a sweep without fits) or has no cost_se column (from before it)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    if not rows or "cost_se" not in rows[0]:
        return {}
    return {(r["workload"], r["kind"], r["metric"], r.get("time_mode", "")): r for r in rows
            if r.get("level") in ("processes", "replicates")}


def fits_agreement(full_fits, rep_fits):
    """The per-sample costs over replicates (regress.csv at level replicates) recomputed from each
    replicate's own fits (its regress.csv: cost and cost_se, paired_cost and paired_cost_se, and on a
    wall-time time row norm_diff and norm_diff_se), pooled as analyze pools them (st_replicates.c,
    pool_fits: the between-replicate variance over a family of the fits of one kind, time mode and
    metric across workloads; the differences' families by time mode), combined by combine().  Returns
    (intervals compared, worst relative half-width difference, worst centre difference in half-widths,
    the disagreements, {quantity: (the RMS over pairs of replicates of (t_r - t_r') / sqrt(se_r^2 +
    se_r'^2), pairs)}: 1 when the bootstrap SEs are right and nothing varies between replicates)."""
    quantities = (("cost", "cost_se", lambda k: f"{k[1]}{'-' if k[3] else ''}{k[3]}/{k[2]}"),
                  ("paired_cost", "paired_cost_se", lambda k: f"{k[1]}{'-' if k[3] else ''}{k[3]}/{k[2]}"),
                  ("norm_diff", "norm_diff_se", lambda k: k[3]))
    bad, n, worst_h, worst_c, zrms = [], 0, 0.0, 0.0, {}
    for col, secol, famof in quantities:
        fams = {}
        for key, row in full_fits.items():
            if row.get("level") != "replicates" or num(row.get(col)) is None:
                continue
            if col == "norm_diff" and (key[1] != "time" or key[2] != "wall"):
                continue
            ests = []
            for rf in rep_fits:
                r = rf.get(key)
                e, se = (num(r.get(col)), num(r.get(secol))) if r else (None, None)
                if e is not None and se is not None and se > 0:
                    ests.append((e, se))
            if len(ests) >= 2:
                fams.setdefault(famof(key), {})[key] = ests
        zs = [(a - b) / math.sqrt(sa * sa + sb * sb) for cells in fams.values() for ests in cells.values()
              for i, (a, sa) in enumerate(ests) for b, sb in ests[i + 1:]]
        zrms[col] = (rms(zs), len(zs))
        for _, key, ests, (mu, lo, hi), _ in combined_by_family(fams):
            row = full_fits[key]
            a_lo, a_hi = num(row.get(col + "_lo")), num(row.get(col + "_hi"))
            name = f"{'/'.join(x for x in key if x)} {col}"
            if a_lo is None or a_hi is None or not a_lo < a_hi:
                bad.append(f"{name}: analyze has no interval over replicates, this script [{lo:.6g}, {hi:.6g}]")
                continue
            n += 1
            h, a_h = (hi - lo) / 2, (a_hi - a_lo) / 2
            rnd = 1e-5 * max(abs(a_lo), abs(a_hi)) / a_h  # analyze's 6 printed digits
            dh, dc = abs(h - a_h) / a_h, abs((lo + hi) / 2 - (a_lo + a_hi) / 2) / a_h
            worst_h, worst_c = max(worst_h, dh), max(worst_c, dc)
            if dh > TOL_HALF + rnd or dc > TOL_CENTRE + rnd:
                bad.append(f"{name}: this script [{lo:.6g}, {hi:.6g}], analyze [{a_lo:.6g}, {a_hi:.6g}]")
    return n, worst_h, worst_c, bad, zrms


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


def replicate_estimates(rep_rows, label, ses=None):
    """(log estimate, its block-level SE) of the paired ratio in each replicate, or None.  The SE is
    ses[(label, i)] (the kernel SE of replicate i's Hodges-Lehmann estimate, from its blocks) when
    ses is given, else (--csv) analyze's own of that estimate (the replicate's summary.csv paired_se),
    or for a summary.csv without that column the one its interval implies, log(hi / lo) / (2 x 1.959964)."""
    out = []
    for i, rows in enumerate(rep_rows):
        r = rows.get(label)
        if r is None:
            return None
        est, lo, hi = num(r["paired"]), num(r["paired_lo"]), num(r["paired_hi"])
        if est is None or lo is None or hi is None or not (0 < lo <= est <= hi) or hi == lo:
            return None
        if ses is not None:
            se = ses.get((label, i))
            if se is None or not se > 0:
                return None
        elif num(r.get("paired_se")) is not None and num(r["paired_se"]) > 0:
            se = num(r["paired_se"])  # analyze's own SE of the replicate (summary.csv paired_se)
        else:
            se = math.log(hi / lo) / (2 * Z)  # a summary.csv from before the paired_se column
        out.append((math.log(est), se))
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
    lo, hi = 0.0, max(se * se + t * t for c in cells for t, se in c)  # a start on the data's own scale
    while q(hi) > df:
        hi *= 4
        if hi > 1e300:
            return float("inf")
    for _ in range(200):
        mid = (lo + hi) / 2
        if q(mid) > df:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def check(full, rep_rows, ses=None):
    """Per family: pairs, z SD and RMS, observed and predicted share inside (two-level and blocks only)."""
    fams = {}
    skipped = []
    # Every cell's replicate estimates first, by analyze's family, for the
    # between-replicate SD from the family's other cells (out of sample).
    by_fam = {}
    for label, row in full.items():
        if row.get("pairs", "1") in ("", "0") or row.get("kind") == "sim" or "/sim/" in label:
            continue
        ests = replicate_estimates(rep_rows, label, ses)
        if ests is not None:
            by_fam.setdefault(family(row), {})[label] = ests
    for label, row in full.items():
        if row.get("pairs", "1") in ("", "0"):
            continue
        if row.get("kind") == "sim" or "/sim/" in label:
            continue
        ests = replicate_estimates(rep_rows, label, ses)
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
    return fams, skipped, by_fam


def f_sf(f, d1, d2):
    """P(F > f) for Fisher's F on d1 and d2 degrees of freedom."""
    if f <= 0:
        return 1.0
    return betainc(d2 / 2, d1 / 2, d2 / (d2 + d1 * f))


def shared_effect(cells):
    """Is a replicate's deviation shared by the cells of a family?  cells: cell -> [(est, se)] over the same
    k replicates.  Each cell's deviations from its own mean, d_cr = t_cr - mean_r t_cr, are divided by the
    cell's RMS SE (so cells of different noise weigh alike) and split into the replicate's main effect
    m_r = mean_c d_cr and the rest: F = [C sum_r m_r^2 / (k - 1)] / [sum_cr (d_cr - m_r)^2 / ((C - 1)(k - 1))]
    is Fisher's F on k - 1 and (C - 1)(k - 1) degrees of freedom when no deviation is shared (each cell's
    replicates independent of the other cells').  The shared SD on the log scale is the method-of-moments
    one of the same split unscaled, sqrt(max(0, (MS_rep - MS_rest) / C)).  Returns (C, k, F, p, shared SD,
    the rest's SD: sqrt(MS_rest), the cell-specific between-replicate spread plus the replicates' own noise),
    or None for fewer than 2 cells or replicates."""
    rows = [c for c in cells.values()]
    if not rows:
        return None
    k = len(rows[0])
    rows = [c for c in rows if len(c) == k]
    C = len(rows)
    if C < 2 or k < 2:
        return None

    def split(scale):
        d = []
        for c, s in zip(rows, scale):
            mu = sum(t for t, _ in c) / k
            d.append([(t - mu) / s for t, _ in c])
        m = [sum(d[i][r] for i in range(C)) / C for r in range(k)]
        ms_rep = C * sum(x * x for x in m) / (k - 1)
        ms_rest = sum((d[i][r] - m[r]) ** 2 for i in range(C) for r in range(k)) / ((C - 1) * (k - 1))
        return ms_rep, ms_rest

    scale = [math.sqrt(sum(se * se for _, se in c) / k) or 1.0 for c in rows]
    ms_rep, ms_rest = split(scale)
    f = ms_rep / ms_rest if ms_rest > 0 else float("inf")
    p = f_sf(f, k - 1, (C - 1) * (k - 1)) if math.isfinite(f) else 0.0
    raw_rep, raw_rest = split([1.0] * C)
    return C, k, f, p, math.sqrt(max(0.0, (raw_rep - raw_rest) / C)), math.sqrt(raw_rest)


REP_OWN = 5  # analyze's ST_REP_OWN: from this many replicates a cell's own between-replicate variance is used
# Agreement with analyze: the two compute the same numbers without resampling, so only analyze's 6 printed
# digits separate them.
TOL_HALF = 1e-4  # half-widths, relative, plus ...
TOL_LOG = 2e-5  # ... the rounding of its ends to 6 digits on the log scale (twice 5e-6)
TOL_CENTRE = 1e-4  # centres, in half-widths, plus TOL_LOG
TOL_SE_ONE = 1e-5  # one replicate's SE against analyze's paired_se, relative
TOL_G4 = 6e-4  # the within SE (RMS) and the family's between-replicate SD (printed to 4 digits), relative


def combined_by_family(fams):
    """Every cell of every family (fams: family -> {cell: [(est, se)]}) combined as analyze combines it:
    yields (family, cell, its ests, (est, lo, hi) by combine, the family's Paule-Mandel tau^2)."""
    for fam, cells in fams.items():
        t2f = pm_tau2(list(cells.values()))
        dff = sum(len(c) - 1 for c in cells.values())
        for key, ests in cells.items():
            yield fam, key, ests, combine(ests, t2f, dff), t2f


def combine(ests, tau2_family, df_family):
    """analyze's interval over replicates of one cell (st_levels.h): (est, lo, hi) on the log scale."""
    k = len(ests)
    if k >= REP_OWN or tau2_family is None or not math.isfinite(tau2_family):
        t2 = pm_tau2([ests])
        w = [1 / (se * se + t2) for _, se in ests]
        mu = sum(wi * t for wi, (t, _) in zip(w, ests)) / sum(w)
        qh = sum(wi * (t - mu) ** 2 for wi, (t, _) in zip(w, ests)) / (k - 1)
        se, df = math.sqrt(max(qh, 1.0) / sum(w)), k - 1
    else:
        # the family's pooled SD: equal weights, each replicate's variance se^2 + tau^2 (st_levels.h)
        mu = sum(t for t, _ in ests) / k
        se, df = math.sqrt(sum(e * e + tau2_family for _, e in ests)) / k, df_family
    h = t_quantile(1 - 0.025, df) * se
    return mu, mu - h, mu + h


def satterthwaite_df(ests, nblocks, tau2, df_family):
    """The degrees of freedom of the combined variance 1 / sum w_i, w_i = 1 / (se_i^2 + tau^2), when each
    se_i^2 is estimated from its replicate's n_i blocks (n_i - 1 degrees of freedom) and tau^2 from the
    family's df_family (Satterthwaite: the squared variance over the sum of its parts' squares over
    their degrees of freedom)."""
    w = [1 / (se * se + tau2) for _, se in ests]
    tot = sum(w)
    a = [(wi / tot) ** 2 for wi in w]
    var = sum(ai * (se * se + tau2) for ai, (_, se) in zip(a, ests))
    den = sum((ai * se * se) ** 2 / max(n - 1, 1) for ai, (_, se), n in zip(a, ests, nblocks))
    if tau2 > 0 and df_family:
        den += (sum(a) * tau2) ** 2 / df_family
    return var * var / den if den > 0 else df_family


# The candidate rules compared by --coverage (the first is analyze's).
VARIANTS = ("analyze", "bootstrap-SE", "equal-if-0", "inverse-variance", "df-blocks", "t-replicates")


def combine_variant(ests, tau2_family, df_family, nblocks, variant):
    """One cell's interval over replicates (est, lo, hi; log scale) by a candidate rule: analyze's
    (combine: the plain mean with SE sqrt(sum (se_i^2 + tau^2)) / k, no weights from estimated SEs);
    bootstrap-SE, analyze's rule with the bootstrap SEs (the caller passes those as ests); equal-if-0,
    analyze's rule before: equal weights only where the family's tau is estimated 0, weights 1 / (se_i^2
    + tau^2) where it is positive; inverse-variance, those weights also where tau is 0 (the rule before
    that); df-blocks, inverse-variance with t's degrees of freedom min(the family's, Satterthwaite's
    from the replicates' blocks and the family's); t-replicates, inverse-variance with t of k - 1
    degrees of freedom."""
    k = len(ests)
    if variant in ("analyze", "bootstrap-SE") or k >= REP_OWN or tau2_family is None or not math.isfinite(tau2_family):
        return combine(ests, tau2_family, df_family)
    df = df_family
    if variant == "equal-if-0" and tau2_family == 0:
        mu = sum(t for t, _ in ests) / k
        se = math.sqrt(sum(e * e for _, e in ests)) / k
    else:
        if variant == "df-blocks":
            df = min(df_family, satterthwaite_df(ests, nblocks, tau2_family, df_family))
        if variant == "t-replicates":
            df = k - 1
        w = [1 / (e * e + tau2_family) for _, e in ests]
        mu = sum(wi * t for wi, (t, _) in zip(w, ests)) / sum(w)
        se = math.sqrt(1 / sum(w))
    h = t_quantile(1 - 0.025, df) * se
    return mu, mu - h, mu + h


def agreement(full, rep_rows, series, ses, reps):
    """This script's recomputation against analyze, where they compute the same thing: each replicate's
    Hodges-Lehmann estimate from its blocks in results.db against the replicate's summary.csv (to its
    6 printed digits), each replicate's kernel SE against its paired_se and their RMS against
    rep_paired_within, each
    family's pooled between-replicate SD against rep_paired_tau_family, and the cell's interval over
    replicates (the random-effects combination) against the sweep's paired, paired_lo, paired_hi.
    Returns (cells compared, worst relative half-width difference, worst centre difference in
    half-widths, worst relative within-SE difference, the disagreements)."""
    bad, by_fam = [], {}
    for label, row in full.items():
        if row.get("pairs", "1") in ("", "0") or row.get("kind") == "sim" or "/sim/" in label:
            continue
        ests = []
        for i, r in enumerate(reps):
            v, rr = series.get((label, r)), rep_rows[i].get(label)
            if not v or rr is None or num(rr["paired"]) is None:
                ests = None
                break
            t = hl(v)
            if abs(math.exp(t) - num(rr["paired"])) > 1e-5 * num(rr["paired"]) + 1e-12:
                bad.append(f"{label} replicate {r}: Hodges-Lehmann of its {len(v)} blocks {math.exp(t):.6g}, "
                           f"analyze {rr['paired']}")
            if ses.get((label, i)) is None:
                ests = None
                break
            a_se = num(rr.get("paired_se"))
            if a_se is None or abs(a_se - ses[(label, i)]) > TOL_SE_ONE * ses[(label, i)]:
                bad.append(f"{label} replicate {r}: kernel SE of its Hodges-Lehmann estimate "
                           f"{ses[(label, i)]:.4g} here, analyze's paired_se {rr.get('paired_se')}")
            ests.append((t, ses[(label, i)]))
        if ests and len(ests) >= 2:
            by_fam.setdefault(family(row), {})[label] = ests
    n, worst_h, worst_c, worst_w = 0, 0.0, 0.0, 0.0
    for fam, label, ests, (mu, lo, hi), t2f in combined_by_family(by_fam):
        row = full[label]
        a_lo, a_hi, a_tf = num(row["paired_lo"]), num(row["paired_hi"]), num(row.get("rep_paired_tau_family"))
        a_w = num(row.get("rep_paired_within"))
        if a_lo is None or a_hi is None or not 0 < a_lo < a_hi:
            bad.append(f"{label}: analyze has no interval over replicates, this script [{math.exp(lo):.6g}, "
                       f"{math.exp(hi):.6g}]")
            continue
        n += 1
        h, a_h = (hi - lo) / 2, math.log(a_hi / a_lo) / 2
        dh = abs(h - a_h) / a_h
        dc = abs((lo + hi) / 2 - math.log(a_hi * a_lo) / 2) / a_h
        w = math.sqrt(sum(se * se for _, se in ests) / len(ests))
        dw = abs(w - a_w) / a_w if a_w else float("inf")
        worst_h, worst_c, worst_w = max(worst_h, dh), max(worst_c, dc), max(worst_w, dw)
        if dh > TOL_HALF + TOL_LOG / a_h or dc > TOL_CENTRE + TOL_LOG / a_h or dw > TOL_G4:
            bad.append(f"{label}: this script [{math.exp(lo):.6g}, {math.exp(hi):.6g}] within SE {w:.4g}, "
                       f"analyze [{a_lo:.6g}, {a_hi:.6g}] within SE {a_w}")
        if len(ests) < REP_OWN and a_tf is not None:
            tf = math.sqrt(t2f)
            if abs(tf - a_tf) > TOL_G4 * max(tf, a_tf) + 1e-6:
                bad.append(f"{label}: family {fam}'s between-replicate SD {tf:.4g} here, analyze {a_tf:.4g}")
    return n, worst_h, worst_c, worst_w, bad


def sd(v):
    if len(v) < 2:
        return float("nan")
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def rms(v):
    return math.sqrt(sum(x * x for x in v) / len(v)) if v else float("nan")


def fmt(x, d=3):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def table(fams, k, se_kind):
    out = []
    what = ("the kernel SE of its Hodges-Lehmann estimate over its blocks" if se_kind == "kernel" else
            "analyze's SE of it (summary.csv paired_se), or where a summary.csv lacks that column "
            "the SE its interval implies, log(hi / lo) / (2 x 1.96)")
    out.append(f"Replicates: {k}. z and shares of the paired ratio (log scale); two-level: each replicate's "
               f"block-level SE ({what}) with the between-replicate SD the sweep's interval used; blocks: without "
               "it.")
    out.append("")
    out.append("| family | cells | pairs | z SD about 0 (two-level) | in [0.8, 1.2] | RMS range (model, 95%) | "
               "z SD about its mean | "
               "inside (two-level) | predicted | within 3 points | z SD about 0 (blocks only) | "
               "inside / predicted (blocks only) | z SD about 0, inside / predicted (tau from the family's other "
               "cells) | between-replicate SD (family) [Q-profile 95%] | the same by this script | "
               "within SE (RMS) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    met_sd = met_share = total = in_range = 0
    for fam in sorted(fams):
        f = fams[fam]
        z2, z0 = f["z2"], f["z0"]
        s2 = rms(z2)
        inside, pred = 100 * sum(f["in2"]) / len(f["in2"]), 100 * sum(f["p2"]) / len(f["p2"])
        in0, p0 = 100 * sum(f["in0"]) / len(f["in0"]), 100 * sum(f["p0"]) / len(f["p0"])
        ok_sd = 0.8 <= s2 <= 1.2
        ok_sh = abs(inside - pred) <= 3
        k_rep = (1 + math.sqrt(1 + 8 * len(z2) / f["cells"])) / 2  # pairs per cell = k (k - 1) / 2
        r_lo, r_hi = rms_range(f["cells"] * (k_rep - 1))
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
            in_range += r_lo <= s2 <= r_hi
            comp = (f"{fmt(num(row.get('rep_paired_tau_family')), 4)} [{fmt(num(row.get('rep_paired_tau_lo')), 4)}, "
                    f"{fmt(num(row.get('rep_paired_tau_hi')), 4)}]")
        else:
            comp = "(time sampler's cells of the family above)"
        out.append(f"| {fam} | {f['cells']} | {len(z2)} | {fmt(s2)} | {'yes' if ok_sd else 'no'} | "
                   f"[{r_lo:.2f}, {r_hi:.2f}] | {fmt(sd(z2))} | "
                   f"{inside:.1f}% | {pred:.1f}% | {'yes' if ok_sh else 'no'} | {fmt(rms(z0))} | "
                   f"{in0:.1f}% / {p0:.1f}% | {oos} | {comp} | {fmt(f['pm'], 4) if f['pm'] is not None else ''} | "
                   f"{fmt(num(row.get('rep_paired_within')), 4)} |")
    out.append("")
    out.append(f"Targets met (analyze's {total} families): z SD within [0.8, 1.2] in {met_sd} of {total}; "
               f"share inside within 3 points of the prediction in {met_share} of {total}; z's RMS inside the "
               f"range the model gives it in {in_range} of {total}.")
    return "\n".join(out)


def shared_table(by_fam, full):
    """The shared replicate effect per family (shared_effect), analyze's families and the time cells by
    time sampler."""
    groups = {}
    for fam, cells in by_fam.items():
        groups[fam] = cells
        for label, ests in cells.items():
            mf = mode_family(full[label])
            if mf is not None:
                groups.setdefault(mf, {})[label] = ests
    out = ["", "A replicate's deviation shared by its family's cells (shared_effect: the replicates' paired "
           "log-ratios, each cell's deviations from its mean over its RMS SE, split into the replicate's mean "
           "over the cells and the rest; F on k - 1 and (C - 1)(k - 1) degrees of freedom when nothing is "
           "shared; the SDs on the log scale, unscaled):", "",
           "| shared: family | cells | replicates | F | p | shared SD | the rest's SD | between-replicate SD (family, "
           "Paule-Mandel) |", "|---|---|---|---|---|---|---|---|"]
    for fam in sorted(groups):
        r = shared_effect(groups[fam])
        if r is None:
            continue
        C, k, f, p, su, sr = r
        tau = math.sqrt(pm_tau2(list(groups[fam].values())))
        out.append(f"| shared {fam} | {C} | {k} | {fmt(f, 2)} | {p:.3g} | {fmt(su, 4)} | {fmt(sr, 4)} | "
                   f"{fmt(tau, 4)} |")
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
    db, reps, _ = replicated_sweep(sweep)
    full = os.path.join(sweep, "summary.csv")
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
        return full, reps, [read_summary(p) for p in paths], [read_regress(os.path.join(os.path.dirname(p),
                                                                                        "regress.csv"))
                                                              for p in paths]
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def hodges_lehmann(v):
    w = sorted((v[i] + v[j]) / 2 for i in range(len(v)) for j in range(i, len(v)))
    n = len(w)
    return w[n // 2] if n % 2 else (w[n // 2 - 1] + w[n // 2]) / 2


def pattern_check(db):
    """A pattern that repeats inside every replicate, per workload: each block's wall-time log-ratio minus
    its cell's mean in its replicate, over that SD; one-way F of those over the rounds (k groups, N - k
    degrees of freedom), and the difference of their means between the blocks whose compared run went
    first and those whose baseline run did (pooled two-sample t).  Returns the Markdown lines."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT c.workload, c.label, r1.replicate, r1.round, r1.block_pos, ln(1.0 * r1.wall_ns / r0.wall_ns) "
        "FROM runs r1 JOIN runs r0 ON r0.block = r1.block AND r0.block_role = 0 AND r1.block_role = 1 "
        "JOIN cells c ON c.cell_id = r1.cell_id WHERE r1.round >= 1 AND r1.block > 0 AND r1.status = 'ok' "
        "AND r0.status = 'ok' AND r1.wall_ns > 0 AND r0.wall_ns > 0").fetchall()
    con.close()
    by = {}
    for w, lab, rep, rnd, pos, x in rows:
        by.setdefault(w, {}).setdefault((lab, rep), []).append((rnd, pos, x))
    out = ["", "A pattern inside every replicate (pattern_check: each block's log-ratio minus its cell's mean in its "
           "replicate, over that SD; F over the rounds; the compared run first against second, pooled t):", "",
           "| workload | blocks | rounds | F (rounds) | p | first minus second (SDs) | t | p |",
           "|---|---|---|---|---|---|---|---|"]
    for w in sorted(by):
        groups, order = {}, {1: [], 2: []}
        for v in by[w].values():
            if len(v) < 3:
                continue
            xs = [x for _, _, x in v]
            m, sdv = sum(xs) / len(xs), sd(xs)
            if not sdv > 0:
                continue
            for rnd, pos, x in v:
                groups.setdefault(rnd, []).append((x - m) / sdv)
                if pos in order:
                    order[pos].append((x - m) / sdv)
        allv = [a for g in groups.values() for a in g]
        n, k = len(allv), len(groups)
        if k < 2 or n <= k or len(order[1]) < 2 or len(order[2]) < 2:
            continue
        gm = sum(allv) / n
        ssb = sum(len(g) * (sum(g) / len(g) - gm) ** 2 for g in groups.values())
        ssw = sum((a - sum(g) / len(g)) ** 2 for g in groups.values() for a in g)
        f = (ssb / (k - 1)) / (ssw / (n - k)) if ssw > 0 else float("inf")
        a, b = order[1], order[2]
        ma, mb = sum(a) / len(a), sum(b) / len(b)
        sp = math.sqrt((sum((x - ma) ** 2 for x in a) + sum((x - mb) ** 2 for x in b)) / (len(a) + len(b) - 2))
        t = (ma - mb) / (sp * math.sqrt(1 / len(a) + 1 / len(b))) if sp > 0 else 0.0
        pt = 2 * (1 - t_cdf(abs(t), len(a) + len(b) - 2))
        out.append(f"| {w} | {n} | {k} | {fmt(f, 2)} | {f_sf(f, k - 1, n - k):.3g} | {fmt(ma - mb, 4)} | "
                   f"{fmt(t, 2)} | {pt:.3g} |")
    return out


def estimator_check(db, rep_rows, ses):
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
    ratio_mean, var_hl, var_mean, se_ratio, boot_ratio = [], [], [], [], []
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
            if ses.get((lab, i)):
                boot_ratio.append(ses[(lab, i)] / math.sqrt(se2[i]))
    if not ratio_mean:
        return ""
    se_ratio.sort()
    boot_ratio.sort()
    med = se_ratio[len(se_ratio) // 2] if se_ratio else float("nan")
    bmed = boot_ratio[len(boot_ratio) // 2] if boot_ratio else float("nan")
    hl_eff = sum(var_hl) / sum(var_mean)
    return (f"\nThe estimators ({len(ratio_mean)} cells, the blocks' wall-time log-ratios in results.db): the "
            f"between-replicate variance of the replicates' block means over their mean SD^2 / n: "
            f"{sum(ratio_mean) / len(ratio_mean):.3f} on average (1 when the replicates are independent and that SE "
            f"is right); the Hodges-Lehmann estimates vary between replicates with {hl_eff:.3f} times the means' "
            f"variance; the SE read off each replicate's interval is {med:.3f} times its means' SE (median of "
            f"{len(se_ratio)}); so that SE squared is about {med * med / hl_eff:.2f} times the variance of the "
            f"estimate it goes with, and z's SD should be about {math.sqrt(hl_eff) / med:.2f} when nothing "
            f"varies between replicates.  The kernel SE of the Hodges-Lehmann estimate (what the z above "
            f"use) is {bmed:.3f} times the means' SE (median of {len(boot_ratio)}): z's SD about "
            f"{math.sqrt(hl_eff) / bmed:.2f} by the same reckoning.")


def pseudo_median(v):
    """The Hodges-Lehmann estimand of the empirical distribution of v: the median of (X + X') / 2 over
    all n^2 ordered pairs of independent draws (what a replicate resampled from v estimates)."""
    w = sorted(a + b for a in v for b in v)
    n = len(w)
    return w[n // 2] / 2 if n % 2 else (w[n // 2 - 1] + w[n // 2]) / 4


def judge(ests, bests, nblocks, cov):
    """Adds to cov[variant] the intervals of the family's cells ests (label -> [(est, kernel SE)]) that
    cover 0, by each rule; bests the same with the bootstrap SEs, for bootstrap-SE."""
    fam = {}
    for name, by in (("kernel", ests), ("bootstrap", bests)):
        fam[name] = (pm_tau2(list(by.values())), sum(len(c) - 1 for c in by.values()))
    for label, e in ests.items():
        for v in VARIANTS:
            src = "bootstrap" if v == "bootstrap-SE" else "kernel"
            t2f, dff = fam[src]
            _, lo, hi = combine_variant((bests if src == "bootstrap" else ests)[label], t2f, dff, nblocks(label), v)
            cov[v] += lo <= 0 <= hi


def smooth_draw(src, rng):
    """One draw from the kernel density estimate of src with Silverman's bandwidth h (as hl_kernel_se's),
    shrunk towards src's mean by 1 / sqrt(1 + h^2 / s^2) so that its variance is src's (s^2): the smoothed
    bootstrap."""
    n = len(src)
    m = sum(src) / n
    s = math.sqrt(sum((a - m) ** 2 for a in src) / (n - 1))
    srt = sorted(src)
    iqr = (quantile7(srt, 0.75) - quantile7(srt, 0.25)) / 1.3489795003921634
    h = 0.9 * (iqr if 0 < iqr < s else s) * n ** -0.2
    c = 1 / math.sqrt(1 + h * h / (s * s)) if s > 0 else 1
    return m + (src[rng.randrange(n)] - m + h * rng.gauss(0, 1)) * c


def coverage(full, series, ids, experiments, resamples, seed, smooth=False, centred=None, draw=None):
    """The coverage of analyze's interval over replicates under this sweep's own noise: per family and
    experiment, K synthetic replicates, each one of the observed replicates drawn with replacement (the
    same one for every cell of the family: a replicate's deviation is shared by its cells), each cell's
    blocks drawn with replacement from that replicate's blocks of the cell, centred so that the mean
    over the observed replicates of their Hodges-Lehmann estimands is 0; each synthetic replicate's HL
    and kernel SE, the family's Paule-Mandel SD and the interval as analyze combines them (combine),
    and by each candidate rule (combine_variant; bootstrap-SE: the bootstrap SE of `resamples`
    resamples in place of the kernel one).  smooth: each block drawn by smooth_draw instead.
    centred: None for that world, whose between-replicate spread is the observed replicates' spread, which
    holds their own estimation noise (the spread of k observed estimates is about tau^2 + se^2, not tau^2,
    and a draw of the same observed replicate k times, 1 in k^(k-1), leaves that deviation with no spread
    to show it); else "family", "hi" or a number: each observed replicate's blocks of a cell centred at
    their own Hodges-Lehmann estimand, and each synthetic replicate shifted by one N(0, tau^2) shared by
    the family's cells, tau the family's between-replicate SD as analyze estimated it
    (rep_paired_tau_family), its Q-profile upper bound (rep_paired_tau_hi) or the number.
    draw: None for as many synthetic replicates as observed, drawn with replacement; else that many
    (fewer than observed), distinct observed replicates drawn without replacement (so none is repeated:
    from a sweep of 8 replicates, the 3-replicate intervals analyze gives a sweep of 3).  Returns
    {family: {variant: (covered, judged)}}."""
    rng = random.Random(seed)
    cells, taus = {}, {}
    for label, row in full.items():
        if row.get("pairs", "1") in ("", "0") or row.get("kind") == "sim" or "/sim/" in label:
            continue
        xs = [series.get((label, r)) for r in ids]
        if any(not x or len(x) < 3 for x in xs):
            continue
        if centred is None:
            t = sum(pseudo_median(x) for x in xs) / len(xs)
            xs = [[v - t for v in x] for x in xs]
        else:
            xs = [[v - pseudo_median(x) for v in x] for x in xs]
            if centred in ("family", "hi"):
                tf = num(row.get("rep_paired_tau_family" if centred == "family" else "rep_paired_tau_hi"))
                if tf is None or not math.isfinite(tf):
                    die(f"{label}: no rep_paired_tau_{'family' if centred == 'family' else 'hi'} in summary.csv")
                taus.setdefault(family(row), tf)
            else:
                taus.setdefault(family(row), centred)
        cells.setdefault(family(row), {})[label] = xs
    out = {}
    k = len(ids)
    for fam in sorted(cells):
        cov, judged = {v: 0 for v in VARIANTS}, 0
        for _ in range(experiments):
            pick = [rng.randrange(k) for _ in range(k)] if draw is None else rng.sample(range(k), draw)
            shift = [rng.gauss(0, taus[fam]) if centred is not None else 0.0 for _ in pick]
            ests, bests = {}, {}
            for label, xs in cells[fam].items():
                e, eb = [], []
                for r, sh in zip(pick, shift):
                    if smooth:
                        x = [sh + smooth_draw(xs[r], rng) for _ in range(len(xs[r]))]
                    else:
                        x = [sh + xs[r][rng.randrange(len(xs[r]))] for _ in range(len(xs[r]))]
                    e.append((hl(x), hl_kernel_se(x)))
                    eb.append((e[-1][0], hl_boot_se(x, resamples, rng)))
                if all(se and se > 0 for _, se in e + eb):
                    ests[label], bests[label] = e, eb
            judge(ests, bests, lambda label: [len(cells[fam][label][r]) for r in pick], cov)
            judged += len(ests)
        out[fam] = {v: (cov[v], judged) for v in VARIANTS}
    return out


def run_walls(db):
    """(label, replicate) -> the log wall times of the measured runs (round >= 1, status ok, wall time above
    0) of every cell, as analyze's unpaired statistics take them."""
    return by_label_replicate(db, "SELECT c.label, r.replicate, ln(r.wall_ns) FROM runs r JOIN cells c ON c.cell_id "
                              "= r.cell_id WHERE r.round >= 1 AND r.status = 'ok' AND r.wall_ns > 0 ORDER BY r.run_id")


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def median_boot_se(x, y, resamples, rng):
    """analyze's SE of the log overhead log(median x / median y) of one replicate (st_unpaired_se): the SD
    of the statistic over resamples drawing x's runs and then y's whole with replacement, times
    sqrt(m / (m - 1)), m the smaller group (x, y: log wall times)."""
    n, nb = len(x), len(y)
    t = []
    for _ in range(resamples):
        t.append(median([x[rng.randrange(n)] for _ in range(n)]) - median([y[rng.randrange(nb)] for _ in range(nb)]))
    m = min(n, nb)
    return sd(t) * math.sqrt(m / (m - 1))


def median_kernel_se(v):
    """The asymptotic SE of a median, 1 / (2 fhat(median) sqrt(n)), fhat the Gaussian kernel density
    estimate of v with Silverman's bandwidth (as hl_kernel_se's)."""
    n = len(v)
    h = silverman_h(v)
    if not h > 0:
        return 0.0
    md = median(v)
    f = sum(math.exp(-0.5 * ((md - a) / h) ** 2) for a in v) / (n * h * math.sqrt(2 * math.pi))
    return 1 / (2 * f * math.sqrt(n))


def median_mad_se(v):
    """The normal-theory SE of a median from the MAD: sqrt(pi / 2) x 1.4826 MAD / sqrt(n)."""
    md = median(v)
    return math.sqrt(math.pi / 2) * 1.482602218505602 * median([abs(a - md) for a in v]) / math.sqrt(len(v))


UNPAIRED_SE = ("bootstrap", "kernel", "mad")


def unpaired_se_bench(full, walls, ids, splits, resamples, seed):
    """Which SE of a replicate's unpaired overhead (log median ratio of wall times, the cell's runs against
    its baseline's) is right on this sweep's runs: for every cell with 3 or more runs on both sides in
    every replicate, z = (t_a - t_b) / sqrt(se_a^2 + se_b^2) over pairs of the actual replicates and over
    pairs of `splits` random splits of the cell's runs and its baseline's, each pooled over the replicates
    and cut into groups of the replicates' sizes (nothing between two such groups but the runs' own
    noise).  Candidates: bootstrap (analyze's, st_unpaired_se), kernel (median_kernel_se on each side),
    mad (median_mad_se on each side).  Returns {family: {candidate: [z2 actual, pairs, z2 splits, pairs]},
    cells}."""
    rng = random.Random(seed)
    out, cells = {}, 0

    def ses(x, y):
        return {"bootstrap": median_boot_se(x, y, resamples, rng),
                "kernel": math.hypot(median_kernel_se(x), median_kernel_se(y)),
                "mad": math.hypot(median_mad_se(x), median_mad_se(y))}

    def add(acc, groups, col):
        est = [(median(x) - median(y), ses(x, y)) for x, y in groups]
        for a in range(len(est)):
            for b in range(a + 1, len(est)):
                for c in UNPAIRED_SE:
                    v = est[a][1][c] ** 2 + est[b][1][c] ** 2
                    if v > 0:
                        acc[c][col] += (est[a][0] - est[b][0]) ** 2 / v
                        acc[c][col + 1] += 1

    for label in sorted(full):
        row = full[label]
        base = row.get("baseline")
        if row.get("kind") in ("baseline", "sim") or "/sim/" in label or not base or base == label:
            continue
        xs = [walls.get((label, r)) for r in ids]
        ys = [walls.get((base, r)) for r in ids]
        if any(not x or len(x) < 3 for x in xs) or any(not y or len(y) < 3 for y in ys):
            continue
        cells += 1
        acc = out.setdefault(family(row), {c: [0.0, 0, 0.0, 0] for c in UNPAIRED_SE})
        add(acc, list(zip(xs, ys)), 0)
        px, py = [a for x in xs for a in x], [a for y in ys for a in y]
        for _ in range(splits):
            rng.shuffle(px)
            rng.shuffle(py)
            gx, gy, i, j = [], [], 0, 0
            for x, y in zip(xs, ys):
                gx.append(px[i:i + len(x)])
                gy.append(py[j:j + len(y)])
                i, j = i + len(x), j + len(y)
            add(acc, list(zip(gx, gy)), 2)
    return out, cells


def synthetic_coverage(experiments, resamples, seed, dist, tau, sd=0.10, k=3, n=12, cells=8):
    """The same coverage on synthetic families (not this machine's data): cells cells of k replicates
    of n blocks, block noise normal or t with 3 degrees of freedom (scaled to SD sd), each replicate
    shifted by N(0, tau^2) shared by the family's cells (as a replicate's deviation is), true value 0.
    Returns {variant: (covered, judged)}."""
    rng = random.Random(seed)
    cov, judged = {v: 0 for v in VARIANTS}, 0

    def noise():
        if dist == "normal":
            return rng.gauss(0, sd)
        z = rng.gauss(0, 1) / math.sqrt(sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3)
        return z * sd / math.sqrt(3)  # t3 has variance 3

    for _ in range(experiments):
        shift = [rng.gauss(0, tau) for _ in range(k)]
        ests, bests = {}, {}
        for c in range(cells):
            e, eb = [], []
            for r in range(k):
                x = [shift[r] + noise() for _ in range(n)]
                e.append((hl(x), hl_kernel_se(x)))
                eb.append((e[-1][0], hl_boot_se(x, resamples, rng)))
            if all(se and se > 0 for _, se in e + eb):
                ests[c], bests[c] = e, eb
        judge(ests, bests, lambda c: [n] * k, cov)
        judged += len(ests)
    return {v: (cov[v], judged) for v in VARIANTS}


def replicated_sweep(sweep):
    """A replicated sweep directory's results.db path, its replicate ids (2 or more) and its summary.csv
    rows; exit 2 otherwise."""
    db = os.path.join(sweep, "results.db")
    if not os.path.isfile(db):
        die(f"{sweep}: no results.db: give a sweep directory")
    full = os.path.join(sweep, "summary.csv")
    if not os.path.isfile(full):
        die(f"{full}: missing: run build/bin/analyze {sweep} first")
    ids = replicates_of(db)
    if len(ids) < 2:
        die(f"{db}: {len(ids)} replicate(s): the check needs 2 or more")
    return db, ids, read_summary(full)


def two_counts(argv, i, names, least):
    """The two whole numbers after option argv[i] (names: what they are, for the message), the first at
    least 1 and the second at least 2 (least says so); exit 2 otherwise."""
    opt = argv[i]
    if i + 2 >= len(argv):
        die(f"{opt} needs {names}")
    try:
        a, b = int(argv[i + 1]), int(argv[i + 2])
    except ValueError:
        die(f"{opt} {argv[i + 1]} {argv[i + 2]}: not whole numbers")
    if a < 1 or b < 2:
        die(f"{opt}: at least {least}")
    return a, b


def main(argv):
    analyze, resamples, keep, csvs, sweep, extra = "build/bin/analyze", 10000, None, None, None, ""
    cov_args, smooth, centred, draw, up_args = None, False, None, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a == "--csv":
            csvs = argv[i + 1:]
            break
        if a == "--coverage-synthetic":
            e, b = two_counts(argv, i, "EXPERIMENTS and SE_RESAMPLES", "1 experiment and 2 resamples")
            print(f"Coverage of the interval over replicates (95%) on synthetic families (8 cells x 3 replicates x "
                  f"12 blocks, block SD 0.10, {e} experiments each, SEs from {b} resamples):\n")
            print("| noise | tau | intervals | " + " | ".join(VARIANTS) + " |")
            print("|---|---|---|" + "---|" * len(VARIANTS))
            for dist in ("normal", "t3"):
                for tau in (0.0, 0.01, 0.03):
                    res = synthetic_coverage(e, b, SE_SEED, dist, tau)
                    j = res[VARIANTS[0]][1]
                    print(f"| {dist} | {tau} | {j} | " + " | ".join(f"{res[v][0] / j:.3f}" for v in VARIANTS) + " |",
                          flush=True)
            return 0
        if a == "--coverage":
            cov_args = two_counts(argv, i, "EXPERIMENTS and SE_RESAMPLES", "1 experiment and 2 resamples")
            i += 3
            continue
        if a == "--unpaired-se":
            up_args = two_counts(argv, i, "SPLITS and RESAMPLES", "1 split and 2 resamples")
            i += 3
            continue
        if a == "--smooth":
            smooth = True
            i += 1
            continue
        if a == "--draw":
            if i + 1 >= len(argv):
                die("--draw needs a number of replicates")
            try:
                draw = int(argv[i + 1])
            except ValueError:
                die(f"--draw {argv[i + 1]}: not a whole number")
            if draw < 2:
                die(f"--draw {draw}: at least 2 replicates")
            i += 2
            continue
        if a == "--centred":
            if i + 1 >= len(argv):
                die("--centred needs family, hi or a between-replicate SD (log scale)")
            centred = argv[i + 1]
            if centred not in ("family", "hi"):
                try:
                    centred = float(centred)
                except ValueError:
                    die(f"--centred {centred}: not family, hi or a number")
                if not (math.isfinite(centred) and centred >= 0):
                    die(f"--centred {argv[i + 1]}: a between-replicate SD is a finite number >= 0")
            i += 2
            continue
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
    if (smooth or centred is not None or draw is not None) and cov_args is None:
        die("--smooth, --centred and --draw go with --coverage")
    if up_args is not None:
        if not sweep or csvs is not None or cov_args is not None:
            die("--unpaired-se needs a sweep directory (its results.db and summary.csv), without --coverage")
        db, ids, full = replicated_sweep(sweep)
        res, ncells = unpaired_se_bench(full, run_walls(db), ids, up_args[0], up_args[1], SE_SEED)
        if not ncells:
            die("no cell has 3 or more runs and baseline runs in every replicate")
        print(f"The SE of a replicate's unpaired overhead (log of the ratio of the medians of wall time), {ncells} "
              f"cells, {len(ids)} replicates, {up_args[0]} random splits of each cell's runs and its baseline's, "
              f"bootstrap SEs from {up_args[1]} resamples: z's RMS over pairs (1 when the SE is right; the actual "
              "replicates' also holds their between-replicate variance):\n")
        print("| family | " + " | ".join(f"{c}: actual | {c}: splits" for c in UNPAIRED_SE) + " |")
        print("|---|" + "---|---|" * len(UNPAIRED_SE))
        tot = {c: [0.0, 0, 0.0, 0] for c in UNPAIRED_SE}
        for fam in sorted(res):
            cols = []
            for c in UNPAIRED_SE:
                a = res[fam][c]
                for j in range(4):
                    tot[c][j] += a[j]
                cols += [fmt(math.sqrt(a[0] / a[1]) if a[1] else None), fmt(math.sqrt(a[2] / a[3]) if a[3] else None)]
            print(f"| {fam} | " + " | ".join(cols) + " |")
        print("| all | " + " | ".join(f"{fmt(math.sqrt(t[0] / t[1]) if t[1] else None)} | "
                                     f"{fmt(math.sqrt(t[2] / t[3]) if t[3] else None)}" for t in tot.values()) + " |")
        return 0
    if cov_args is not None:
        if not sweep or csvs is not None:
            die("--coverage needs a sweep directory (its results.db and summary.csv)")
        db, ids, full = replicated_sweep(sweep)
        if draw is not None and draw >= len(ids):
            die(f"--draw {draw}: fewer than the sweep's {len(ids)} replicates")
        res = coverage(full, block_series(db), ids, cov_args[0], cov_args[1], SE_SEED, smooth, centred, draw)
        tau_what = {"family": "the family SD analyze estimated", "hi": "its Q-profile upper bound"}
        world = ("the observed replicates' own centres" if centred is None else
                 "each replicate's blocks centred, replicates shifted by N(0, tau^2) shared by the family, tau "
                 f"{tau_what.get(centred, centred)}")
        drawn = (f"{draw} distinct replicates of {len(ids)} drawn" if draw else
                 "as many replicates drawn with replacement")
        print(f"Coverage of the interval over replicates (95%), {cov_args[0]} experiments per family, blocks "
              f"{'from the kernel density estimate (--smooth)' if smooth else 'resampled with replacement'}, "
              f"between replicates {world}, {drawn}, "
              f"bootstrap SEs from {cov_args[1]} resamples; by rule (analyze's first, then the candidates of "
              "combine_variant):\n")
        print("| family | intervals | " + " | ".join(VARIANTS) + " |")
        print("|---|---|" + "---|" * len(VARIANTS))
        tot = {v: [0, 0] for v in VARIANTS}
        for fam, byv in res.items():
            j = byv[VARIANTS[0]][1]
            for v in VARIANTS:
                tot[v][0] += byv[v][0]
                tot[v][1] += byv[v][1]
            print(f"| {fam} | {j} | " + " | ".join(f"{byv[v][0] / j:.3f}" for v in VARIANTS) + " |")
        print(f"| all | {tot[VARIANTS[0]][1]} | " + " | ".join(f"{tot[v][0] / tot[v][1]:.3f}" for v in VARIANTS)
              + " |")
        return 0
    if csvs is not None:
        if len(csvs) < 3:
            die("--csv FULL.csv REP0.csv REP1.csv [...]: the whole sweep's summary.csv and 2 or more replicates'")
        full = read_summary(csvs[0])
        reps = [read_summary(p) for p in csvs[1:]]
        ses, agree, fit_agree = None, None, None
    elif sweep:
        fullp, ids, reps, rep_fits = analyse_replicates(sweep, analyze, resamples, keep)
        fit_agree = fits_agreement(read_regress(os.path.join(sweep, "regress.csv")), rep_fits)
        full = read_summary(fullp)
        db = os.path.join(sweep, "results.db")
        series = block_series(db)
        ses = {}
        for label in sorted(full):
            for i, r in enumerate(ids):
                v = series.get((label, r))
                if v and len(v) >= 3:
                    ses[(label, i)] = hl_kernel_se(v)
        agree = agreement(full, reps, series, ses, ids)
        extra = estimator_check(db, reps, ses) + "\n".join(pattern_check(db))
    else:
        die("give a sweep directory or --csv FULL.csv REP0.csv REP1.csv (see --help)")
    fams, skipped, by_fam = check(full, reps, ses)
    if not fams:
        die("no cell has a paired ratio with an interval in every replicate and a between-replicate SD")
    print(table(fams, len(reps), "kernel" if ses is not None else "interval"))
    print(shared_table(by_fam, full))
    if extra:
        print(extra)
    if agree is not None:
        n, wh, wc, ww, bad = agree
        print(f"\nAgreement with analyze ({n} cells' intervals over replicates recomputed here from the blocks in "
              f"results.db, the replicates' kernel SEs computed here): half-widths within {100 * wh:.4f}% "
              f"(tolerance {100 * TOL_HALF:.2g}% plus the rounding of analyze's 6 digits), centres within {wc:.2g} "
              f"half-widths, within-replicate SEs (RMS) within {100 * ww:.4f}%; {len(bad)} disagreements.")
        for b in bad[:20]:
            print(f"  disagrees: {b}")
        fn, fh, fc, fbad, fz = fit_agree
        if fn or fbad:
            print(f"\nAgreement with analyze on the per-sample costs ({fn} intervals over replicates of regress.csv: "
                  f"costs, pairs costs and allocation-vs-time differences, recomputed here from each replicate's "
                  f"fits and bootstrap SEs): half-widths within {100 * fh:.4f}%, centres within {fc:.2g} "
                  f"half-widths; {len(fbad)} disagreements.  The replicates' fits against their bootstrap SEs "
                  "(z's RMS over pairs of replicates, tau left out; 1 when the SEs are right): "
                  + "; ".join(f"{c} {fmt(z)} ({m} pairs)" for c, (z, m) in fz.items()) + ".")
            for b in fbad[:20]:
                print(f"  disagrees: {b}")
        bad = bad + fbad
        if bad or n == 0:
            print(f"{ME}: this script and analyze disagree on {len(bad)} of the figures they both compute"
                  + ("" if n else " (no cell compared)"), file=sys.stderr)
            return 3
    if skipped:
        print(f"\nNot compared ({len(skipped)} cells without a paired interval in every replicate or without a "
              f"between-replicate SD): {', '.join(sorted(skipped)[:10])}{', ...' if len(skipped) > 10 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
