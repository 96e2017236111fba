#!/usr/bin/env python3
"""mklevels.py - SQL for a synthetic sweep in the in-process design whose
levels are known (tests/inproc/levels.sh loads it after contracts/schema.sql
and runs analyze on it).

One workload, w, four cells, four processes (runs) each unless said:
  w/baseline            A/A; every process holds the same 60 per-block
                        log-ratios in its own order: the processes do not
                        differ at all (Cochran's Q = 0, I^2 = 0, tau = 0).
  w/alloc-fixed-32K     three processes hold 0.02 + those 60 values, the
                        fourth 0.07 + them: one deviant process (flagged,
                        the interval over processes far wider than the
                        pooled one).
  w/alloc-fixed-1M      the values of the baseline, but the first 10 blocks
                        of the first process cost 20% more (a warm-up that
                        the changepoint step finds and leaves out).
  w/time-wall-1000      one process only: its interval covers its blocks.
Every segment allocates 4 MiB and costs 1e6 ns of CPU in A, exp(r) times
that in B (r the block's log-ratio), so a block's log-ratio is log(round(1e6
e^r) / 1e6).  B segments of the allocation cells take bytes / period
samples, of the time cell 5.
The noise is a fixed sequence (Python's random with seed 29), so the sweep
is the same on every run.
Usage: python3 tests/inproc/mklevels.py > levels.sql
"""
import math
import random

rng = random.Random(29)
BASE = [rng.gauss(0, 0.01) for _ in range(60)]
CELLS = [
    (1, "baseline", 0, 0, "w/baseline"),
    (2, "alloc", 32768, 0, "w/alloc-fixed-32K"),
    (3, "alloc", 1048576, 0, "w/alloc-fixed-1M"),
    (4, "time", 0, 1000, "w/time-wall-1000"),
]
out = []
out.append("INSERT INTO meta VALUES('design', 'inprocess');")
for cid, kind, period, hz, label in CELLS:
    out.append(
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) "
        "VALUES(%d,'w','%s',%d,'%s',%d,'%s',10,'%s');"
        % (cid, kind, period, "fixed" if period else "", hz, "wall" if hz else "", label)
    )
run = 0
seq = 0
for cid, kind, period, hz, label in CELLS:
    nproc = 1 if kind == "time" else 4
    for p in range(nproc):
        run += 1
        seq += 1
        vals = BASE[:]
        rng.shuffle(vals)
        if kind == "alloc" and period == 32768:
            vals = [v + (0.07 if p == 3 else 0.02) for v in vals]
        if kind == "alloc" and period == 1048576 and p == 0:
            vals = [v + (0.2 if b < 10 else 0.0) for b, v in enumerate(vals)]
        out.append(
            "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb) "
            "VALUES(%d,%d,%d,%d,'ok',2000000000,2000000000,0,1000);" % (run, cid, p + 1, seq)
        )
        pattern = "ABBA" if p % 2 == 0 else "BAAB"
        idx = 0
        segs = []
        # The lead-in (block 0, never used), the 60 blocks, and a partial segment ended by the exit.
        segs.append((0, 3, pattern[3], 0.0, "gc"))
        for b, v in enumerate(vals, start=1):
            for pos in range(4):
                segs.append((b, pos, pattern[pos], v, "gc"))
        segs.append((61, 0, pattern[0], 0.0, "exit"))
        for b, pos, k, v, end in segs:
            on = 1 if k == "B" and kind != "baseline" else 0
            nbytes = 4194304
            cpu = int(round(1e6 * math.exp(v))) if k == "B" else 1000000
            asamp = nbytes // period if on and period else 0
            tsamp = 5 if on and hz else 0
            out.append(
                "INSERT INTO segments(run_id, idx, block, pos, kind, on_, end_, cpu_ns, wall_ns, bytes, iterations, "
                "alloc_samples, alloc_points, sampled_bytes, time_samples, minor, major, gc_ns, major_cpu_ns) "
                "VALUES(%d,%d,%d,%d,'%s',%d,'%s',%d,%d,%d,0,%d,%d,%d,%d,0,0,0,0);"
                % (run, idx, b, pos, k, on, end, cpu, cpu, nbytes, asamp, asamp, nbytes if on and period else 0, tsamp)
            )
            idx += 1
print("BEGIN;")
print("\n".join(out))
print("COMMIT;")
