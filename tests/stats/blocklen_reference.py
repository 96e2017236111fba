#!/usr/bin/env python3
"""blocklen_reference.py - reference values for tests/stats/test_coverage.c,
computed independently of the C code with the Python standard library only.

Politis and White's automatic block length (2004, with the correction of
Patton, Politis and White 2009) written from the papers' formulas as
docs/STATISTICS.md states them, for the series SERIES below (an AR(1)-like
series from a fixed linear congruential generator, and the same series'
first differences), and the weighted medians the test checks.  Prints the
values the test pastes.  Run: python3 tests/stats/blocklen_reference.py
"""
import math


def series(n, phi, seed):
    # x_t = phi x_{t-1} + u_t, u_t uniform in [-0.5, 0.5) from a 31-bit LCG.
    s = seed
    x, out = 0.0, []
    for _ in range(n):
        s = (1103515245 * s + 12345) % 2147483648
        u = s / 2147483648.0 - 0.5
        x = phi * x + u
        out.append(x)
    return out


def acov(x, k):
    n = len(x)
    m = sum(x) / n
    if k >= n:
        return 0.0
    return sum((x[t] - m) * (x[t + k] - m) for t in range(n - k)) / n


def lam(t):
    t = abs(t)
    if t <= 0.5:
        return 1.0
    if t <= 1.0:
        return 2.0 * (1.0 - t)
    return 0.0


def blocklen(x):
    n = len(x)
    K = max(5, math.ceil(math.sqrt(math.log10(n))))
    mmax = math.ceil(math.sqrt(n)) + K
    R = [acov(x, k) for k in range(mmax + 1)]
    rho = [r / R[0] for r in R]
    thr = 2.0 * math.sqrt(math.log10(n) / n)
    mhat = None
    for m in range(1, mmax - K + 1):
        if all(abs(rho[m + k]) < thr for k in range(1, K + 1)):
            mhat = m
            break
    if mhat is None:
        sig = [k for k in range(1, mmax + 1) if abs(rho[k]) >= thr]
        mhat = max(sig) if sig else 0
    M = min(2 * mhat, mmax)
    G = sum(2.0 * lam(k / M) * k * R[k] for k in range(1, M + 1)) if M else 0.0
    g = R[0] + (sum(2.0 * lam(k / M) * R[k] for k in range(1, M + 1)) if M else 0.0)
    bmax = math.ceil(min(3 * math.sqrt(n), n / 3))
    if M == 0 or G == 0 or g == 0:
        return mhat, M, 1.0, 1.0
    cb = (2 * G * G / (4.0 / 3.0 * g * g)) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
    sb = (2 * G * G / (2.0 * g * g)) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
    return mhat, M, min(cb, bmax), min(sb, bmax)


def weighted_median(v, w):
    p = sorted(zip(v, w))
    total = sum(w)
    half = total / 2
    cum = 0.0
    for i, (val, wt) in enumerate(p):
        cum += wt
        if abs(cum - half) <= 1e-12 * total and i + 1 < len(p):
            return (val + p[i + 1][0]) / 2
        if cum > half:
            return val
    return p[-1][0]


if __name__ == "__main__":
    x = series(300, 0.6, 12345)
    d = [x[i + 1] - x[i] for i in range(len(x) - 1)]
    for name, s in (("ar1", x), ("diff", d), ("ar1_first60", x[:60])):
        mhat, M, cb, sb = blocklen(s)
        print("%s: n %d m_hat %d M %d cb %.15g sb %.15g length %d rho1 %.15g" %
              (name, len(s), mhat, M, cb, sb, max(1, math.ceil(cb)), acov(s, 1) / acov(s, 0)))
    print("wmedian odd: %.15g" % weighted_median([3, 1, 2], [1, 1, 1]))
    print("wmedian even: %.15g" % weighted_median([4, 1, 3, 2], [1, 1, 1, 1]))
    print("wmedian weighted: %.15g" % weighted_median([1, 2, 3, 10], [0.1, 0.1, 0.1, 0.8]))
    print("wmedian split: %.15g" % weighted_median([1, 2, 3], [0.25, 0.25, 0.5]))
