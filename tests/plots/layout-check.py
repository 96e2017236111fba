#!/usr/bin/env python3
"""layout-check.py SWEEP-DIR FIGURES-LIST - checks what can be checked mechanically in a sweep's figures.

For every figure of plots/figures.list drawn in SWEEP-DIR/figures (its .svg,
.png and .txt), from the SVG's text elements (position, anchor, font size)
and the PNG's pixels:
  - no text runs off the canvas: no ink in the outer two pixel columns of
    the PNG (all of it when netpbm's pngtopnm is installed, else the title
    band);
  - no other text overlaps the title (estimated text boxes in the SVG, and
    in the PNG a blank row under the title's ink);
  - every numeric value axis has at least three tick labels (an axis of
    the plan's own rates or periods is checked by the next rule instead):
    gnuplot writes an
    axis's labels one after the other, so a run of consecutive numeric
    labels at the same x (right-aligned: a y axis) or the same y (centred:
    an x axis) is one axis of one panel;
  - every period of the plan (the periods in the figure's plot data) has a
    label on every period axis of the figure, and a title names only
    periods the data has;
  - on the simulated log axes (S1-S4), every value at or below 0, which the
    axis cannot show, is named in the caption;
  - figure 8's caption names only allocators of systems in the sweep.
Prints one line per failure and exits 1 if any; 2 on bad arguments.
"""
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

NUM = re.compile(r"^[-−]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?%?$")
# figures whose x axis holds the plan's own settings (a label per rate or
# period of the plan, however few), not a value scale
PLAN_X = {"overhead-alloc", "overhead-time", "sample-rate", "peers", "sim-overhead-alloc-instructions",
          "sim-overhead-alloc-cycles", "sim-overhead-time", "sim-vs-wall"}
PERIOD = re.compile(r"^(\d+)([KMG]?)$")
failures = []


def fail(fig, msg):
    failures.append(f"FAIL: {fig}: {msg}")


def fmtbytes(b):
    for unit, k in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if b >= k and b % k == 0:
            return f"{b // k}{unit}"
    return str(b)


def read_dat(path):
    """The rows of a plot data file as dicts by column name."""
    rows, cols = [], None
    with open(path) as f:
        for line in f:
            if cols is None:
                cols = line.split()[1:]
                continue
            v = line.split()
            if v:
                rows.append(dict(zip(cols, v)))
    return rows


def num(s):
    try:
        x = float(s)
    except (TypeError, ValueError):
        return None
    return None if x != x else x


def svg_texts(path):
    """(x, y, anchor, size, text) of every text element, in document order."""
    out = []
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"

    def walk(el, x, y, anchor, size, rot):
        tr = el.get("transform", "")
        m = re.search(r"translate\(([-\d.]+),([-\d.]+)\)", tr)
        if m:
            x, y = float(m.group(1)), float(m.group(2))
        if "rotate" in tr:
            rot = True
        anchor = el.get("text-anchor", anchor)
        if el.get("font-size"):
            size = float(el.get("font-size"))
        if el.tag == ns + "text":
            t = "".join(el.itertext()).strip()
            if t:
                out.append({"x": x, "y": y, "anchor": anchor, "size": size, "text": t, "rot": rot})
            return
        for c in el:
            walk(c, x, y, anchor, size, rot)

    walk(root, 0.0, 0.0, "start", 12.0, False)
    w, h = (float(v) for v in root.get("viewBox").split()[2:4])
    return out, w, h


def box(t):
    """An estimated box (x0, y0, x1, y1) of a text element (0.6 em a character)."""
    w = 0.6 * t["size"] * len(t["text"])
    x0 = t["x"] - (w / 2 if t["anchor"] == "middle" else w if t["anchor"] == "end" else 0)
    return (x0, t["y"] - 0.8 * t["size"], x0 + w, t["y"] + 0.2 * t["size"])


def png_rows(path, nrows):
    """The first nrows rows of an 8-bit RGB(A) PNG, as lists of (r, g, b)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError("not 8-bit RGB or RGBA")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    stride = w * bpp
    raw = zlib.decompressobj().decompress(idat, (stride + 1) * min(nrows, h))
    rows, prev = [], bytearray(stride)
    for r in range(min(nrows, h)):
        ft = raw[r * (stride + 1)]
        cur = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                cur[i] = (cur[i] + a) & 255
            elif ft == 2:
                cur[i] = (cur[i] + b) & 255
            elif ft == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(cur[i:i + 3]) for i in range(0, stride, bpp)])
        prev = cur
    return rows


def border_ink(path):
    """(row, column) of the first non-white pixel in the outer two columns, via pngtopnm; None without it."""
    try:
        ppm = subprocess.run(["pngtopnm", path], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    parts, pos = [], 0
    while len(parts) < 4:          # P6 width height maxval, whitespace separated
        while ppm[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not ppm[end:end + 1].isspace():
            end += 1
        parts.append(ppm[pos:end])
        pos = end
    pos += 1
    if parts[0] != b"P6" or parts[3] != b"255":
        return None
    w, h = int(parts[1]), int(parts[2])
    for r in range(h):
        row = ppm[pos + r * 3 * w: pos + (r + 1) * 3 * w]
        for x in (0, 1, w - 2, w - 1):
            if sum(row[3 * x:3 * x + 3]) < 3 * 235:
                return (r, x)
    return False


def axis_runs(texts):
    """Runs of consecutive numeric or period labels on one axis: (kind, [texts])."""
    runs, cur, key = [], [], None
    for t in texts:
        label = t["text"].split("\n")[0]
        numeric = bool(NUM.match(label)) or bool(PERIOD.match(label)) or label == "off"
        if numeric and not t["rot"] and t["anchor"] in ("end", "middle"):
            k = ("y", round(t["x"])) if t["anchor"] == "end" else ("x", round(t["y"]))
            if k == key:
                cur.append(t)
                continue
            if cur:
                runs.append((key[0], cur))
            cur, key = [t], k
        else:
            if cur:
                runs.append((key[0], cur))
            cur, key = [], None
    if cur:
        runs.append((key[0], cur))
    return runs


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        sys.exit(2)
    sweep, flist = sys.argv[1], sys.argv[2]
    figdir, pd = os.path.join(sweep, "figures"), os.path.join(sweep, "plotdata")
    # the plot data file and column of each figure's periods
    period_src = {"overhead-alloc": ("alloc_cells", "alloc_period"), "sample-rate": ("alloc_cells", "alloc_period"),
                  "peers": ("peers", "period_bytes"), "sim-overhead-alloc-instructions": ("sim_alloc", "alloc_period"),
                  "sim-overhead-alloc-cycles": ("sim_alloc", "alloc_period"), "sim-vs-wall": ("sim_compare", "alloc_period")}
    # the log-axis values of S1-S4 (in %), each with its label in the caption
    def pct(r, c):
        v = num(r.get(c))
        return None if v is None else (v - 1) * 100
    offlog = {
        "sim-overhead-alloc-instructions": ("sim_alloc", lambda r: [(pct(r, "overhead_Ir"), fmtbytes(int(float(r["alloc_period"]))))]),
        "sim-overhead-alloc-cycles": ("sim_alloc", lambda r: [(pct(r, "overhead_est_cycles"), fmtbytes(int(float(r["alloc_period"]))))]),
        "sim-overhead-time": ("sim_time", lambda r: [(pct(r, "model_overhead"), r["time_hz"] + " Hz")]),
        "sim-normalized": ("sim_normalized", lambda r: [(pct(r, c), "") for c in ("normalized_Ir", "normalized_est_cycles", "time_normalized_model")]),
    }
    checked = 0
    for line in open(flist):
        if not line.strip() or line.startswith("#"):
            continue
        name = line.split("\t")[0]
        svg, png, txt = (os.path.join(figdir, name + e) for e in (".svg", ".png", ".txt"))
        if not os.path.exists(svg):
            continue
        checked += 1
        texts, W, H = svg_texts(svg)
        caption = " ".join(open(txt).read().split()) if os.path.exists(txt) else ""
        # the title: the largest text in the top 40 pixels
        top = [t for t in texts if t["y"] < 40 and not t["rot"]]
        if not top:
            fail(name, "no title in the top 40 pixels of the SVG")
            continue
        title = max(top, key=lambda t: t["size"])
        tb = box(title)
        for t in texts:
            if t is title or t["rot"]:
                continue
            b = box(t)
            if b[0] < tb[2] and tb[0] < b[2] and b[1] < tb[3] and tb[1] < b[3]:
                fail(name, f"\"{t['text']}\" overlaps the title \"{title['text']}\"")
        # PNG: the title's rows of ink must end in a blank row within 1.6 font
        # sizes of where they start (a key or label drawn into the title
        # joins its ink to the title's; the PNG's fonts and key layout differ
        # from the SVG's, so this is checked on the pixels)
        rows = png_rows(png, 100)
        x0, x1 = max(0, int(tb[0])), min(len(rows[0]), int(tb[2]) + 1)
        inked = [any(sum(px) < 3 * 200 for px in row[x0:x1]) for row in rows]
        if True in inked:
            start = inked.index(True)
            end = next((r for r in range(start, len(inked)) if not inked[r]), len(inked))
            if end - start > 1.6 * title["size"]:
                fail(name, f"the title's ink runs on from row {start} to row {end} of the PNG: something is drawn into the title")
        # PNG: ink in the outer two columns means text run off the canvas
        # (nothing else reaches them: frames and grids keep a margin): the
        # whole height when netpbm's pngtopnm is there to decode it fast,
        # else the title band
        edge = border_ink(png)
        if edge is None:
            edge = next(((r, x) for r, row in enumerate(rows[:34]) for x in (0, 1, len(row) - 2, len(row) - 1)
                         if sum(row[x]) < 3 * 235), None)
        if edge:
            fail(name, f"text runs off the canvas (ink at column {edge[1]}, row {edge[0]} of the PNG)"
                 + (": the title" if edge[0] < 34 else ""))
        # tick labels per axis
        runs = axis_runs(texts)
        for kind, run in runs:
            if kind == "x" and name in PLAN_X:
                continue
            if len(run) < 3:
                fail(name, f"an {kind} axis with {len(run)} tick label(s): {', '.join(t['text'] for t in run)} (at least 3)")
        # periods
        if name in period_src and os.path.exists(os.path.join(pd, period_src[name][0] + ".dat")):
            f, col = period_src[name]
            plan = sorted({int(float(r[col])) for r in read_dat(os.path.join(pd, f + ".dat")) if num(r.get(col)) and float(r[col]) > 0})
            labs = {fmtbytes(p) for p in plan}
            prun = [run for kind, run in runs if kind == "x" and any(PERIOD.match(t["text"]) and not t["text"].isdigit() for t in run)]
            if name != "sim-vs-wall" and not prun:
                fail(name, "no period axis found")
            for run in prun:
                have = {t["text"] for t in run}
                for p in sorted(labs - have):
                    fail(name, f"period {p} of the plan has no tick label on an axis labelled {', '.join(sorted(have))}")
            for tok in re.findall(r"\b(\d+[KMG])\b", title["text"]):
                if tok not in labs:
                    fail(name, f"the title names period {tok}, which the data does not have ({', '.join(sorted(labs))})")
        # values a log axis cannot show are named in the caption
        if name in offlog and os.path.exists(os.path.join(pd, offlog[name][0] + ".dat")):
            f, fn = offlog[name]
            for r in read_dat(os.path.join(pd, f + ".dat")):
                for v, where in fn(r):
                    if v is not None and v <= 0:
                        key = (r["workload"] + " " + where).strip()
                        if key + " (" not in caption:
                            fail(name, f"{key} is {v:.3g}%, off the log axis, and the caption does not name it")
        # figure 8's caption names the allocators of the systems in the sweep only
        if name == "peers" and os.path.exists(os.path.join(pd, "peers.dat")):
            systems = {r["system"] for r in read_dat(os.path.join(pd, "peers.dat"))}
            m = re.search(r"their own allocators \(([^)]*)\)", caption)
            if not m:
                fail(name, "the caption does not say which allocators the systems run on")
            else:
                for word, system in (("jemalloc", "jemalloc"), ("gperftools", "gperftools"), ("Go", "go"),
                                     ("HotSpot", "hotspot"), ("V8", "v8")):
                    if re.search(r"\b" + word + r"\b", m.group(1)) and system not in systems:
                        fail(name, f"the caption names {word}, but no system of the sweep is {system}")
    if checked == 0:
        fail(sweep, "no figure found")
    for f in failures:
        print(f)
    print(f"layout: {checked} figures checked, {len(failures)} failures")
    sys.exit(1 if failures else 0)


main()
