#!/usr/bin/env python3
"""mkfixture.py - writes the segment series fixtures of tests/inproc and the
reference values test_inproc.c checks, computed here independently of
stats/st_inproc.c (plain Python: no shared code, no bootstrap library).

Usage: python3 tests/inproc/mkfixture.py  (rewrites fixtures/ and prints the
reference values, which are pasted into test_inproc.c)."""
import math, random, os

HERE = os.path.dirname(os.path.abspath(__file__))
COLS = ("index block pos kind on end cpu_ns wall_ns bytes iterations alloc_samples "
        "alloc_points sampled_bytes time_samples minor major gc_ns major_cpu_ns")

def series(path, pattern, nblocks, rng, effect, iters=False, mode="alloc", cut=2):
    """A lead-in, nblocks complete blocks, then `cut` segments of one more
    block, the last ended at exit.  B segments cost `effect` more per byte."""
    kinds = pattern
    segs = [(0, 0, 3, kinds[3])]
    idx = 1
    for b in range(1, nblocks + 2):
        for p in range(4):
            if b == nblocks + 1 and p >= cut:
                break
            segs.append((idx, b, p, kinds[p])); idx += 1
    lines = ["sgc-segments 1", "alternate %s" % mode, "pattern %s" % pattern,
             "segment_fills 0", "segment_cpu_ns 20000000", "alloc_period 32768",
             "alloc_mode fixed", "time_hz 0", "time_clock wall", "seed 1",
             "nursery_size 1048576", "carry_ns 0", "cost_ns 0", "columns " + COLS]
    for k, (i, b, p, kind) in enumerate(segs):
        end = "exit" if k == len(segs) - 1 else "gc"
        bytes_ = rng.randrange(40_000_000, 90_000_000)
        it = rng.randrange(1000, 5000) if iters else 0
        per = 0.25 * math.exp(rng.gauss(0, 0.04))     # ns per byte (or per iteration/1000)
        if kind == "B":
            per *= effect
        work = it * 1000 if iters else bytes_
        cpu = int(per * work)
        samples = bytes_ // 32768 if kind == "B" else 0
        tsamp = rng.randrange(30, 45) if kind == "B" else 0
        lines.append("seg %d %d %d %s %d %s %d %d %d %d %d %d %d %d %d %d %d %d" % (
            i, b, p, kind, kind == "B", end, cpu, cpu * 3, bytes_, it, samples, samples,
            bytes_ if kind == "B" else 0, tsamp, 60, 0, 1000000, 0))
    lines.append("segments %d" % len(segs))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path

def read(paths):
    """Parse back (independently of the C reader)."""
    out = []
    for run, path in enumerate(paths):
        mode = None
        for line in open(path):
            w = line.split()
            if w[0] == "alternate":
                mode = w[1]
            if w[0] != "seg":
                continue
            v = dict(zip(COLS.split(), w[1:]))
            s = 0
            if mode in ("alloc", "both", "none"):
                s += int(v["alloc_samples"])
            if mode in ("time", "both", "none"):
                s += int(v["time_samples"])
            out.append(dict(run=run, block=int(v["block"]), pos=int(v["pos"]), kind=v["kind"],
                            complete=v["end"] != "exit", cpu=int(v["cpu_ns"]), bytes=int(v["bytes"]),
                            it=int(v["iterations"]), samples=s))
    return out

def median(x):
    x = sorted(x); n = len(x)
    return x[n // 2] if n % 2 else (x[n // 2 - 1] + x[n // 2]) / 2

def reference(paths):
    segs = read(paths)
    groups = {}
    for s in segs:
        if s["block"] >= 1:
            groups.setdefault((s["run"], s["block"]), []).append(s)
    full = [g for k, g in sorted(groups.items())
            if len(g) == 4 and all(x["complete"] for x in g)
            and sorted(x["pos"] for x in g) == [0, 1, 2, 3]]
    skipped = len(groups) - len(full)
    use_it = all(x["it"] > 0 for g in full for x in g)
    r, sps = [], []
    for g in full:
        cA = sum(x["cpu"] for x in g if x["kind"] == "A"); cB = sum(x["cpu"] for x in g if x["kind"] == "B")
        key = "it" if use_it else "bytes"
        wA = sum(x[key] for x in g if x["kind"] == "A"); wB = sum(x[key] for x in g if x["kind"] == "B")
        sB = sum(x["samples"] for x in g if x["kind"] == "B")
        r.append(math.log((cB / wB) / (cA / wA)))
        sps.append(sB / (cB / 1e9))
    n = len(r)
    mr, ms = median(r), median(sps)
    ratio = math.exp(mr)
    cost = (1 - math.exp(-mr)) * 1e9 / ms if ms > 0 else float("nan")
    norm = 1 + (ratio - 1) * 1000 / ms if ms > 0 else float("nan")
    mean = sum(r) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in r) / (n - 1))
    # Jackknife acceleration of the ratio (one sample).
    t = [math.exp(median(r[:i] + r[i + 1:])) for i in range(n)]
    tm = sum(t) / n
    U = [(n - 1) * (tm - ti) for ti in t]
    s2 = sum(u * u for u in U)
    accel = sum(u ** 3 for u in U) / (6 * s2 ** 1.5) if s2 > 0 else float("nan")
    # BCa by an independent bootstrap (Python's generator, many resamples).
    brng = random.Random(12345)
    B = 40000
    boot = []
    for _ in range(B):
        boot.append(math.exp(median([r[brng.randrange(n)] for _ in range(n)])))
    below = sum(1 for b in boot if b < ratio) + 0.5 * sum(1 for b in boot if b == ratio)
    nd = lambda p: 0.5 * math.erfc(-p / math.sqrt(2))
    def ppf(p):  # bisection on the normal CDF
        lo, hi = -10.0, 10.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if nd(mid) < p: lo = mid
            else: hi = mid
        return (lo + hi) / 2
    z0 = ppf(below / B)
    boot.sort()
    def bca(alpha):
        z = ppf(alpha)
        a2 = nd(z0 + (z0 + z) / (1 - accel * (z0 + z)))
        h = (B - 1) * a2
        k = int(math.floor(h))
        return boot[k] + (h - k) * (boot[min(k + 1, B - 1)] - boot[k])
    return dict(n=n, skipped=skipped, use_it=use_it, ratio=ratio, cost=cost, norm=norm, sps=ms, sd=sd,
                accel=accel, lo=bca(0.025), hi=bca(0.975))

if __name__ == "__main__":
    d = os.path.join(HERE, "fixtures")
    rng = random.Random(2026)
    a = series(os.path.join(d, "run1.seg"), "ABBA", 13, rng, 1.03)
    b = series(os.path.join(d, "run2.seg"), "BAAB", 12, rng, 1.03, cut=3)
    c = series(os.path.join(d, "iter.seg"), "ABBA", 10, rng, 1.00, iters=True, mode="time")
    for name, paths in (("pooled", [a, b]), ("iter", [c])):
        ref = reference(paths)
        print(name, " ".join("%s=%.12g" % (k, v) for k, v in ref.items()))
