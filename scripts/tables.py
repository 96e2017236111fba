#!/usr/bin/env python3
"""tables.py - the result tables of README.md, docs/ and results/*/README.md,
derived from the committed results, and the check that the pages still say
what the data says.

    scripts/tables.py [--root DIR]            check (the default): exit 1 when a
                                              generated part differs from what
                                              the data gives, or a link is broken
    scripts/tables.py --write [--root DIR]    rewrite every generated part
    scripts/tables.py --list                  the generators and what they read

A generated part sits between two markers in a page:

    <!-- table:NAME ARG begin -->
    ...generated, never edited by hand...
    <!-- table:NAME ARG end -->

NAME is a generator below, ARG (optional) its argument, a results directory
relative to the repository (default results/reference). The markers may also
sit inside one line, for a number in a sentence. Every value comes from the
results directory's files (summary.csv, regress.csv, sim.csv, inprocess.csv,
peers.csv), and the row and column sets from what they contain (workloads,
periods and rates as the sweep ran them), so a new sweep in the same formats
needs only `--write`.

The check also covers what no generator writes (docs/README.md, "Numbers"):
  * every relative link of a checked page names a file of the repository, and
    a "#fragment" on a Markdown page names one of its headings;
  * outside generated parts, README.md and the reference pages of docs/ (every
    page but docs/MEASUREMENTS.md, the dated record) hold no measured
    interval ("1.012 [0.99, 1.04]") and no table row of three or more
    measured numbers (decimals, percentages or thousands with commas);
    code spans and code blocks are not read.
Exit status: 0 all true, 1 a page differs from the data or breaks a rule
(each named with file and line), 2 bad input (a marker without its end, an
unknown generator, a results file missing or unreadable).
"""

import csv
import math
import os
import re
import sys

DEFAULT_DIR = "results/reference"


class BadInput(Exception):
    pass


# ---------------------------------------------------------------- reading


def read_csv(root, rel):
    path = os.path.join(root, rel)
    try:
        with open(path, newline="") as f:
            lines = [l for l in f if not l.startswith("#")]
    except OSError as e:
        raise BadInput(f"{rel}: cannot read ({e.strerror}); run the sweep's analysis "
                       f"(make figures RESULTS={os.path.dirname(rel)}) or fix the marker's directory")
    rows = list(csv.DictReader(lines))
    if not rows:
        raise BadInput(f"{rel}: no rows; the generated table needs an analysed sweep there")
    return rows


def num(s):
    """A float from a CSV field, None when empty or not a number."""
    if s is None:
        return None
    s = s.strip()
    if s == "":
        return None
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


# ---------------------------------------------------------------- formats


def sig(v, digits=3):
    """v with `digits` significant digits, plain notation (no exponent)."""
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    mag = int(math.floor(math.log10(abs(v))))
    dec = max(0, digits - 1 - mag)
    return f"{v:.{dec}f}"


def ratio(v, lo=None, hi=None, dec=3):
    if v is None:
        return "n/a"
    s = f"{v:.{dec}f}"
    if lo is not None and hi is not None:
        s += f" [{lo:.{dec}f}, {hi:.{dec}f}]"
    return s


def interval(v, lo, hi, f=sig):
    if v is None:
        return "n/a"
    if lo is None or hi is None:
        return f(v) + " (no interval)"
    return f"{f(v)} [{f(lo)}, {f(hi)}]"


def pct(v, digits=3):
    """A count ratio as a signed percentage (1.0123 -> +1.23%)."""
    if v is None:
        return "n/a"
    p = (v - 1) * 100
    if p == 0:
        return "0%"
    return ("+" if p > 0 else "-") + sig(abs(p), digits) + "%"


def period_name(b):
    b = int(b)
    for unit, n in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b % n == 0:
            return f"{b // n}{unit}"
    return str(b)


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


# ---------------------------------------------------------------- selection


def main_cells(rows):
    """The cells of the main plan: no depth study, allocation sampling alone
    (fixed mode; a workload without fixed-mode cells: its poisson ones) or
    time sampling alone, keyed by (workload, kind, period, hz)."""
    fixed = {r["workload"] for r in rows if r["kind"] == "alloc" and r.get("alloc_mode") == "fixed"}
    out = {}
    for r in rows:
        if (r.get("depth") or "").strip():
            continue
        kind = r["kind"]
        if kind == "alloc":
            want = "fixed" if r["workload"] in fixed else "poisson"
            if (r.get("alloc_mode") or want) != want:
                continue
        out[(r["workload"], kind, int(num(r["alloc_period"]) or 0),
             int(num(r["time_hz"]) or 0))] = r
    return out


def workloads_in(rows):
    seen = []
    for r in rows:
        if r["workload"] not in seen:
            seen.append(r["workload"])
    return seen


def periods_of(cells):
    return sorted({p for (_, k, p, _) in cells if k == "alloc" and p > 0})


def rates_of(cells):
    return sorted({h for (_, k, _, h) in cells if k == "time" and h > 0})


def nearest(values, target):
    """The value nearest target on a log scale, the smaller when tied."""
    return min(values, key=lambda v: (abs(math.log(v / target)), v))


def headline_periods(periods):
    """Smallest, the one nearest the paper's 4 MiB, largest (in that order,
    without repeats)."""
    if not periods:
        return []
    out = []
    for p in (periods[0], nearest(periods, 4 << 20), periods[-1]):
        if p not in out:
            out.append(p)
    return out


def levels(rows, col):
    return sorted({(r.get(col) or "").strip() for r in rows if (r.get(col) or "").strip()})


def regress_index(root, d):
    """regress.csv's rows by (workload, kind, metric): the first of a kind
    (a workload's time fits come one per time sampler's mode when its time
    cells had several, signal first: regress.csv's time_mode), and every row
    by (workload, kind, metric, time_mode) too."""
    idx = {}
    for r in read_csv(root, f"{d}/regress.csv"):
        idx.setdefault((r["workload"], r["kind"], r["metric"]), r)
        idx[(r["workload"], r["kind"], r["metric"], r.get("time_mode") or "")] = r
    return idx


def time_fits(reg, w):
    """The workload's wall-time time fits, in regress.csv's order: [(mode, row)], the mode "" when
    there is one time fit (regress.csv before its time_mode column, or one sampler's mode)."""
    first = reg.get((w, "time", "wall"))
    if first is None:
        return []
    modes = [m for m in ("signal", "thread") if (w, "time", "wall", m) in reg]
    if len(modes) < 2:
        return [("", first)]
    return [(m, reg[(w, "time", "wall", m)]) for m in modes]


def diff_text(row):
    """A wall-time row's allocation-minus-time difference per 1000 samples/s and its verdict."""
    v = VERDICT_WORDS.get(row.get("verdict") or "", row.get("verdict"))
    diff = num(row.get("norm_diff"))
    if diff is not None:
        v = f"{ratio(diff, num(row.get('norm_diff_lo')), num(row.get('norm_diff_hi')))}: {v}"
    return v


VERDICT_WORDS = {"alloc_cheaper": "allocation cheaper", "time_cheaper": "time cheaper",
                 "equivalent": "equivalent", "not_resolved": "not resolved", "na": "n/a", "": "n/a"}


# ---------------------------------------------------------------- generators


def gen_headline(root, d):
    """README's headline: per workload, the per-sample costs, allocation
    against time sampling per 1000 samples/s, and the paired overhead at the
    smallest period, the one nearest 4 MiB and the largest."""
    rows = read_csv(root, f"{d}/summary.csv")
    reg = regress_index(root, d)
    cells = main_cells(rows)
    periods = headline_periods(periods_of(cells))
    plev = levels([r for r in rows if r["kind"] == "alloc"], "paired_level") or ["blocks"]
    head = ["workload", "allocation sample (ns of wall time)", "time sample (us of wall time)",
            "per 1000 samples/s: allocation minus time"]
    head += [f"overhead at {period_name(p)}" for p in periods]
    head += ["A/A floor"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for w in workloads_in(rows):
        a = reg.get((w, "alloc", "wall"))
        t = reg.get((w, "time", "wall"))
        if a is None and t is None:
            continue
        line = [w]
        line.append(interval(num(a["cost"]), num(a["cost_lo"]), num(a["cost_hi"])) if a else "n/a")
        tf = time_fits(reg, w)
        costs, diffs = [], []
        for mode, row in tf:
            k = [num(row[c]) for c in ("cost", "cost_lo", "cost_hi")]
            k = [v / 1000 if v is not None else None for v in k]
            costs.append(f"{mode}: {interval(*k)}" if mode else interval(*k))
            diffs.append((f"{mode}: " if mode else "") + diff_text(row))  # a time row's: against its mode
        line.append("; ".join(costs) if costs else "n/a")
        line.append("; ".join(diffs) if diffs else diff_text(a))
        for p in periods:
            c = cells.get((w, "alloc", p, 0))
            if c is None or num(c.get("paired")) is None:
                line.append("n/a")
                continue
            line.append(f"{ratio(num(c['paired']), num(c['paired_lo']), num(c['paired_hi']))} "
                        f"{c.get('paired_verdict') or 'n/a'}")
        b = cells.get((w, "baseline", 0, 0))
        fl = num(b.get("paired_floor")) if b else None
        line.append(f"{fl * 100:.1f}%" if fl is not None else "n/a")
        out.append("| " + " | ".join(line) + " |")
    meta = []
    runs = sum(int(num(r["runs"]) or 0) for r in rows)
    meta.append(f"{plural(len(workloads_in(rows)), 'workload')}, {plural(len(rows), 'timed cell')}, "
                f"{runs} measured runs; paired intervals over {', '.join(plev)}")
    flev = sorted({r.get("level") for r in read_csv(root, f"{d}/regress.csv")} & {"processes", "replicates"})
    fitlev = (", intervals over " + " and ".join("runs within cells" if x == "processes" else x for x in flev)
              if flev else "")
    out.append("")
    out.append(f"From `{d}/summary.csv` and `{d}/regress.csv` ({meta[0]}; 95% intervals). "
               f"Costs: the regression of wall time on the samples taken over every period "
               f"or rate{fitlev}. Allocation minus time: the difference of the two fits' overheads "
               "per 1000 samples/s. Overheads: the paired ratio of each run to its adjacent "
               "baseline run, with its verdict against a 2% margin "
               "(docs/STATISTICS.md).")
    return "\n".join(out)


def gen_cheaper(root, d):
    """How many workloads the regressions resolve allocation as cheaper per
    sample than time sampling: "N of M"; with a time fit per time sampler's
    mode, "N of M (against the signal sampler; against the sampler thread:
    N' of M')"."""
    rows = read_csv(root, f"{d}/summary.csv")
    reg = regress_index(root, d)
    by_mode = {}
    for w in workloads_in(rows):
        if (w, "alloc", "wall") not in reg:
            continue
        for mode, row in time_fits(reg, w):
            if row.get("verdict", "na") not in ("na", ""):
                n, m = by_mode.get(mode, (0, 0))
                by_mode[mode] = (n + (row.get("verdict") == "alloc_cheaper"), m + 1)
    if not by_mode:
        return "0 of 0"
    names = {"signal": "the signal sampler", "thread": "the sampler thread"}
    modes = list(by_mode.items())
    first = f"{modes[0][1][0]} of {modes[0][1][1]}"
    if len(modes) == 1:
        return first
    rest = "; ".join(f"against {names.get(mode, mode)}: {n} of {m}" for mode, (n, m) in modes[1:])
    return f"{first} (against {names.get(modes[0][0], modes[0][0])}; {rest})"


def gen_costs(root, d):
    """The per-sample costs the regressions resolve from 0, as a clause:
    allocation in ns, time in us, with the workloads."""
    rows = read_csv(root, f"{d}/summary.csv")
    reg = regress_index(root, d)
    parts = []
    for kind, unit, scale in (("alloc", "ns", 1.0), ("time", "us", 1000.0)):
        res = []
        for w in workloads_in(rows):
            fits = time_fits(reg, w) if kind == "time" else [("", reg.get((w, kind, "wall")))]
            for mode, r in fits:
                if r is None:
                    continue
                lo, hi, c = num(r["cost_lo"]), num(r["cost_hi"]), num(r["cost"])
                if None not in (lo, hi, c) and (lo > 0 or hi < 0):
                    res.append((c / scale, f"{w} ({mode})" if mode else w))
        name = "an allocation sample" if kind == "alloc" else "a time sample"
        if not res:
            parts.append(f"{name}'s cost is not resolved from 0 on any workload")
            continue
        res.sort()
        span = sig(res[0][0]) if len(res) == 1 else f"{sig(res[0][0])} to {sig(res[-1][0])}"
        ws = ", ".join(w for _, w in res)
        parts.append(f"{name} costs {span} {unit} of wall time where its interval excludes 0 "
                     f"({plural(len(res), 'fit' if ' (' in ws else 'workload')}: {ws})")
    return "; ".join(parts)


def gen_sweep(root, d):
    """One line about a sweep: workloads, cells, runs, failed runs."""
    rows = read_csv(root, f"{d}/summary.csv")
    runs = sum(int(num(r["runs"]) or 0) for r in rows)
    failed = sum(int(num(r["runs_failed"]) or 0) for r in rows)
    return (f"{plural(len(workloads_in(rows)), 'workload')}, {plural(len(rows), 'timed cell')}, "
            f"{runs} measured runs ({failed} failed)")


def gen_sim(root, d):
    """The simulated part: instruction / estimated-cycle overheads at the
    headline periods, per-sample counts by regression, time sampling's
    modelled overhead at the rate nearest 1000 Hz."""
    rows = read_csv(root, f"{d}/sim.csv")
    reg = regress_index(root, d)
    cells = main_cells(rows)
    periods = headline_periods(periods_of(cells))
    rates = rates_of(cells)
    hz = nearest(rates, 1000) if rates else None
    head = ["workload"] + [f"{period_name(p)}: instructions / est. cycles" for p in periods]
    head += ["instructions (est. cycles) per allocation sample",
             "instructions (est. cycles) per time sample"]
    if hz:
        head += [f"time sampling at {hz} Hz, modelled"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def per(w, k):
        i = reg.get((w, k, "sim_instructions"))
        c = reg.get((w, k, "sim_est_cycles"))
        if not i or num(i["cost"]) is None:
            return "n/a"
        s = sig(num(i["cost"]), 4)
        if c and num(c["cost"]) is not None:
            s += f" ({sig(num(c['cost']), 4)})"
        return s

    for w in workloads_in(rows):
        line = [w]
        for p in periods:
            c = cells.get((w, "alloc", p, 0))
            if c is None:
                line.append("n/a")
            else:
                line.append(f"{pct(num(c['overhead_Ir']))} / {pct(num(c['overhead_est_cycles']))}")
        line += [per(w, "alloc"), per(w, "time")]
        if hz:
            c = cells.get((w, "time", 0, hz))
            line.append(pct(num(c.get("model_overhead"))) if c else "n/a")
        out.append("| " + " | ".join(line) + " |")
    out.append("")
    out.append(f"From `{d}/sim.csv` and `{d}/regress.csv` (exact counts under cachegrind; "
               "overheads relative to the workload's simulated baseline; per sample: the "
               "regression of the counts on the samples taken).")
    return "\n".join(out)


def gen_inprocess(root, d):
    """The in-process sweep: per cell of the main plan, the steady-state
    ratio with its interval and verdict, and the per-sample cost."""
    rows = read_csv(root, f"{d}/inprocess.csv")
    lev = levels(rows, "level") or ["processes"]
    head = ["workload", "cell", "ratio (CPU time, steady state)", "verdict", "ns per sample"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r["kind"] == "baseline":
            cell = "A/A"
        elif r["kind"] == "alloc":
            cell = f"alloc {period_name(num(r['alloc_period']))}"
        elif r["kind"] == "time":
            cell = f"time {int(num(r['time_hz']))} Hz"
        else:
            cell = r["label"].split("/", 1)[-1]
        cost = interval(num(r["cost_ns"]), num(r["cost_lo"]), num(r["cost_hi"])) \
            if num(r.get("cost_ns")) is not None else "n/a"
        out.append("| " + " | ".join([r["workload"], cell,
                                      ratio(num(r["ratio"]), num(r["ratio_lo"]), num(r["ratio_hi"]), 4),
                                      r.get("verdict") or "n/a", cost]) + " |")
    out.append("")
    out.append(f"From `{d}/inprocess.csv` (intervals over {', '.join(lev)}; "
               "docs/STATISTICS.md, \"In-process alternation\").")
    return "\n".join(out)


def gen_peers(root, d):
    """The peers sweep: per system, where its check lives, wall ns per
    sample and the overhead in % at the periods peers.csv carries."""
    rows = read_csv(root, f"{d}/peers.csv")
    progs = []
    for r in rows:
        if r["base"] not in progs:
            progs.append(r["base"])
    cols = [c[len("overhead_"):-len("_pct")] for c in rows[0] if c.startswith("overhead_") and c.endswith("_pct")]
    cols.sort(key=lambda s: int(s[:-1]) << (10 if s[-1] == "K" else 20 if s[-1] == "M" else 0))
    systems = []
    for r in rows:
        if r["system"] not in systems:
            systems.append(r["system"])
    by = {(r["system"], r["base"]): r for r in rows}
    head = ["system", "where the sample check lives"]
    head += [f"ns per sample (wall), {b}" for b in progs]
    head += [f"overhead at {c}, %, {b}" for c in cols for b in progs]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in systems:
        site = next((by[(s, b)]["check_site"] for b in progs if (s, b) in by), "")
        line = [s, site]
        for b in progs:
            r = by.get((s, b))
            if r is None:
                line.append("n/a")
            elif num(r["cost_wall_ns"]) is None:
                line.append("none: no sample count")
            else:
                line.append(interval(num(r["cost_wall_ns"]), num(r["cost_wall_lo"]), num(r["cost_wall_hi"]),
                                     lambda v: f"{v:.0f}"))
        for c in cols:
            for b in progs:
                r = by.get((s, b))
                if r is None or num(r.get(f"overhead_{c}_pct")) is None:
                    line.append("n/a")
                else:
                    line.append(interval(num(r[f"overhead_{c}_pct"]), num(r[f"overhead_{c}_lo"]),
                                         num(r[f"overhead_{c}_hi"]), lambda v: f"{v:.2f}"))
        out.append("| " + " | ".join(line) + " |")
    out.append("")
    out.append(f"From `{d}/peers.csv` (95% intervals; per-sample cost by regression over the "
               "periods, overheads paired).")
    return "\n".join(out)


def gen_peer_counts(root, arg):
    """Per system: exact instructions per allocation sample (the simulated
    part, fixed cost apart) and ns of CPU per sample from the in-process
    design, gathered from several sweeps' peers.csv: ARG lists them
    comma-separated, and for each system and workload a later directory's
    non-empty value replaces an earlier one's."""
    dirs = [x for x in arg.split(",") if x]
    rows = {}
    order = []
    for d in dirs:
        for r in read_csv(root, f"{d}/peers.csv"):
            key = (r["system"], r["base"])
            if key not in rows:
                rows[key] = {}
                order.append(key)
            got = rows[key]
            if num(r.get("sim_ir_per_sample")) is not None:
                got["sim"] = r
            if num(r.get("inproc_cost_ns")) is not None:
                got["inproc"] = r
    systems, bases = [], []
    for s, b in order:
        if s not in systems:
            systems.append(s)
        if b not in bases:
            bases.append(b)
    head = ["system"] + [f"instructions per sample, {b}" for b in bases] + ["repeated runs"]
    head += [f"ns of CPU per sample in-process, {b}" for b in bases]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in systems:
        line, rep = [s], []
        for b in bases:
            r = rows.get((s, b), {}).get("sim")
            if r is None:
                line.append("n/a")
                continue
            line.append(f"{num(r['sim_ir_per_sample']):,.0f}")
            if r["sim_exact"] == "exact":
                rep.append("exact")
            else:
                rep.append(f"not exact: runs {num(r['sim_ir_spread_pct']):.2g}% apart")
        line.append(" / ".join(dict.fromkeys(rep)) if rep else "n/a")
        for b in bases:
            r = rows.get((s, b), {}).get("inproc")
            if r is None:
                line.append("n/a")
                continue
            line.append(interval(num(r["inproc_cost_ns"]), num(r["inproc_cost_lo"]), num(r["inproc_cost_hi"]),
                                 lambda v: f"{v:,.0f}") + f" ({int(num(r['inproc_runs']))} processes)")
        out.append("| " + " | ".join(line) + " |")
    out.append("")
    out.append("From the `peers.csv` of " + ", ".join(f"`{d}`" for d in dirs) +
               " (a later directory's value replaces an earlier one's; instructions under cachegrind with the "
               "fixed cost apart, 'not exact' when repeated runs differ; in-process costs with 95% intervals "
               "over processes).")
    return "\n".join(out)


def gen_packages(root, d):
    """The Debian packages scripts/deps.sh installs, as one sentence."""
    try:
        text = open(os.path.join(root, "scripts/deps.sh")).read()
    except OSError as e:
        raise BadInput(f"scripts/deps.sh: cannot read ({e.strerror})")
    m = re.search(r'^PACKAGES="\n(.*?)^"', text, re.S | re.M)
    if not m:
        raise BadInput('scripts/deps.sh: no PACKAGES="..." list; the packages line is generated from it')
    pk = [l.strip() for l in m.group(1).splitlines() if l.strip()]
    return ", ".join(f"`{p}`" for p in pk)


GENERATORS = {
    "headline": (gen_headline, "summary.csv, regress.csv"),
    "cheaper": (gen_cheaper, "summary.csv, regress.csv"),
    "costs": (gen_costs, "summary.csv, regress.csv"),
    "sweep": (gen_sweep, "summary.csv"),
    "sim": (gen_sim, "sim.csv, regress.csv"),
    "inprocess": (gen_inprocess, "inprocess.csv"),
    "peers": (gen_peers, "peers.csv"),
    "peer-counts": (gen_peer_counts, "peers.csv of each comma-separated directory"),
    "packages": (gen_packages, "scripts/deps.sh (no results directory)"),
}

# ---------------------------------------------------------------- pages

MARK = re.compile(r"<!-- table:([a-z-]+)(?: ([^ >]+))? (begin|end) -->")


def pages(root):
    out = ["README.md"]
    for sub in ("docs", "results"):
        base = os.path.join(root, sub)
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, files in os.walk(base):
            dirnames.sort()
            rel = os.path.relpath(dirpath, root)
            # sweeps that are not committed (results/<sweep-id>/) are not pages of the repository
            if sub == "results" and rel.count(os.sep) >= 2:
                continue
            for f in sorted(files):
                if f.endswith(".md") and (sub == "docs" or f == "README.md"):
                    out.append(os.path.join(rel, f))
    return [p for p in out if os.path.isfile(os.path.join(root, p))]


def regenerate(root, rel, text):
    """The page with every generated part made again; raises BadInput."""
    out = []
    pos = 0
    for m in MARK.finditer(text):
        name, arg, which = m.group(1), m.group(2), m.group(3)
        if m.start() < pos:
            continue
        if which == "end":
            line = text.count("\n", 0, m.start()) + 1
            raise BadInput(f"{rel}:{line}: '{m.group(0)}' without its begin marker")
        endm = f"<!-- table:{name}{' ' + arg if arg else ''} end -->"
        e = text.find(endm, m.end())
        if e < 0:
            line = text.count("\n", 0, m.start()) + 1
            raise BadInput(f"{rel}:{line}: '{m.group(0)}' has no '{endm}' after it; add it")
        if name not in GENERATORS:
            line = text.count("\n", 0, m.start()) + 1
            raise BadInput(f"{rel}:{line}: unknown generated part '{name}' (known: "
                           f"{', '.join(sorted(GENERATORS))})")
        try:
            body = GENERATORS[name][0](root, arg or DEFAULT_DIR)
        except BadInput as err:
            line = text.count("\n", 0, m.start()) + 1
            raise BadInput(f"{rel}:{line}: {name}: {err}")
        block = text[m.end():m.end() + 1] == "\n"
        out.append(text[pos:m.end()])
        out.append("\n" + body + "\n" if block else body)
        out.append(endm)
        pos = e + len(endm)
    out.append(text[pos:])
    return "".join(out)


# ---------------------------------------------------------------- rules


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[`*_]", "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def strip_code(text):
    """Lines of text with code blocks and code spans blanked (kept as empty
    lines, so line numbers stay)."""
    lines = text.split("\n")
    out = []
    fence = False
    for l in lines:
        if l.lstrip().startswith("```"):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", "``", l))
    return out


def anchors(root, rel, cache):
    if rel not in cache:
        try:
            text = open(os.path.join(root, rel)).read()
        except OSError:
            cache[rel] = set()
            return cache[rel]
        seen = {}
        out = set()
        for l in strip_code(text):
            m = re.match(r"#+ (.*)", l)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else f"{s}-{n}")
        cache[rel] = out
    return cache[rel]


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
INTERVAL = re.compile(r"-?\d[\d.,]*%? ?\[-?\d[\d.,]*%?, -?\d[\d.,]*%?\]")
MEASURED = re.compile(r"^-?\+?\d{1,3}(,\d{3})+$|^[-+]?\d+\.\d+%?$|^[-+]?\d+(\.\d+)?%$")


def check_links(root, rel, text, cache):
    errs = []
    for i, l in enumerate(strip_code(text), 1):
        for m in LINK.finditer(l):
            target = m.group(1)
            if re.match(r"[a-z]+:", target) or target.startswith("mailto:"):
                continue
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(rel), path)) if path else rel
            if not os.path.exists(os.path.join(root, dest)):
                errs.append(f"{rel}:{i}: link '{target}' names {dest}, which does not exist")
                continue
            if frag and dest.endswith(".md") and frag not in anchors(root, dest, cache):
                errs.append(f"{rel}:{i}: link '{target}': {dest} has no heading '#{frag}'")
    return errs


def reference_page(rel):
    return rel == "README.md" or (rel.startswith("docs" + os.sep) and rel != os.path.join("docs", "MEASUREMENTS.md"))


def check_numbers(rel, text):
    """Measured numbers outside generated parts of README.md and docs/."""
    if not reference_page(rel):
        return []
    # blank the generated parts, keeping line numbers
    def blank(m):
        return "\n" * m.group(0).count("\n")
    text = re.sub(r"<!-- table:([a-z-]+)(?: [^ >]+)? begin -->.*?<!-- table:\1(?: [^ >]+)? end -->",
                  blank, text, flags=re.S)
    errs = []
    for i, l in enumerate(strip_code(text), 1):
        if INTERVAL.search(l):
            errs.append(f"{rel}:{i}: measured interval '{INTERVAL.search(l).group(0)}' outside "
                        "a generated part (generate it, or move it to a results README.md or "
                        "docs/MEASUREMENTS.md)")
            continue
        if l.lstrip().startswith("|"):
            cells = [c.strip().strip("*") for c in l.strip().strip("|").split("|")]
            n = sum(1 for c in cells if MEASURED.match(c))
            if n >= 3:
                errs.append(f"{rel}:{i}: a table row of {n} measured numbers outside a generated "
                            "part (generate it, or move it to a results README.md or "
                            "docs/MEASUREMENTS.md)")
    return errs


# ---------------------------------------------------------------- main


def main(argv):
    root = "."
    mode = "check"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--write":
            mode = "write"
        elif a == "--check":
            mode = "check"
        elif a == "--list":
            mode = "list"
        elif a == "--root" and args:
            root = args.pop(0)
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            print(f"tables.py: unknown argument '{a}'; use --check, --write, --list or --root DIR",
                  file=sys.stderr)
            return 2
    if mode == "list":
        for n, (f, src) in sorted(GENERATORS.items()):
            print(f"{n:10} {src}: {f.__doc__.split(chr(10))[0]}")
        return 0
    problems = []
    cache = {}
    changed = []
    try:
        for rel in pages(root):
            path = os.path.join(root, rel)
            text = open(path).read()
            new = regenerate(root, rel, text)
            if new != text:
                if mode == "write":
                    tmp = path + ".tmp"
                    with open(tmp, "w") as f:
                        f.write(new)
                    os.replace(tmp, path)
                    changed.append(rel)
                else:
                    old_l, new_l = text.split("\n"), new.split("\n")
                    first = next((i for i, (x, y) in enumerate(zip(old_l, new_l)) if x != y),
                                 min(len(old_l), len(new_l)))
                    problems.append(f"{rel}:{first + 1}: differs from what the data gives:\n"
                                    f"    page: {old_l[first] if first < len(old_l) else '(end)'}\n"
                                    f"    data: {new_l[first] if first < len(new_l) else '(end)'}")
            problems += check_links(root, rel, new, cache)
            problems += check_numbers(rel, new)
    except BadInput as e:
        print(f"tables.py: {e}", file=sys.stderr)
        return 2
    for rel in changed:
        print(f"tables.py: rewrote {rel}")
    for p in problems:
        print(f"tables.py: {p}", file=sys.stderr)
    if problems:
        if mode == "check":
            print(f"tables.py: {len(problems)} problem(s); a generated part that differs: "
                  "run scripts/tables.py --write (and commit); the others: fix the page",
                  file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
