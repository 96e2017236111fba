#!/usr/bin/env python3
"""levels_reference.py - reference values for tests/stats/test_levels.c,
computed independently of the C code with SciPy (python3-scipy): the
random-effects combination of st_levels.h (Cochran's Q and its chi-square
p-value, I^2, the Paule-Mandel tau^2, the Hartung-Knapp interval never
narrower than the plain random-effects one with a t reference, the equal-weight
t interval, an interval with a given tau^2 and degrees of freedom (equal
weights, each unit's variance se^2 + tau^2), the
two-sided p-value and the interval at another level), the family-pooled
tau^2 and the Q-profile intervals of tau^2.  It prints the C initializers the test pastes.
Run: /usr/bin/python3 tests/stats/levels_reference.py
"""
import math

from scipy import optimize, stats


def qgen(est, se, tau2):
    """The generalized Q: sum (est_i - mu(tau2))^2 / (se_i^2 + tau2)."""
    w = [1 / (s**2 + tau2) for s in se]
    mu = sum(wi * e for wi, e in zip(w, est)) / sum(w)
    return sum(wi * (e - mu) ** 2 for wi, e in zip(w, est))

CASES = [
    # (name, estimates, standard errors, tau2 given or None, df given, confidence)
    ("heterogeneous", [0.010, 0.012, 0.060, 0.011], [0.002, 0.0025, 0.002, 0.003], None, 0, 0.95),
    ("homogeneous", [0.0101, 0.0099, 0.0100, 0.0102, 0.0098], [0.001, 0.0012, 0.0009, 0.0011, 0.001], None, 0, 0.95),
    ("given", [1.02, 1.05, 0.99], [0.01, 0.02, 0.015], 0.0004, 7.0, 0.95),
    ("unweighted", [0.5, 0.7, 0.2, 0.4], [0.1, float("nan"), 0.1, 0.1], None, 0, 0.90),
    ("given zero", [1.02, 1.05, 0.99], [0.01, 0.02, 0.015], 0.0, 7.0, 0.95),
]


def tq(p, df):
    """The t quantile at p > 0.5: SciPy's t.ppf (off by about 1e-9 here, SciPy 1.10) refined by Newton's
    method on the upper tail t.sf, which is accurate to the last digits."""
    q = stats.t.ppf(p, df)
    for _ in range(4):
        q += (stats.t.sf(q, df) - (1 - p)) / stats.t.pdf(q, df)
    return q


def combine(est, se, tau2, df, conf):
    k = len(est)
    out = {}
    if any(not (s > 0) or math.isnan(s) for s in se):
        m = sum(est) / k
        sd = math.sqrt(sum((e - m) ** 2 for e in est) / (k - 1))
        out.update(est=m, se=sd / math.sqrt(k), df=k - 1, q=math.nan, q_p=math.nan, i2=math.nan, tau2=math.nan)
    else:
        w = [1 / s**2 for s in se]
        s1, s2 = sum(w), sum(x * x for x in w)
        fe = sum(wi * e for wi, e in zip(w, est)) / s1
        q = sum(wi * (e - fe) ** 2 for wi, e in zip(w, est))
        out.update(q=q, q_p=stats.chi2.sf(q, k - 1), i2=max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0)
        given = tau2 is not None
        if not given:  # Paule-Mandel: the generalized Q equals k - 1
            tau2 = 0.0 if qgen(est, se, 0.0) <= k - 1 else optimize.brentq(
                lambda t: qgen(est, se, t) - (k - 1), 0.0, 10.0, xtol=1e-18, rtol=1e-15, maxiter=500)
        ws = [1 / (s**2 + tau2) for s in se]
        mu = sum(wi * e for wi, e in zip(ws, est)) / sum(ws)
        if given:  # a family's pooled tau^2: equal weights, each unit's variance se^2 + tau^2
            mu = sum(est) / k
            sem, d = math.sqrt(sum(s**2 + tau2 for s in se)) / k, df
        else:
            qh = sum(wi * (e - mu) ** 2 for wi, e in zip(ws, est)) / (k - 1)
            sem, d = math.sqrt(max(qh, 1.0) / sum(ws)), k - 1
        out.update(est=mu, se=sem, df=d, tau2=tau2)
    t = tq(1 - (1 - conf) / 2, out["df"])
    out["lo"], out["hi"] = out["est"] - t * out["se"], out["est"] + t * out["se"]
    out["p0"] = 2 * stats.t.sf(abs(out["est"] - 0.0) / out["se"], out["df"])
    t99 = tq(1 - 0.01 / 2, out["df"])
    out["lo99"], out["hi99"] = out["est"] - t99 * out["se"], out["est"] + t99 * out["se"]
    return out


def family(est, se, cell, ncells):
    cells = [[i for i, k in enumerate(cell) if k == c] for c in range(ncells)]
    cells = [c for c in cells if len(c) >= 2]
    sdf = sum(len(c) - 1 for c in cells)

    def f(t):
        return sum(qgen([est[i] for i in c], [se[i] for i in c], t) for c in cells) - sdf

    return (0.0 if f(0.0) <= 0 else optimize.brentq(f, 0.0, 10.0, xtol=1e-18, rtol=1e-15, maxiter=500)), sdf


def g(x):
    return "NAN" if math.isnan(x) else repr(float(x))


for name, est, se, tau2, df, conf in CASES:
    o = combine(est, se, tau2, df, conf)
    keys = ["est", "lo", "hi", "se", "df", "q", "q_p", "i2", "tau2", "p0", "lo99", "hi99"]
    print("/* %s */ {%s}," % (name, ", ".join(g(o[k]) for k in keys)))

FAM_EST = [0.01, 0.03, 0.02, 0.05, 0.06, 0.04, 0.055, 1.0]
FAM_SE = [0.005, 0.006, 0.005, 0.004, 0.005, 0.006, 0.004, 0.01]
FAM_CELL = [0, 0, 0, 1, 1, 2, 2, 3]
t2, d = family(FAM_EST, FAM_SE, FAM_CELL, 4)
print("/* family */ tau2 %s, df %s" % (g(t2), g(d)))

# Q-profile intervals of tau^2 (95%): the heterogeneous case, and the family.
def qprofile(f, df, conf=0.95):
    out = []
    for target in (stats.chi2.ppf(1 - (1 - conf) / 2, df), stats.chi2.ppf((1 - conf) / 2, df)):
        if f(0.0) <= target:
            out.append(0.0)
        else:
            out.append(optimize.brentq(lambda t: f(t) - target, 0.0, 10.0, xtol=1e-18, rtol=1e-15, maxiter=500))
    return out


est, se = CASES[0][1], CASES[0][2]
lo, hi = qprofile(lambda t: qgen(est, se, t), len(est) - 1)
print("/* heterogeneous tau2 interval */ %s, %s" % (g(lo), g(hi)))
cells = [[i for i, c in enumerate(FAM_CELL) if c == k] for k in range(4)]
cells = [c for c in cells if len(c) >= 2]
lo, hi = qprofile(lambda t: sum(qgen([FAM_EST[i] for i in c], [FAM_SE[i] for i in c], t) for c in cells),
                  sum(len(c) - 1 for c in cells))
print("/* family tau2 interval */ %s, %s" % (g(lo), g(hi)))

# The kernel SE of a Hodges-Lehmann estimate (st_hl_kernel_se): 1 / (sqrt(12 n) * integral fhat^2), the
# integral by SciPy's gaussian_kde.integrate_kde (the kernel's SD is bw_method times the sample SD, so
# bw_method = h / SD gives the bandwidth h = 0.9 min(SD, IQR / 1.349) n^(-1/5)).
KERNEL_CASES = [
    ("ten blocks", [0.013, -0.021, 0.044, 0.002, -0.008, 0.031, 0.017, -0.035, 0.026, 0.009]),
    ("IQR 0", [0, 0, 0, 0, 0, 0, 0, 1.0]),
    ("three blocks", [1, 2, 4]),
]


def kernel_se(d):
    n = len(d)
    sd = stats.tstd(d)
    iqr = stats.iqr(d) / (2 * stats.norm.ppf(0.75))
    h = 0.9 * (iqr if 0 < iqr < sd else sd) * n ** -0.2
    k = stats.gaussian_kde(d, bw_method=h / sd)
    return 1 / (math.sqrt(12 * n) * float(k.integrate_kde(k)))


for name, d in KERNEL_CASES:
    print("/* kernel SE, %s */ %s" % (name, g(kernel_se(d))))
