#!/usr/bin/env python3
"""walsh_reference.py - reference values for tests/stats/test_coverage.c's
exact Walsh-average interval, computed independently of the C code with the
Python standard library only: the null distribution of the Wilcoxon
signed-rank statistic counted with integers (subsets of ranks by sum), the
critical value and C of Hollander and Wolfe (section 3.3), and the interval
of two data sets.  Prints the values the test pastes.
Run: python3 tests/stats/walsh_reference.py
"""
from fractions import Fraction

D12 = [0.031, -0.012, 0.054, 0.008, 0.017, -0.041, 0.026, 0.093, 0.002, 0.011, -0.006, 0.038]


def lcg(n, seed):
    s, out = seed, []
    for _ in range(n):
        s = (1103515245 * s + 12345) % 2147483648
        out.append(s / 2147483648.0 - 0.5)
    return out


def counts(n):
    # c[t] = number of subsets of {1..n} whose sum is t
    M = n * (n + 1) // 2
    c = [0] * (M + 1)
    c[0] = 1
    for k in range(1, n + 1):
        for t in range(M, k - 1, -1):
            c[t] += c[t - k]
    return c


def rank_c(n, conf):
    c = counts(n)
    M = n * (n + 1) // 2
    total = 2 ** n
    alpha_half = (1 - Fraction(conf).limit_denominator(10 ** 9)) / 2
    tail, t = 0, M + 1
    for u in range(M, -1, -1):
        if Fraction(tail + c[u], total) > alpha_half:
            break
        tail += c[u]
        t = u
    if t == M + 1:
        return 0, None
    return M + 1 - t, 1 - 2 * Fraction(tail, total)


def interval(d, conf):
    n = len(d)
    w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    C, _ = rank_c(n, conf)
    M = len(w)
    mid = M // 2
    hl = w[mid] if M % 2 else (w[mid - 1] + w[mid]) / 2
    return hl, w[C - 1], w[M - C]


if __name__ == "__main__":
    for n in (6, 7, 10, 12, 30, 100):
        C, a = rank_c(n, 0.95)
        print("n %d C %d achieved %.15g" % (n, C, float(a)))
    C, a = rank_c(20, 0.90)
    print("n 20 at 90%%: C %d achieved %.15g" % (C, float(a)))
    print("D12: hl %.17g lo %.17g hi %.17g" % interval(D12, 0.95))
    x = lcg(30, 777)
    print("lcg30: hl %.17g lo %.17g hi %.17g" % interval(x, 0.95))
