#!/usr/bin/env python3
"""mkreplicated.py - SQL for a synthetic replicated sweep in the blocked
design whose between-replicate component is known (tests/stats/replicates.sh
loads it after contracts/schema.sql and runs analyze on it).

One workload, w: a baseline (its A/A blocks), two fixed-mode allocation cells
and a time cell; 8 replicates (runs.replicate 0..7) of 12 rounds, each round
one block of every cell (the A/A block: two baseline runs).  A cell's run in
replicate r lasts exp(mu + u_r + e) times its block's baseline run, with
  mu   the cell's true log-overhead (0, 0.05, 0.01, 0.03),
  u_r  the replicate's deviation: a fixed sequence scaled to a sample
       standard deviation of exactly TAU = 0.02 around a mean of 0.012 (the
       realised replicates happen to sit above the truth, as a few
       replicates can), different for each cell,
  e    the run's own noise, sd 0.003,
and every run of a block shares its round's slowness (up to 30%: the
blocks cancel it).  So the two-level interval must cover exp(mu), the
component it estimates must be near TAU with TAU in its interval, and the
pooled interval, which sees only the blocks' noise, must miss exp(mu).
Usage: python3 tests/stats/mkreplicated.py [--shared] > replicated.sql
"""
import math
import random
import sys

TAU, SHIFT, K, ROUNDS = 0.02, 0.012, 8, 12
rng = random.Random(2913)
CELLS = [  # id, kind, period, hz, label, mu, samples key, samples per run
    (1, "baseline", 0, 0, "w/baseline", 0.0, None, 0),
    (2, "alloc", 32768, 0, "w/alloc-fixed-32K", 0.05, "alloc_samples", 20000),
    (3, "alloc", 1048576, 0, "w/alloc-fixed-1M", 0.01, "alloc_samples", 600),
    (4, "time", 0, 1000, "w/time-wall-1000", 0.03, "time_samples", 100),
]


def offsets():
    z = [rng.gauss(0, 1) for _ in range(K)]
    m = sum(z) / K
    sd = math.sqrt(sum((x - m) ** 2 for x in z) / (K - 1))
    return [SHIFT + TAU * (x - m) / sd for x in z]


if sys.argv[1:] not in ([], ["--shared"]):
    sys.exit("usage: mkreplicated.py [--shared]")
if sys.argv[1:] == ["--shared"]:
    SHARED = offsets()
    U = {c[0]: SHARED for c in CELLS}
else:
    U = {c[0]: offsets() for c in CELLS}
out = ["BEGIN;", "INSERT INTO meta VALUES('design', 'blocked');"]
for cid, kind, period, hz, label, mu, key, n in CELLS:
    out.append(
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) "
        "VALUES(%d,'w','%s',%d,'%s',%d,'%s',10,'%s');"
        % (cid, kind, period, "fixed" if period else "", hz, "wall" if hz else "", label)
    )
run = seq = block = 0
BASE_NS = 1e9


def add_run(cid, rnd, rep, blk, pos, role, wall, key, n, period):
    global run, seq
    run += 1
    seq += 1
    w = int(round(wall))
    out.append(
        "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb,block,block_pos,"
        "block_role,replicate) VALUES(%d,%d,%d,%d,'ok',%d,%d,0,1000,%d,%d,%d,%d);"
        % (run, cid, rnd, seq, w, w, blk, pos, role, rep)
    )
    if key:
        out.append("INSERT INTO run_stats VALUES(%d,'%s','%d');" % (run, key, n))
        if period:
            out.append("INSERT INTO run_stats VALUES(%d,'alloc_sample_points','%d');" % (run, n))
            out.append("INSERT INTO run_stats VALUES(%d,'sampled_bytes','%d');" % (run, n * period))
            out.append("INSERT INTO run_stats VALUES(%d,'alloc_period','%d');" % (run, period))


for rep in range(K):
    for rnd in range(1, ROUNDS + 1):
        for cid, kind, period, hz, label, mu, key, n in CELLS:
            block += 1
            slow = math.exp(rng.uniform(0, 0.3))  # the round's shared slowness
            first = rng.random() < 0.5  # balanced order within the block
            base = BASE_NS * slow * math.exp(rng.gauss(0, 0.003))
            other = BASE_NS * slow * math.exp(mu + U[cid][rep] + rng.gauss(0, 0.003))
            pos0, pos1 = (1, 2) if first else (2, 1)
            add_run(1, rnd, rep, block, pos0, 0, base, None, 0, 0)
            add_run(cid, rnd, rep, block, pos1, 1, other, key, n, period)
out.append("COMMIT;")
print("\n".join(out))
