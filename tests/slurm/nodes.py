#!/usr/bin/env python3
"""nodes.py ANALYZE SCHEMA WORKDIR - machines of different speed must neither
widen nor bias analyze's intervals (stats/st_nodes.h, docs/STATISTICS.md
"Sweeps over several machines").

Builds synthetic sweeps in the blocked design from contracts/schema.sql: two
workloads (w1, w2), each a baseline and two allocation cells (true overheads
1.02 and 1.10), 20 measured rounds, lognormal noise with a shared per-block
effect.  Rounds 11-20 repeat the blocks of rounds 1-10 in another order, so
each half of a cell's runs holds the same values (that makes the expected
answer exact).  Four databases, the same runs:

  single   every run on node a
  sharded  w1 on node a, w2 on node b, which is 30% slower on every run
           (as sweep --merge of two shards makes it)
  mixed    rounds 11-20 of every group on node b, 30% slower
  mixed-no-node   mixed without the node column (what analyze did before it
           knew nodes): the pooled unpaired intervals must be wider there,
           which shows that the comparison can fail

Every interval of summary.csv (unpaired overhead, CPU overhead, paired ratio,
paired CPU, A/A) of sharded must equal single's to 1e-9 relative; mixed's
groups span the nodes, whose runs are then replicates (stats/st_replicates.h):
its intervals cover the nodes, its overheads are single's.
"""
import csv
import math
import os
import random
import sqlite3
import subprocess
import sys

ANALYZE, SCHEMA, WORK = sys.argv[1:4]
ROUNDS, HALF = 20, 10
SLOW_NUM, SLOW_DEN = 13, 10  # node b: 30% slower, exact in integers

CELLS = []  # (id, workload, kind, period, label)
for w, wl in enumerate(["w1", "w2"]):
    base = 1 + 3 * w
    CELLS.append((base, wl, "baseline", 0, wl + "/baseline"))
    CELLS.append((base + 1, wl, "alloc", 32768, wl + "/alloc-fixed-32K"))
    CELLS.append((base + 2, wl, "alloc", 4194304, wl + "/alloc-fixed-4M"))
TRUE = {0: 1.0, 32768: 1.10, 4194304: 1.02}
BASE_NS = {"w1": 300e6, "w2": 150e6}
BYTES = 400 * 1024 * 1024


def make_runs():
    """Returns rows (seq, cell, round, block, pos, role, wall, cpu) of the
    blocked design; rounds 11..20 repeat the blocks of rounds 1..10."""
    rnd = random.Random(20261130)
    blocks = []  # per round 1..HALF: list of (cell, baseline) blocks with values
    for r in range(1, HALF + 1):
        rb = []
        for cid, wl, kind, period, _ in CELLS:
            bid = [c[0] for c in CELLS if c[1] == wl and c[2] == "baseline"][0]
            shared = math.exp(rnd.gauss(0, 0.08))  # the block's common noise
            vals = []
            for role in (1, 0):
                eff = TRUE[period] if role == 1 else 1.0
                wall = BASE_NS[wl] * eff * shared * math.exp(rnd.gauss(0, 0.03))
                cpu = wall * 0.97 * math.exp(rnd.gauss(0, 0.01))
                vals.append((cid if role == 1 else bid, role, int(wall) // 10 * 10, int(cpu) // 10 * 10))
            first = rnd.random() < 0.5
            rb.append(vals if first else vals[::-1])
        blocks.append(rb)
    order = list(range(HALF))
    rnd.shuffle(order)
    rows, seq, blk = [], 0, 0
    for r in range(1, ROUNDS + 1):
        src = blocks[r - 1] if r <= HALF else blocks[order[r - 1 - HALF]]
        src = list(src)
        rnd.shuffle(src)
        for b in src:
            blk += 1
            for pos, (cell, role, wall, cpu) in enumerate(b, 1):
                seq += 1
                rows.append((seq, cell, r, blk, pos, role, wall, cpu))
    return rows


def build(path, rows, node_of, with_node=True, shards=None):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(open(SCHEMA).read())
    meta = [("status", "complete"), ("design", "blocked"), ("host", "fixture")]
    if shards:
        meta.append(("shards", str(shards)))
    db.executemany("INSERT INTO meta VALUES (?, ?)", meta)
    db.execute("INSERT INTO events(event, supported) VALUES ('perf::task-clock', 1)")
    for cid, wl, kind, period, label in CELLS:
        db.execute("INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size,"
                   " label) VALUES (?,?,?,?,?,0,'',?,?)",
                   (cid, wl, kind, period, "fixed" if period else "", 100, label))
    for seq, cell, r, blk, pos, role, wall, cpu in rows:
        node = node_of(cell, r)
        slow = node == "b"
        w = wall * SLOW_NUM // SLOW_DEN if slow else wall
        c = cpu * SLOW_NUM // SLOW_DEN if slow else cpu
        db.execute("INSERT INTO schedule(seq, cell_id, round, block, block_pos, block_role) VALUES (?,?,?,?,?,?)",
                   (seq, cell, r, blk, pos, role))
        db.execute("INSERT INTO runs(run_id, cell_id, round, seq, status, wall_ns, user_ns, sys_ns, maxrss_kb, block,"
                   " block_pos, block_role, node) VALUES (?,?,?,?,'ok',?,?,0,1000,?,?,?,?)",
                   (seq, cell, r, seq, w, c, blk, pos, role, node))
        period = [x[3] for x in CELLS if x[0] == cell][0]
        pts = BYTES // period if period else 0
        stats = {"bytes_allocated": BYTES, "alloc_period": period, "sampled_bytes": BYTES if period else 0,
                 "alloc_sample_points": pts, "alloc_samples": pts, "time_samples": 0}
        db.executemany("INSERT INTO run_stats VALUES (?,?,?)", [(seq, k, str(v)) for k, v in stats.items()])
        db.execute("INSERT INTO run_counters VALUES (?, 'perf::task-clock', ?, 1, 1, ?)", (seq, c, c))
    if not with_node:
        db.execute("ALTER TABLE runs DROP COLUMN node")
    db.commit()
    db.close()


def analyze(d):
    subprocess.run([ANALYZE, "--quiet", "--resamples", "2000", "--fit-resamples", "100", d], check=True)
    with open(os.path.join(d, "summary.csv")) as f:
        next(f)
        return {row["label"]: row for row in csv.DictReader(f)}


COLS = ["overhead", "overhead_lo", "overhead_hi", "cpu_overhead", "cpu_overhead_lo", "cpu_overhead_hi",
        "paired", "paired_lo", "paired_hi", "paired_cpu", "paired_cpu_lo", "paired_cpu_hi",
        "aa_ratio", "aa_lo", "aa_hi"]

fails = 0


def check(name, ok, detail=""):
    global fails
    print(("ok: " if ok else "FAIL: ") + name + ("" if ok else "  " + detail))
    if not ok:
        fails += 1


def close(a, b):
    if a == "" or b == "":
        return a == b
    x, y = float(a), float(b)
    return abs(x - y) <= 1e-9 * max(abs(x), abs(y))


rows = make_runs()
variants = {
    "single": (lambda cell, r: "a", True, None),
    "sharded": (lambda cell, r: "a" if cell <= 3 else "b", True, 2),
    "mixed": (lambda cell, r: "a" if r <= HALF else "b", True, 2),
    "mixed-no-node": (lambda cell, r: "a" if r <= HALF else "b", False, None),
}
res = {}
for name, (node_of, with_node, shards) in variants.items():
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    build(os.path.join(d, "results.db"), rows, node_of, with_node, shards)
    res[name] = analyze(d)

single = res["single"]
# A group that spans nodes has each node's runs as a replicate (stats/st_replicates.h): its intervals
# cover the nodes, not the single node's rounds.  The two halves hold the same values, so the estimates
# are the single node's and the between-node component is 0.
mixed = res["mixed"]
ests = ["overhead", "cpu_overhead", "paired", "paired_cpu"]
check("mixed: the intervals cover the nodes (2 replicates, level replicates) in every cell",
      all(mixed[l]["replicates"] == "2" and mixed[l]["paired_level"] == "replicates" for l in single),
      "; ".join("%s %s %s" % (l, mixed[l]["replicates"], mixed[l]["paired_level"]) for l in single))
check("mixed: the estimates are the single node's",
      all(close(single[l][c], mixed[l][c]) for l in single for c in ests
          if single[l][c] != "" and c in ("overhead", "cpu_overhead")),
      "; ".join("%s %s: %s %s" % (l, c, single[l][c], mixed[l][c]) for l in single for c in ests
                if single[l][c] != "" and not close(single[l][c], mixed[l][c])))
check("mixed: the between-node component of the paired ratio is 0 (the halves are the same)",
      all(float(mixed[l]["rep_paired_tau"]) == 0 for l in single))
for name in ("sharded",):
    diffs = []
    for label, row in single.items():
        for c in COLS:
            if not close(row[c], res[name][label][c]):
                diffs.append("%s %s: single %s, %s %s" % (label, c, row[c], name, res[name][label][c]))
    check("%s: every interval equals the single-node one (%d cells x %d columns)" % (name, len(single), len(COLS)),
          not diffs, "; ".join(diffs[:6]))
    check("%s: the intervals are there" % name,
          all(res[name][l]["overhead_lo"] != "" and res[name][l]["paired_lo"] != "" for l in single
              if single[l]["kind"] != "baseline"))

# The 30% slower node is really in the data: the baseline medians differ.
check("sharded: w2's runs are 30% slower than in single",
      close(str(float(res["sharded"]["w2/baseline"]["wall_median_ns"]) / float(single["w2/baseline"]["wall_median_ns"])),
            "1.3"))
# Without nodes the pooled unpaired intervals are wider (what the nodes prevent).
wider = 0
for label, row in single.items():
    if row["kind"] == "baseline":
        continue
    w1 = float(row["overhead_hi"]) - float(row["overhead_lo"])
    w2 = float(res["mixed-no-node"][label]["overhead_hi"]) - float(res["mixed-no-node"][label]["overhead_lo"])
    if w2 > 1.5 * w1:
        wider += 1
check("without nodes the mixed sweep's unpaired intervals are wider (>1.5x) in every cell", wider == 4,
      "%d of 4 cells" % wider)
# Paired ratios need no nodes: blocks never span two machines.
check("without nodes the paired intervals still equal the single-node ones",
      all(close(single[l][c], res["mixed-no-node"][l][c]) for l in single for c in ("paired", "paired_lo", "paired_hi")))
md = open(os.path.join(WORK, "mixed", "summary.md")).read()
check("summary.md of mixed: a Nodes section with the scale factors",
      "## Nodes" in md and "2 of 2 groups ran on several nodes" in md and "b x 0.7692 (wall)" in md)
md = open(os.path.join(WORK, "sharded", "summary.md")).read()
check("summary.md of sharded: every group on one node", "## Nodes" in md and "Every group" in md)
md = open(os.path.join(WORK, "single", "summary.md")).read()
check("summary.md of a single-node sweep: no Nodes section", "## Nodes" not in md)
print("all checks passed" if not fails else "%d checks failed" % fails)
sys.exit(1 if fails else 0)
