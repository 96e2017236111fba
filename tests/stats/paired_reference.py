#!/usr/bin/env python3
"""paired_reference.py - reference values for tests/stats/test_paired.c,
computed independently of the C code with the Python standard library only.

It reimplements GSL's mt19937 seeding (gsl_rng_set) by setting the state of
Python's own Mersenne Twister, gsl_rng_uniform_int, the Hodges-Lehmann
estimate, the type-7 median, the jackknife acceleration and the BCa
endpoints (statistics.NormalDist for the normal CDF and its inverse), and
prints the values the test pastes.  Run: python3 tests/stats/paired_reference.py
"""
import math
import random
from statistics import NormalDist

D = [0.031, -0.012, 0.054, 0.008, 0.017, -0.041, 0.026, 0.093, 0.002, 0.011, -0.006, 0.038]


def gsl_mt_rng(seed):
    if seed == 0:
        seed = 4357
    mt = [0] * 624
    mt[0] = seed & 0xFFFFFFFF
    for i in range(1, 624):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
    r = random.Random()
    r.setstate((3, tuple(mt + [624]), None))
    return r


def uniform_int(r, n):
    scale = 0xFFFFFFFF // n
    while True:
        k = r.getrandbits(32) // scale
        if k < n:
            return k


def q7(v, p):
    s = sorted(v)
    h = (len(s) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def hl(v):
    w = [(v[i] + v[j]) / 2 for i in range(len(v)) for j in range(i, len(v))]
    return q7(w, 0.5)


def med(v):
    return q7(v, 0.5)


def mean(v):
    return sum(v) / len(v)


def accel(f, v):
    n = len(v)
    t = [f(v[:i] + v[i + 1:]) for i in range(n)]
    m = sum(t) / n
    u = [(n - 1) * (m - x) for x in t]
    return sum(x ** 3 for x in u) / (6 * sum(x * x for x in u) ** 1.5)


def bca(f, v, B, seed, conf):
    r = gsl_mt_rng((seed ^ (seed >> 32)) & 0xFFFFFFFF)
    n = len(v)
    t = []
    for _ in range(B):
        t.append(f([v[uniform_int(r, n)] for _ in range(n)]))
    est = f(v)
    less = sum(1 for x in t if x < est)
    eq = sum(1 for x in t if x == est)
    prop = (less + 0.5 * eq) / B
    N = NormalDist()
    z0 = N.inv_cdf(prop)
    a = accel(f, v)
    alpha = 1 - conf
    zl, zh = N.inv_cdf(alpha / 2), N.inv_cdf(1 - alpha / 2)
    alo = N.cdf(z0 + (z0 + zl) / (1 - a * (z0 + zl)))
    ahi = N.cdf(z0 + (z0 + zh) / (1 - a * (z0 + zh)))
    return est, q7(t, alo), q7(t, ahi), z0, a


if __name__ == "__main__":
    print("hl %.17g median %.17g mean %.17g" % (hl(D), med(D), mean(D)))
    for name, f in (("hl", hl), ("median", med), ("mean", mean)):
        print("accel_%s %.17g" % (name, accel(f, D)))
    for name, f in (("hl", hl), ("median", med), ("mean", mean)):
        est, lo, hi, z0, a = bca(f, D, 2000, 12345, 0.95)
        print("bca_%s est %.17g lo %.17g hi %.17g z0 %.17g a %.17g" % (name, est, lo, hi, z0, a))
    r = gsl_mt_rng(12345)
    print("first uniform_int(12) draws:", [uniform_int(r, 12) for _ in range(8)])
