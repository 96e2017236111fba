#!/usr/bin/env python3
"""sample_cost.py - what one allocation sample costs, in instructions, part by part.

usage: sample_cost.py --bin DIR --work DIR [--quick] [--period P] [--csv FILE]
                      [--cases a,b,...] [--repeat]

Every case runs twice under callgrind (valgrind), with allocation sampling off
and on (fixed mode), on the virtual clock (SGC_VIRTUAL_CLOCK=1000) so that the
counts repeat exactly from run to run.  The cost of a sample is the
difference of the two runs' instruction totals divided by the samples taken;
the breakdown divides the same difference among the parts below, so the
parts add up to the total exactly (checked; the run fails otherwise).

The cases (docs/SAMPLING.md, "What a sample costs, part by part"):
  cached       sample-bench stack: 64-byte objects at stack depth 1, period 64
               (every allocation one sample, its stack cached in its frame)
  fresh10      the same at depth 10 with every frame pushed again before each
               allocation: exactly 10 new frames interned per sample
  gcbench      build/bin/gcbench at --period (default 32768)
  binarytrees  build/bin/binarytrees at --period
  time-signal  gcbench --size 300 with time sampling at 1000 Hz (wall clock) in
               signal mode, per time sample written, against no sampling at all
  time-thread  the same with the sampler thread (SGC_TIME_MODE=thread)
  deep-signal  deepstack --size 10000 (recursion depth 64, every descent's frames
               pushed anew) with time sampling at 1000 Hz in signal mode
  deep-thread  the same with the sampler thread
--quick runs small inputs (for the test that the parts add up).  A time
case's counts do not repeat (its samples come when the timer fires, in real
time, which valgrind slows), but each run's parts add up to its total.

How an instruction is given a part: callgrind records each instruction's
count with the chain of callers of its function (--separate-callers) and its
address; addr2line -i names the functions inlined at that address.  The
chain, innermost first, is walked until a function of PARTS is found; that
function's part takes the instruction, and an instruction in no listed
function is "other" (the program, start-up, shutdown).  A helper that is
inlined or called counts in the part of the nearest listed function around
it, so the breakdown does not depend on what the compiler inlines.
"""
import argparse
import collections
import os
import re
import shutil
import struct
import subprocess
import sys

# part -> (what it is, the functions whose instructions it takes)
PARTS = collections.OrderedDict([
    ("stack", ("calling-context lookup: the walk over new frames and their nodes",
               ["sgc__profile_stack_now", "sgc__profile_stack_current", "sgc__profile_stack_full", "sgc__profile_stack_extend",
                "sgc__profile_func_string", "intern_node", "child_miss", "intern_string", "walk_reserve", "stack_intern"])),
    ("entry", ("slow-path entry and exit: checks, byte accounting, sample points, the limit",
               ["sgc_alloc_slow", "alloc_slow", "alloc_large", "sgc__sample_sync", "sgc__sample_consume",
                "sgc__sample_account", "sgc__sample_points", "sgc__alloc_reset_limit", "set_limit", "zero_ahead"])),
    ("record", ("the sample's record: its type's name, its encoding into the profile buffer",
                ["sgc__profile_alloc_sample", "sgc__profile_alloc_samples", "sgc__profile_alloc_samples_young", "intern_type",
                 "encode_alloc"])),
    ("flush", ("a full buffer's block: its checksums (CRC-32) and its write",
               ["pw_flush", "pw_write_block", "block_header", "crc"])),
    ("pending", ("the pending sample: its entry, its timestamp",
                 ["sgc__sample_record", "sgc__sample_fill", "sample_walk", "sgc__sample_grow", "sgc__now_ns", "sgc__now_into"])),
    ("survival", ("survival at the next minor collection, the hand-over to the profile",
                  ["sgc__sample_minor_end", "sgc__young_survived", "hand_over", "flush_unknown"])),
    ("collector", ("the rest of the collections (what sampling changes in them)",
                   ["sgc__minor_collect", "sgc_collect_minor", "sgc_collect_major", "collect",
                    "major_mark_and_sweep"])),
    ("handler", ("time sampling, signal mode: the handler's snapshot and pacing",
                 ["sgc__timer_handler", "record", "pace"])),
    ("thread", ("time sampling, thread mode: the sampler thread's wait, copy and counts",
                ["thread_main", "wait_until", "thread_sample", "thread_copy", "th_count", "thread_owe_spin"])),
    ("drain", ("the time sampler's drain: its check on every slow-path entry and collection, the snapshots "
               "turned into TIME_SAMPLE records (their stacks are the stack part)",
               ["sgc__timer_drain", "drain", "pay_spins", "sgc__profile_time_sample", "sgc__profile_time_missed",
                "sgc__profile_time_dropped"])),
])
OTHER = "other"
PART_NAMES = list(PARTS) + [OTHER]
FUNC_PART = {f: p for p, (_, fs) in PARTS.items() for f in fs}


def die(msg, code=1):
    sys.stderr.write("sample_cost: %s\n" % msg)
    sys.exit(code)


def base_name(sym):
    """A symbol without the compiler's clone suffixes (.part.0, .constprop.0, .cold, ...)."""
    return sym.split(".", 1)[0] if not sym.startswith(".") else sym


def parse_callgrind(path):
    """-> (totals, {(object, context, address): instructions}) of an uncompressed
    callgrind file (--compress-strings=no --compress-pos=no --dump-instr=yes)."""
    costs = collections.defaultdict(int)
    totals = None
    ob = fn = None
    skip = False
    with open(path) as f:
        for line in f:
            c = line[:1]
            if c == "0":  # a cost line: "0xADDR LINE IR"
                if skip:  # the inclusive cost of the call above: not this function's own
                    skip = False
                    continue
                a, _, ir = line.split()
                costs[(ob, fn, int(a, 16))] += int(ir)
            elif line.startswith("fn="):
                fn = line[3:].rstrip("\n")
            elif line.startswith("ob="):
                ob = line[3:].rstrip("\n")
            elif line.startswith("calls="):
                skip = True
            elif line.startswith("totals:"):
                totals = int(line.split()[1])
    if totals is None:
        die("%s: no totals line (an incomplete callgrind output)" % path)
    return totals, costs


class Inliner:
    """Inline chains (innermost first) of addresses in one executable, by addr2line -i."""

    def __init__(self, exe):
        self.exe = exe
        self.cache = {}

    def resolve(self, addrs):
        todo = sorted(a for a in set(addrs) if a not in self.cache)
        if not todo:
            return
        p = subprocess.run(["addr2line", "-e", self.exe, "-f", "-i", "-a"],
                           input="".join("0x%x\n" % a for a in todo), capture_output=True, text=True)
        if p.returncode != 0:
            die("addr2line failed on %s: %s" % (self.exe, p.stderr.strip()))
        cur = None
        lines = p.stdout.split("\n")
        i = 0
        while i < len(lines):
            ln = lines[i]
            if ln.startswith("0x"):
                cur = int(ln, 16)
                self.cache[cur] = []
                i += 1
                continue
            if cur is not None and ln and i + 1 < len(lines):
                self.cache[cur].append(base_name(ln))
                i += 2  # the function line, then its file:line
                continue
            i += 1
        for a in todo:
            self.cache.setdefault(a, [])

    def chain(self, addr):
        return self.cache.get(addr, [])


def attribute(costs, exe, inliner):
    """-> {part: instructions} over every cost of a run."""
    parts = collections.OrderedDict((p, 0) for p in PART_NAMES)
    mine = [a for (ob, _, a) in costs if ob == exe]
    if not mine:
        die("callgrind counted no instruction of %s" % exe)
    inliner.resolve(mine)
    if not any(len(inliner.chain(a)) > 1 for a in mine):
        die("addr2line found no inlined function in %s (no debug information?): the parts would be wrong" % exe)
    memo = {}
    for (ob, fn, a), ir in costs.items():
        key = (ob == exe and a, fn)
        part = memo.get(key)
        if part is None:
            callers = [base_name(s) for s in fn.split("'")]
            chain = (inliner.chain(a) if ob == exe else []) + callers
            part = OTHER
            for name in chain:
                if name in FUNC_PART:
                    part = FUNC_PART[name]
                    break
            memo[key] = part
        parts[part] += ir
    return parts


def read_stats(path):
    st = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.strip().partition(" ")
                st[k] = v
    except OSError as e:
        die("cannot read the stats record %s: %s" % (path, e))
    return st


def alloc_record_bytes(path, kind_wanted=5):
    """(records of one kind, their bytes) in a version-2 profile: allocation
    samples (5) or time samples (7)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"SGCPROF\0" or struct.unpack_from("<I", data, 8)[0] != 2:
        die("%s: not a version-2 profile" % path)
    pos, n, nbytes = 24, 0, 0
    while pos + 12 <= len(data):
        blen = struct.unpack_from("<I", data, pos)[0]
        p, end = pos + 12, pos + 12 + blen
        while p < end:
            start = p
            kind = data[p]
            p += 1
            length, shift = 0, 0
            while True:
                b = data[p]
                p += 1
                length |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
            p += length
            if kind == kind_wanted:
                n += 1
                nbytes += p - start
        pos = end
    return n, nbytes


def run(cmd, env, out, log, fair=False):
    # valgrind runs one thread at a time; its default lock lets the thread
    # that releases it take it back, so a sampler thread woken by its timer
    # waits for the program to end (0 samples and every period missed in
    # gcbench --size 10 and 100).  --fair-sched=yes hands the lock over in
    # turn; it changes no single-threaded count.
    full = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--separate-callers=12",
            "--compress-strings=no", "--compress-pos=no", "--callgrind-out-file=" + out]
    if fair:
        full.append("--fair-sched=yes")
    full += cmd
    with open(log, "w") as lf:
        p = subprocess.run(full, env=env, stdout=subprocess.DEVNULL, stderr=lf)
    if p.returncode != 0:
        with open(log) as lf:
            tail = lf.read().splitlines()[-5:]
        die("%s failed (exit %d):\n  %s" % (" ".join(cmd), p.returncode, "\n  ".join(tail)))


def cases(args):
    b = args.bin
    q = args.quick
    n = "4000" if q else "200000"
    return collections.OrderedDict([
        ("cached", (b + "/sample-bench", ["stack", "--depth", "1", "--shape", "same", "--n", n], 64)),
        ("fresh10", (b + "/sample-bench", ["stack", "--depth", "10", "--shape", "fresh", "--n", n], 64)),
        ("gcbench", (b + "/gcbench", ["--size", "6"] if q else [], args.period)),
        ("binarytrees", (b + "/binarytrees", ["--size", "1", "--depth", "12"] if q else [], args.period)),
        ("time-signal", (b + "/gcbench", ["--size", "10" if q else "300"], "signal")),
        ("time-thread", (b + "/gcbench", ["--size", "10" if q else "300"], "thread")),
        ("deep-signal", (b + "/deepstack", ["--size", "50" if q else "10000"], "signal")),
        ("deep-thread", (b + "/deepstack", ["--size", "50" if q else "10000"], "thread")),
    ])


def measure(name, exe, argv, period, args, inliner):
    res = {}
    for mode in ("off", "on"):
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("SGC_")}
        stem = os.path.join(args.work, "%s.%s" % (name, mode))
        env["SGC_VIRTUAL_CLOCK"] = "1000"
        env["SGC_STATS"] = stem + ".stats"
        env["SGC_PROFILE"] = stem + ".prof"
        argv2 = list(argv)
        if os.path.basename(exe) == "sample-bench":
            argv2 += ["--period", str(period if mode == "on" else 0), "--profile", stem + ".prof"]
        elif mode == "on" and period in ("signal", "thread"):
            env["SGC_TIME_HZ"] = "1000"
            env["SGC_TIME_MODE"] = period
        elif mode == "on":
            env["SGC_ALLOC_PERIOD"] = str(period)
            env["SGC_ALLOC_MODE"] = "fixed"
        out = stem + ".cg"
        run([exe] + argv2, env, out, stem + ".log", fair=(period == "thread"))
        totals, costs = parse_callgrind(out)
        parts = attribute(costs, exe, inliner)
        if sum(parts.values()) != totals:
            die("%s %s: the parts sum to %d, callgrind's total is %d" % (name, mode, sum(parts.values()), totals))
        st = read_stats(stem + ".stats")
        res[mode] = dict(totals=totals, parts=parts, stats=st, prof=stem + ".prof")
    on, off = res["on"], res["off"]
    timed = period in ("signal", "thread")
    key = "time_samples_written" if timed else "alloc_samples"
    samples = int(on["stats"].get(key, "0"))
    if samples <= 0:
        die("%s: no sample taken with sampling on" % name)
    if int(off["stats"].get(key, "0")) != 0:
        die("%s: samples taken with sampling off" % name)
    if timed and (on["stats"].get("time_samples") != str(samples) or on["stats"].get("time_samples_dropped") != "0"):
        die("%s: %s time samples taken, %s dropped, %d written" % (
            name, on["stats"].get("time_samples"), on["stats"].get("time_samples_dropped"), samples))
    for k in ("bytes_allocated", "objects_allocated"):
        if on["stats"].get(k) != off["stats"].get(k):
            die("%s: %s differs between the runs (%s off, %s on)" % (name, k, off["stats"].get(k), on["stats"].get(k)))
    nrec, rbytes = alloc_record_bytes(on["prof"], 7 if timed else 5)
    if nrec != samples:
        die("%s: %d sample records in the profile for %d samples" % (name, nrec, samples))
    frames = int(on["stats"].get("stack_frames_interned", "0")) - int(off["stats"].get("stack_frames_interned", "0"))
    return dict(
        samples=samples,
        total=on["totals"] - off["totals"],
        on_total=on["totals"],
        off_total=off["totals"],
        parts=collections.OrderedDict((p, on["parts"][p] - off["parts"][p]) for p in PART_NAMES),
        frames=frames,
        record_bytes=rbytes,
        profile_bytes=os.path.getsize(on["prof"]) - os.path.getsize(off["prof"]),
    )


def main():
    ap = argparse.ArgumentParser(description="instructions per allocation sample, part by part (callgrind)")
    ap.add_argument("--bin", required=True, help="the directory of sample-bench, gcbench and binarytrees")
    ap.add_argument("--work", required=True, help="where the callgrind outputs, profiles and stats records go")
    ap.add_argument("--quick", action="store_true", help="small inputs (the test)")
    ap.add_argument("--period", type=int, default=32768, help="the workloads' sampling period (bytes, fixed mode)")
    ap.add_argument("--csv", help="also write every figure, as integers, to this CSV file")
    ap.add_argument("--cases", help="a comma-separated subset of: cached, fresh10, gcbench, binarytrees, "
                    "time-signal, time-thread, deep-signal, deep-thread")
    ap.add_argument("--parts", action="store_true", help="print the parts and their functions, and exit")
    args = ap.parse_args()
    if args.parts:
        for p, (what, fs) in PARTS.items():
            print("%-10s %s\n           %s" % (p, what, ", ".join(fs)))
        print("%-10s everything else (the program, start-up, shutdown)" % OTHER)
        return 0
    if args.period < 8 or args.period > 1 << 40:
        die("--period %d: expected 8 to 2^40 bytes" % args.period, 2)
    for tool in ("valgrind", "addr2line"):
        if shutil.which(tool) is None:
            die("%s is not installed (scripts/deps.sh installs valgrind and binutils)" % tool)
    all_cases = cases(args)
    chosen = list(all_cases)
    if args.cases:
        chosen = args.cases.split(",")
        for c in chosen:
            if c not in all_cases:
                die("--cases: unknown case %r (expected some of %s)" % (c, ", ".join(all_cases)), 2)
    os.makedirs(args.work, exist_ok=True)
    inliners = {}
    results = collections.OrderedDict()
    for c in chosen:
        exe, argv, period = all_cases[c]
        exe = os.path.realpath(exe)  # as callgrind names it
        if not os.access(exe, os.X_OK):
            die("%s is not built (run make)" % exe, 2)
        inl = inliners.setdefault(exe, Inliner(exe))
        results[c] = measure(c, exe, argv, period, args, inl)

    print("# instructions per sample by part (callgrind, sampling on minus off, SGC_VIRTUAL_CLOCK=1000; allocation"
          " samples in fixed mode, cached/fresh10 at period 64, workloads at %d; time samples at 1000 Hz%s)" % (
              args.period, ", --quick" if args.quick else ""))
    hdr = ["case", "samples", "total"] + PART_NAMES + ["frames/s", "instr/frame", "rec_bytes", "prof_bytes/s"]
    print(" ".join("%-11s" % h if i == 0 else "%9s" % h for i, h in enumerate(hdr)))
    for c, r in results.items():
        s = r["samples"]
        fps = r["frames"] / s
        row = [c, "%d" % s, "%.1f" % (r["total"] / s)] + ["%.1f" % (r["parts"][p] / s) for p in PART_NAMES]
        row += ["%.2f" % fps, "%.1f" % (r["parts"]["stack"] / r["frames"]) if fps >= 1 else "-",
                "%.2f" % (r["record_bytes"] / s), "%.2f" % (r["profile_bytes"] / s)]
        print(" ".join("%-11s" % v if i == 0 else "%9s" % v for i, v in enumerate(row)))
    print("# rec_bytes: bytes of one sample record (ALLOC_SAMPLE, or TIME_SAMPLE in the time cases); prof_bytes/s:"
          " the profile's growth per sample (records, stack nodes, names, block headers)")
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("case,samples,on_total,off_total,total," + ",".join(PART_NAMES) +
                    ",frames,record_bytes,profile_bytes\n")
            for c, r in results.items():
                f.write("%s,%d,%d,%d,%d,%s,%d,%d,%d\n" % (
                    c, r["samples"], r["on_total"], r["off_total"], r["total"],
                    ",".join(str(r["parts"][p]) for p in PART_NAMES), r["frames"], r["record_bytes"],
                    r["profile_bytes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
