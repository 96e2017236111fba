#!/usr/bin/env python3
"""segcheck.py SERIES [options] - checks a segment series against the contract
of docs/FORMATS.md ("The segment series", "Invariants"), independently of the
readers in stats/ and harness/.  Exit 0: it conforms; 1: it does not (every
violation printed, "segcheck: FILE: ..."); 2: bad arguments.

Options:
  --stats FILE         the run's stats record: the series' totals must equal it
                       (bytes = bytes_allocated; alloc_samples = alloc_samples when
                       both are measured; the on segments' period = alloc_period)
  --objects            the check point is once per allocated object: the sum of
                       iterations must equal the record's objects_allocated
  --mode MODE          the series must alternate MODE (alloc or none)
  --system NAME        its system line must say NAME
  --summary            print one line of totals (segments, blocks, samples and
                       bytes of the on and off segments, switch costs)
"""
import sys

MASK = (1 << 64) - 1
REQUIRED = ("index block pos kind on end cpu_ns wall_ns bytes iterations alloc_samples alloc_points "
            "sampled_bytes time_samples minor major gc_ns major_cpu_ns").split()
OPTIONAL = ("switch_ns",)
ENDS = ("gc", "iter", "exit")
MODES = ("none", "alloc", "time", "both")
# Header keys every writer writes (docs/FORMATS.md); system, cpu_clock and unmeasured are optional.
KEYS = ("alternate pattern segment_fills segment_cpu_ns alloc_period alloc_mode time_hz time_clock seed "
        "nursery_size carry_ns cost_ns").split()
MEASURABLE = set(REQUIRED) - {"index", "block", "pos", "kind", "on", "end", "cpu_ns", "bytes"}


def phase(seed):
    """The seed's phase: 0 = ABBA, 1 = BAAB (docs/FORMATS.md)."""
    z = (seed ^ 0xa17e4a7e5e6a5eed) & MASK
    z = (z + 0x9e3779b97f4a7c15) & MASK
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
    z ^= z >> 31
    return z >> 63


def kind_at(pattern, pos):
    return pattern[pos]


def read_record(path):
    rec = {}
    with open(path) as f:
        lines = f.read().split("\n")
    if not lines or lines[0] != "sgc-stats 1":
        raise ValueError("%s is not a stats record" % path)
    for line in lines[1:]:
        if line:
            k, _, v = line.partition(" ")
            rec[k] = v
    return rec


def check(path, opts):
    errs = []
    err = errs.append
    try:
        text = open(path).read()
    except OSError as e:
        return ["cannot read it: %s" % e], None
    if not text.endswith("\n"):
        err("the file does not end with a line end")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != "sgc-segments 1":
        return ["the first line is not 'sgc-segments 1'"], None
    header, cols, segs, trailer = {}, None, [], None
    for no, line in enumerate(lines[1:], start=2):
        if trailer is not None:
            err("line %d: text after the 'segments' line" % no)
            break
        words = line.split(" ")
        if "" in words:
            err("line %d: fields must be separated by exactly one space: %r" % (no, line))
            continue
        key = words[0]
        if key == "columns":
            if cols is not None:
                err("line %d: a second columns line" % no)
            if segs:
                err("line %d: the columns line comes after segment lines" % no)
            cols = words[1:]
            for c in REQUIRED:
                if cols.count(c) != 1:
                    err("line %d: the columns line must name %s exactly once" % (no, c))
            if len(set(cols)) != len(cols):
                err("line %d: a column is named twice" % no)
        elif key == "seg":
            if cols is None:
                err("line %d: a segment line before the columns line" % no)
                return errs, None
            vals = words[1:]
            if len(vals) != len(cols):
                err("line %d: %d fields, the columns line names %d" % (no, len(vals), len(cols)))
                continue
            g = dict(zip(cols, vals))
            g["_line"] = no
            for c in cols:
                if c in ("kind", "end"):
                    continue
                v = g[c]
                if not v.isdigit() or (len(v) > 1 and v[0] == "0") or int(v) >= 1 << 63:
                    err("line %d: %s '%s' is not an unsigned decimal integer below 2^63" % (no, c, v))
                    g[c] = 0
                else:
                    g[c] = int(v)
            if g["kind"] not in ("A", "B"):
                err("line %d: kind '%s' is not A or B" % (no, g["kind"]))
            if g["end"] not in ENDS:
                err("line %d: end '%s' is not one of %s" % (no, g["end"], " ".join(ENDS)))
            segs.append(g)
        elif key == "segments":
            if len(words) != 2 or not words[1].isdigit():
                err("line %d: the 'segments' line has no count" % no)
                trailer = -1
            else:
                trailer = int(words[1])
        else:
            if cols is not None:
                err("line %d: header line '%s' after the columns line" % (no, key))
            if key in header:
                err("line %d: header key %s twice" % (no, key))
            header[key] = words[1:]
    if trailer is None:
        err("no 'segments N' line at the end")
    elif trailer != len(segs):
        err("'segments %d' but %d segment lines" % (trailer, len(segs)))
    if cols is None:
        err("no columns line")
        return errs, None
    for k in KEYS:
        if k not in header or len(header[k]) != 1:
            err("header key %s missing or not one word" % k)
    if errs:
        return errs, None

    h = {k: v[0] for k, v in header.items() if len(v) == 1}
    mode = h["alternate"]
    if mode not in MODES:
        err("alternate '%s' is not one of %s" % (mode, " ".join(MODES)))
    if opts.get("mode") and mode != opts["mode"]:
        err("alternate %s, expected %s" % (mode, opts["mode"]))
    if opts.get("system") and h.get("system") != opts["system"]:
        err("system '%s', expected %s" % (h.get("system"), opts["system"]))
    if h.get("cpu_clock", "thread") not in ("thread", "process"):
        err("cpu_clock '%s' is not thread or process" % h.get("cpu_clock"))
    unmeasured = header.get("unmeasured", [])
    for u in unmeasured:
        if u not in MEASURABLE or u not in cols:
            err("unmeasured names %s, which is not a field a writer may leave unmeasured" % u)
    unmeasured = [u for u in unmeasured if u in MEASURABLE and u in cols]
    for k in ("segment_fills", "segment_cpu_ns", "alloc_period", "time_hz", "seed", "nursery_size", "carry_ns",
              "cost_ns"):
        if not h[k].isdigit():
            err("header %s '%s' is not an unsigned decimal integer" % (k, h[k]))
            return errs, None
    fills, target = int(h["segment_fills"]), int(h["segment_cpu_ns"])
    if (fills == 0) == (target == 0):
        err("exactly one of segment_fills and segment_cpu_ns must be nonzero (%d, %d)" % (fills, target))
    pattern = h["pattern"]
    if pattern not in ("ABBA", "BAAB"):
        err("pattern '%s' is not ABBA or BAAB" % pattern)
        return errs, None
    want = "ABBA" if phase(int(h["seed"])) == 0 else "BAAB"
    if pattern != want:
        err("pattern %s, but seed %s gives %s" % (pattern, h["seed"], want))
    if not segs:
        err("no segments: a series has at least the lead-in")
        return errs, None

    switches_alloc = mode in ("alloc", "both")
    for i, g in enumerate(segs):
        where = "segment %d (line %d)" % (i, g["_line"])
        if g["index"] != i:
            err("%s: index %d" % (where, g["index"]))
        blk, pos = (0, 3) if i == 0 else ((i - 1) // 4 + 1, (i - 1) % 4)
        if g["block"] != blk or g["pos"] != pos:
            err("%s: block %d pos %d, expected block %d pos %d" % (where, g["block"], g["pos"], blk, pos))
        if g["kind"] != kind_at(pattern, pos):
            err("%s: kind %s, but %s puts %s at position %d" % (where, g["kind"], pattern,
                                                                kind_at(pattern, pos), pos))
        want_on = 1 if (mode != "none" and g["kind"] == "B") else 0
        if g["on"] != want_on:
            err("%s: on %d, expected %d under %s" % (where, g["on"], want_on, mode))
        last = i == len(segs) - 1
        if last and g["end"] != "exit":
            err("%s: the last segment must end at exit, not %s" % (where, g["end"]))
        if not last and g["end"] == "exit":
            err("%s: only the last segment ends at exit" % where)
        if not last and target and g["cpu_ns"] < target:
            err("%s: ended after %d ns of CPU time, before segment_cpu_ns %d" % (where, g["cpu_ns"], target))
        if not last and fills and g["minor"] != fills:
            err("%s: %d minor collections, segment_fills %d" % (where, g["minor"], fills))
        for u in unmeasured:
            if g.get(u):
                err("%s: %s is %d, but the series says it is unmeasured (written 0)" % (where, u, g[u]))
        if switches_alloc and g["kind"] == "A":
            if g["alloc_samples"] or g["alloc_points"] or g["sampled_bytes"]:
                err("%s: an off segment with %d samples, %d points, %d sampled bytes" %
                    (where, g["alloc_samples"], g["alloc_points"], g["sampled_bytes"]))
        if switches_alloc and g["kind"] == "B" and "sampled_bytes" not in unmeasured:
            if g["sampled_bytes"] != g["bytes"]:
                err("%s: an on segment samples %d of its %d bytes" % (where, g["sampled_bytes"], g["bytes"]))
        if g["alloc_points"] and g["alloc_samples"] > g["alloc_points"]:
            err("%s: more samples (%d) than sample points (%d)" % (where, g["alloc_samples"], g["alloc_points"]))

    tot = {c: sum(g[c] for g in segs) for c in ("bytes", "iterations", "alloc_samples", "cpu_ns")}
    on = [g for g in segs if g["on"]]
    off = [g for g in segs if not g["on"]]
    if opts.get("stats"):
        try:
            rec = read_record(opts["stats"])
        except (OSError, ValueError) as e:
            err("the stats record: %s" % e)
            rec = None
        if rec is not None:
            if rec.get("bytes_allocated") != str(tot["bytes"]):
                err("the segments' bytes add up to %d, the record's bytes_allocated is %s" %
                    (tot["bytes"], rec.get("bytes_allocated")))
            if "alloc_samples" not in unmeasured:
                if rec.get("alloc_samples") != str(tot["alloc_samples"]):
                    err("the segments' samples add up to %d, the record's alloc_samples is %s" %
                        (tot["alloc_samples"], rec.get("alloc_samples")))
            elif "alloc_samples" in rec:
                err("the series leaves alloc_samples unmeasured, but the record has alloc_samples %s" %
                    rec["alloc_samples"])
            if rec.get("alloc_period") != h["alloc_period"]:
                err("the series' alloc_period %s, the record's %s" % (h["alloc_period"], rec.get("alloc_period")))
            if opts.get("objects") and rec.get("objects_allocated") != str(tot["iterations"]):
                err("the segments' iterations add up to %d, the record's objects_allocated is %s" %
                    (tot["iterations"], rec.get("objects_allocated")))
    blocks = len({g["block"] for g in segs if g["block"] >= 1 and g["end"] != "exit"})
    summary = {
        "segments": len(segs), "blocks": blocks, "pattern": pattern,
        "on_samples": sum(g["alloc_samples"] for g in on), "on_bytes": sum(g["bytes"] for g in on),
        "off_samples": sum(g["alloc_samples"] for g in off), "off_bytes": sum(g["bytes"] for g in off),
        "on_cpu_ns": sum(g["cpu_ns"] for g in on), "off_cpu_ns": sum(g["cpu_ns"] for g in off),
    }
    if "switch_ns" in cols:
        ups = sorted(g["switch_ns"] for i, g in enumerate(segs) if i and g["on"] and not segs[i - 1]["on"])
        downs = sorted(g["switch_ns"] for i, g in enumerate(segs) if i and not g["on"] and segs[i - 1]["on"])
        same = sorted(g["switch_ns"] for i, g in enumerate(segs) if i and g["on"] == segs[i - 1]["on"])
        med = lambda v: v[len(v) // 2] if v else 0
        summary.update(switch_on_ns=med(ups), switch_off_ns=med(downs), switch_same_ns=med(same))
    return errs, summary


def main(argv):
    opts, files, i = {}, [], 1
    while i < len(argv):
        a = argv[i]
        if a in ("--stats", "--mode", "--system") and i + 1 < len(argv):
            opts[a[2:]] = argv[i + 1]
            i += 2
        elif a in ("--objects", "--summary"):
            opts[a[2:]] = True
            i += 1
        elif a.startswith("-"):
            print("segcheck: unknown option or missing value '%s' (see the file's docstring)" % a, file=sys.stderr)
            return 2
        else:
            files.append(a)
            i += 1
    if len(files) != 1:
        print("segcheck: give one series file", file=sys.stderr)
        return 2
    errs, summary = check(files[0], opts)
    for e in errs:
        print("segcheck: %s: %s" % (files[0], e))
    if opts.get("summary") and summary:
        print(" ".join("%s=%s" % kv for kv in summary.items()))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
