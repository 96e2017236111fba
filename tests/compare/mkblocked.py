#!/usr/bin/env python3
"""mkblocked.py - a synthetic sweep in the blocked design (docs/HARNESS.md, "Designs") for tests/compare.

Usage: mkblocked.py SCHEMA DB K [--rounds N] [--episodes A] [--noise X] [LABEL=FACTOR]...

The cells of compare.sh's mk (2 workloads x {baseline, alloc 64K, alloc 1M, time 1000 Hz}, base
wall time and factor per mille).  Every measured round 1..N (default 20) has one block per
non-baseline cell (its run, role 1, and a run of its baseline, role 0) and one A/A block per
baseline (two of its runs), in a fixed order; round 0 is a warm-up round, 10x slower (never used).
The wall time of a run in block b is

    base * factor / 1000 * (1 + A * h(K, b, 0)) * (1 + X * (2 h(K, b, role + 1) - 1))

h a hash of its arguments into [0, 1): a slow episode of size up to A (default 0) shared by the
two adjacent runs of a block, and an independent noise of +-X (default 0.005) per run.  K picks
other hashes (another sweep of the same distributions).  LABEL=FACTOR overrides a cell's factor.
CPU time: user base * factor / 1000 * (1 + X * (2 h(K, b, role + 3) - 1)), sys 1 ms.

--inprocess: the in-process design instead (docs/HARNESS.md): every round runs every cell once,
no blocks; each run has a segment series (table segments) of a lead-in and NB (default 4) complete
ABBA blocks of 1 MB allocated per segment and an unfinished last segment.  In block j of run n the
CPU time of an A segment is 5 ms * e * (1 + X * (2 h(K, n, j, pos) - 1)), of a B segment the same
times factor / 1000 (a baseline: 1), e = 1 + A * h(K, n, j, 9) a slow episode shared by the block's
four segments.  The run's wall and CPU times are the sums of its segments'.
"""
import sqlite3
import sys

CELLS = [
    (1, "gcbench", "baseline", 0, "", 0, "", 100, "gcbench/baseline", 200000000, 1000),
    (2, "gcbench", "alloc", 65536, "fixed", 0, "", 100, "gcbench/alloc-fixed-64K", 200000000, 1300),
    (3, "gcbench", "alloc", 1048576, "fixed", 0, "", 100, "gcbench/alloc-fixed-1M", 200000000, 1020),
    (4, "gcbench", "time", 0, "", 1000, "wall", 100, "gcbench/time-wall-1000", 200000000, 1010),
    (5, "microbench", "baseline", 0, "", 0, "", 50, "microbench/baseline", 100000000, 1000),
    (6, "microbench", "alloc", 65536, "fixed", 0, "", 50, "microbench/alloc-fixed-64K", 100000000, 1500),
    (7, "microbench", "alloc", 1048576, "fixed", 0, "", 50, "microbench/alloc-fixed-1M", 100000000, 1030),
    (8, "microbench", "time", 0, "", 1000, "wall", 50, "microbench/time-wall-1000", 100000000, 1005),
]
MASK = (1 << 64) - 1


def h(*xs):
    """splitmix64 over the arguments, into [0, 1)."""
    z = 0x9E3779B97F4A7C15
    for x in xs:
        z = (z + x * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E5B) & MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
    return (z >> 11) / float(1 << 53)


def main(argv):
    schema, db, k = argv[1], argv[2], int(argv[3])
    rounds, episodes, noise, factor, inprocess, nb = 20, 0.0, 0.005, {}, False, 4
    args = argv[4:]
    while args:
        a = args.pop(0)
        if a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--episodes":
            episodes = float(args.pop(0))
        elif a == "--inprocess":
            inprocess = True
        elif a == "--blocks":
            nb = int(args.pop(0))
        elif a == "--noise":
            noise = float(args.pop(0))
        elif "=" in a:
            label, f = a.split("=", 1)
            factor[label] = int(f)
        else:
            sys.exit("mkblocked.py: unknown argument %r" % a)
    con = sqlite3.connect(db)
    con.executescript(open(schema).read())
    con.execute("INSERT INTO meta(key, value) VALUES ('host', 'fixture-host'), ('cpu_model', 'fixture cpu'), "
                "('git_revision', 'rev-a'), ('status', 'complete'), ('design', ?)", ("inprocess" if inprocess else "blocked",))
    cells = {}
    for c in CELLS:
        cid, wl, kind, period, mode, hz, clock, size, label, base, f = c
        if label in factor:
            f = factor.pop(label)
        cells[cid] = (wl, kind, base, f)
        con.execute("INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, "
                    "label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (cid, wl, kind, period, mode, hz, clock, size, label))
    if factor:
        sys.exit("mkblocked.py: no cell %s" % ", ".join(sorted(factor)))
    baseline = {cells[c][0]: c for c in cells if cells[c][1] == "baseline"}
    if inprocess:
        inprocess_runs(con, cells, k, rounds, episodes, noise, nb)
        con.commit()
        return
    run_id = seq = block = 0
    for rnd in range(0, rounds + 1):
        for cid in sorted(cells):
            wl, kind, base, f = cells[cid]
            block += 1
            ep = 1 + episodes * h(k, block, 0)
            # (cell, role): the block's two runs; an A/A block is two runs of the baseline.
            pair = [(cid, 1), (baseline[wl], 0)]
            if h(k, block, 9) < 0.5:
                pair.reverse()
            for pos, (rc, role) in enumerate(pair):
                rbase, rf = cells[rc][2], cells[rc][3]
                wall = rbase * rf / 1000 * ep * (1 + noise * (2 * h(k, block, role + 1) - 1))
                user = rbase * rf / 1000 * (1 + noise * (2 * h(k, block, role + 3) - 1))
                if rnd == 0:
                    wall *= 10
                run_id += 1
                seq += 1
                con.execute("INSERT INTO runs(run_id, cell_id, round, seq, status, wall_ns, user_ns, sys_ns, maxrss_kb, "
                            "block, block_pos, block_role) VALUES (?, ?, ?, ?, 'ok', ?, ?, 1000000, 5000, ?, ?, ?)",
                            (run_id, rc, rnd, seq, int(round(wall)), int(round(user)), block, pos, role))
    con.commit()


def inprocess_runs(con, cells, k, rounds, episodes, noise, nb):
    run_id = 0
    period = dict(con.execute("SELECT cell_id, alloc_period FROM cells"))
    for rnd in range(0, rounds + 1):
        for cid in sorted(cells):
            wl, kind, base, f = cells[cid]
            run_id += 1
            ovh = 1.0 if kind == "baseline" else f / 1000
            # (block, pos, kind, end, cpu): the lead-in, nb ABBA blocks, an unfinished segment.
            segs = [(0, 0, "A", "gc", 5e6)]
            for j in range(1, nb + 1):
                e = 1 + episodes * h(k, run_id, j, 9)
                for pos, sk in enumerate("ABBA"):
                    cpu = 5e6 * e * (1 + noise * (2 * h(k, run_id, j, pos) - 1)) * (ovh if sk == "B" else 1)
                    segs.append((j, pos, sk, "gc", int(round(cpu))))
            segs.append((nb + 1, 0, "A", "exit", 1000000))
            total = sum(x[4] for x in segs) * (10 if rnd == 0 else 1)
            con.execute("INSERT INTO runs(run_id, cell_id, round, seq, status, wall_ns, user_ns, sys_ns, maxrss_kb) "
                        "VALUES (?, ?, ?, ?, 'ok', ?, ?, 0, 5000)", (run_id, cid, rnd, run_id, total, total))
            for idx, (blk, pos, sk, end, cpu) in enumerate(segs):
                on = int(sk == "B" and kind != "baseline")
                p = period[cid]
                samples = (1 << 20) // p if on and p else 0
                con.execute("INSERT INTO segments(run_id, idx, block, pos, kind, on_, end_, cpu_ns, wall_ns, bytes, "
                            "iterations, alloc_samples, alloc_points, sampled_bytes, time_samples, minor, major, gc_ns, "
                            "major_cpu_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 0, 0, 0, 0, 0)",
                            (run_id, idx, blk, pos, sk, on, end, cpu, cpu, 1 << 20, samples, samples,
                             (1 << 20) if on and p else 0))


if __name__ == "__main__":
    main(sys.argv)
