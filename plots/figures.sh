#!/bin/sh
# figures.sh DIR - draws a sweep's figures from DIR/plotdata/*.dat into DIR/figures/ (PNG, SVG and a caption per figure).
#
# `make figures` runs it after `build/bin/analyze DIR`; it reads nothing but
# the plot data (docs/STATISTICS.md, "Plot data") and, for the confidence
# level, the first line of DIR/summary.csv.  docs/FIGURES.md describes every
# figure.
#
# For each figure it writes figures/<name>.png, <name>.svg and <name>.txt
# (the caption: what is plotted, from which sweep, how to read it).  A figure
# whose data this sweep does not have (no time-sampling cells, no stack
# depths...) is not drawn: its caption says what is missing and any older
# picture of it is removed, so a figure on disk always matches its data.
# A figure whose data file is corrupt is left untouched (and reported).
# Each picture is drawn under a temporary name and renamed into place only
# when complete, so an interrupted or failed run never leaves half a file.
#
# Exit status: 0 every figure drawn or explained as missing; 2 bad input
# (DIR or DIR/plotdata missing, no plot data at all, a data file whose
# header or rows do not have the documented form: the message names the file
# and line; the other figures are still drawn); 1 failure (gnuplot missing or
# failing, figures/ not writable).

usage="usage: sh plots/figures.sh DIR   (DIR: a sweep directory that build/bin/analyze has processed)
       sh plots/figures.sh --compare DIR   (DIR: build/bin/compare's --out directory)"
me="figures"
here=$(cd "$(dirname "$0")" && pwd) || exit 1

# figures.sh --compare DIR: the figure of build/bin/compare's DIR/compare.dat
# (the row of plots/figures.list whose data is !compare.dat), DIR/compare.png
# and .svg; `make compare ... COMPARE_OUT=DIR` runs it.
if [ "${1:-}" = --compare ]; then
    [ $# -eq 2 ] || { echo "usage: sh plots/figures.sh --compare DIR   (DIR: build/bin/compare's --out directory)" >&2; exit 2; }
    cd_=$2; dat="$cd_/compare.dat"
    [ -f "$dat" ] || { echo "figures: $dat: missing; run build/bin/compare --out $cd_ A B first" >&2; exit 2; }
    case "$cd_" in *"'"*) echo "figures: $cd_: a path with a quote cannot be passed to gnuplot; rename the directory" >&2; exit 2 ;; esac
    command -v gnuplot >/dev/null 2>&1 ||
        { echo "figures: gnuplot not found; install it with: sudo apt-get install gnuplot-nox (make deps does it)" >&2; exit 1; }
    row=$(awk -F'\t' '$4 == "!compare.dat" { print; exit }' "$here/figures.list")
    [ -n "$row" ] || { echo "figures: plots/figures.list has no row with data !compare.dat" >&2; exit 1; }
    script=$(printf '%s' "$row" | cut -f3); name=$(printf '%s' "$row" | cut -f1)
    # compare.dat's first line: "# ... threshold T% ... gate G ... time V"
    thr=$(sed -n '1s/.*threshold \([0-9.e+-]*\)%.*/\1/p' "$dat")
    gate=$(sed -n '1s/.* gate \([a-z]*\) .*/\1/p' "$dat")
    timev=$(sed -n '1s/.* time \([a-z]*\)$/\1/p' "$dat")
    rows=$(grep -vc '^#' "$dat")
    [ -n "$thr" ] || { echo "figures: $dat:1: no \"threshold N%\" in the header line (docs/STATISTICS.md, Comparing two sweeps)" >&2; exit 2; }
    for t in png svg; do
        gnuplot -e "dat='$dat'; out='$cd_/$name.$t.tmp'; term='$t'; thr=$thr; nrows=$rows; gate='${gate:-ratio}'; timev='${timev:-wall}'" "$here/$script" ||
            { rm -f "$cd_/$name.$t.tmp"; echo "figures: gnuplot failed on $cd_/$name.$t" >&2; exit 1; }
        mv -f "$cd_/$name.$t.tmp" "$cd_/$name.$t" || exit 1
    done
    exit 0
fi

[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
dir=$1
case "$dir" in
    -h|--help) echo "$usage"; exit 0 ;;
esac
if [ ! -d "$dir" ]; then
    echo "$me: $dir: no such sweep directory" >&2; exit 2
fi
pd="$dir/plotdata"
if [ ! -d "$pd" ]; then
    echo "$me: $pd: missing; run build/bin/analyze $dir first (make figures RESULTS=$dir does both)" >&2; exit 2
fi
# gnuplot receives paths inside single-quoted strings.
case "$dir" in
    *"'"*|*'
'*) echo "$me: $dir: a path with a quote or newline cannot be passed to gnuplot; rename the directory" >&2; exit 2 ;;
esac
command -v gnuplot >/dev/null 2>&1 ||
    { echo "$me: gnuplot not found; install it with: sudo apt-get install gnuplot-nox (make deps does it)" >&2; exit 1; }

# The plot data files and their columns: the table analyze writes them from
# (stats/st_plotdata.h), as `analyze --print-plotdata-columns` prints it, one
# line per file: "<file> <column>:<word|int|num> ...".  A file must have every
# column of its line (in any order; more are allowed); only word columns may
# hold something other than a number.  $ANALYZE names the analyze binary
# (default: build/bin/analyze next to this script).
analyze=${ANALYZE:-$here/../build/bin/analyze}
table=$("$analyze" --print-plotdata-columns 2>/dev/null) && [ -n "$table" ] ||
    { echo "$me: $analyze --print-plotdata-columns failed: build it first (make), or set ANALYZE" >&2; exit 1; }
files=$(printf '%s\n' "$table" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }')
eval "$(printf '%s\n' "$table" | awk '{
    need = ""; words = " "
    for (i = 2; i <= NF; i++) { split($i, a, ":"); need = need (i > 2 ? " " : "") a[1]; if (a[2] == "word") words = words a[1] " " }
    printf "need_%s=\"%s\"; words_%s=\"%s\"\n", $1, need, $1, words }')"

sweep=$(basename "$(cd "$dir" && pwd -P)")
out="$dir/figures"
mkdir -p "$out" 2>/dev/null && [ -w "$out" ] || { echo "$me: $out: cannot create or write" >&2; exit 1; }
tmp=$(mktemp -d "$out/.tmp.XXXXXX") || { echo "$me: $out: cannot create a temporary directory" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

status=0          # raised to 2 (bad data) or 1 (failure); missing data is fine
drawn=0; skipped=""; broken=""

# check_file NAME: 0 if plotdata/NAME.dat exists, has the documented header
# and well-formed rows, and holds at least one row; 3 if it is absent or has
# no rows (the figure is skipped as "not in this sweep"); 2 if it is corrupt
# (message on stderr).  Also writes $tmp/NAME.cols: gnuplot definitions
# c_NAME_<column> = <column number>, so the scripts find columns by name.
check_file() {
    f="$pd/$1.dat"
    [ -f "$f" ] || return 3
    eval "need=\$need_$1; textcols=\$words_$1"
    awk -v file="$f" -v name="$1" -v need="$need" -v textcols="$textcols" -v cols="$tmp/$1.cols" '
        function bad(msg) { printf "figures: %s:%d: %s\n", file, NR, msg > "/dev/stderr"; failed = 1; exit 2 }
        NR == 1 {
            if ($1 != "#" || NF < 2) bad("first line must be \"# <column names>\" (docs/STATISTICS.md, Plot data)")
            n = NF - 1
            for (i = 2; i <= NF; i++) { col[$i] = i - 1; colname[i - 1] = $i
                v = $i; gsub(/[^A-Za-z0-9_]/, "_", v)      # a gnuplot variable name
                printf "c_%s_%s = %d\n", name, v, i - 1 > cols }
            k = split(need, want, " ")
            for (i = 1; i <= k; i++) if (!(want[i] in col)) bad("no column \"" want[i] "\" in the header")
            next
        }
        /^[ \t]*$/ { next }
        /^[ \t]*#/ { bad("a comment line after the header") }
        {
            if (NF != n) bad(sprintf("%d fields, the header names %d", NF, n))
            # workload names end up inside gnuplot strings and titles;
            # normalized.dat has a row per mode of the time sampler, keyed
            # "<workload>/<mode>" for the modes after signal
            if ("workload" in col && $(col["workload"]) !~ (name == "normalized" ? "^[A-Za-z0-9_.+-]+(/[a-z]+)?$" : "^[A-Za-z0-9_.+-]+$"))
                bad(sprintf("workload name \"%s\" has characters other than letters, digits and _.+-%s", $(col["workload"]),
                    name == "normalized" ? " (and one /mode)" : ""))
            for (i = 1; i <= n; i++)
                if (index(textcols, " " colname[i] " ") == 0 &&
                    $i !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ && $i != "NaN" && $i != "nan")
                    bad(sprintf("column %s (\"%s\") is not a number", colname[i], $i))
            rows++
        }
        END { if (failed) exit 2; if (NR == 0) { printf "figures: %s: empty file\n", file > "/dev/stderr"; exit 2 }
              exit rows > 0 ? 0 : 3 }' "$f"
}

# Every file is checked once, up front.  ok_<name> is yes, absent or corrupt.
found=0
for name in $files; do
    check_file "$name"
    case $? in
        0) eval "ok_$name=yes"; found=1 ;;
        3) eval "ok_$name=absent"; [ -f "$pd/$name.dat" ] && found=1 ;;
        *) eval "ok_$name=corrupt"; status=2; found=1 ;;
    esac
done
# regress.csv (the per-sample cost fits, docs/STATISTICS.md): figure 3 reads
# its wall-time rows; ok_regress_csv as for the plot data files.
ok_regress_csv=absent
if [ -f "$dir/regress.csv" ]; then
    if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
            split("workload kind metric norm_overhead norm_lo norm_hi verdict norm_diff norm_diff_lo norm_diff_hi paired_pairs paired_norm_overhead paired_norm_lo paired_norm_hi", need, " ")
            for (k in need) if (!(need[k] in c)) { printf "figures: %s:1: no column \"%s\" in the header\n", FILENAME, need[k] > "/dev/stderr"; bad = 1; exit 2 }
            n = NF; next }
        NF && NF != n { printf "figures: %s:%d: %d fields, the header names %d\n", FILENAME, NR, NF, n > "/dev/stderr"; bad = 1; exit 2 }
        NF && $(c["metric"]) == "wall" { rows++ }
        END { if (bad) exit 2; exit rows > 0 ? 0 : 3 }' "$dir/regress.csv"; then ok_regress_csv=yes
    elif [ $? -eq 2 ]; then ok_regress_csv=corrupt; status=2; fi
fi

if [ $found -eq 0 ]; then
    echo "$me: $pd: none of the plot data files (${files}) is there; run build/bin/analyze $dir" >&2
    rm -rf "$tmp"; exit 2
fi

# The workloads, in the order of workloads.dat (sorted by name), each with a
# fixed colour; without workloads.dat, the sorted names found in the data.
if [ "$ok_workloads" = yes ]; then
    workloads=$(awk 'NR > 1 && NF { print $2 }' "$pd/workloads.dat" | tr '\n' ' ')
else
    workloads=$(for name in $files; do
        case $name in workloads|sim_*) continue ;; esac
        eval "[ \"\$ok_$name\" = yes ]" &&
            awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF { print $(c["workload"]) }' "$pd/$name.dat"
        done | sort -u | tr '\n' ' ')
fi
workloads=${workloads% }
# Workloads that only simulated cells have (a sweep of --backends sim) come after.
for name in $files; do
    case $name in sim_*) ;; *) continue ;; esac
    eval "[ \"\$ok_$name\" = yes ]" || continue
    for w in $(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF { print $(c["workload"]) }' "$pd/$name.dat" | sort -u); do
        case " $workloads " in *" $w "*) ;; *) workloads="${workloads:+$workloads }$w" ;; esac
    done
done

# present FILE [AWK-CONDITION]: the workloads (in the fixed order) that have a
# row in FILE meeting the condition, space separated.
present() {
    awk -v order="$workloads" -v cond_col="${2:-}" -v cond_val="${3:-}" '
        NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF && (cond_col == "" || $(c[cond_col]) == cond_val) { seen[$1] = 1 }
        END { n = split(order, w, " "); s = ""
              for (i = 1; i <= n; i++) if (w[i] in seen) s = s (s == "" ? "" : " ") w[i]
              print s }' "$pd/$1.dat"
}
# valued FILE COLUMN: the workloads (in the fixed order) with a number (not
# NaN) in COLUMN of some row of FILE: those a panel can be drawn for.
valued() {
    awk -v order="$workloads" -v col="$2" '
        NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF && $(c[col]) !~ /^[nN][aA][nN]$/ { seen[$(c["workload"])] = 1 }
        END { n = split(order, w, " "); s = ""
              for (i = 1; i <= n; i++) if (w[i] in seen) s = s (s == "" ? "" : " ") w[i]
              print s }' "$pd/$1.dat"
}
# has FILE COLUMN VALUE: prints 1 if some row of FILE has VALUE in COLUMN, else 0.
has() {
    awk -v col="$2" -v val="$3" 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF && $(c[col]) == val { f = 1 } END { print f ? 1 : 0 }' "$pd/$1.dat"
}

# colrange FILE "COLUMNS" [CONDITIONS] [WORKLOADS]: the smallest and largest
# number in COLUMNS over the rows of FILE meeting CONDITIONS (comma separated
# "column=value"), as "min max"; NaN values are skipped, and so are
# non-positive ones (for logarithmic axes) unless COLRANGE_ALL=1.
# With WORKLOADS, one "min max" pair per workload, in that order.  A range
# with no value at all is "none none".  The axis ranges are computed here
# rather than with gnuplot's stats command, which stops the whole script
# when a selection happens to hold no valid point.
# modes_in NAME NAMECOL NOCOL: the sampling modes (clocks) present in NAME.dat,
# space separated, ordered by their number in the runtime's table (column
# NOCOL: mode_no, clock_no; the first is the main series of figures 1, 2, 4
# and 6), by first appearance where the number is missing.
modes_in() {
    awk -v nc="$2" -v oc="$3" 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF { m = $(c[nc]); v = (oc in c) ? $(c[oc]) : "NaN"; v = (v ~ /^-?[0-9]+$/) ? v + 0 : 1e9 + NR
             if (!(m in no) || v < no[m]) no[m] = v }
        END { for (m in no) print no[m], m }' "$pd/$1.dat" | sort -n | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }'
}

# periods NAME COLUMN: the distinct periods (> 0) of COLUMN in NAME.dat, space
# separated and sorted: the plan's periods, each of which gets a tick label.
periods() {
    awk -v col="$2" 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF && $(c[col]) + 0 > 0 { print $(c[col]) + 0 }' "$pd/$1.dat" | sort -n -u | tr '\n' ' ' | sed 's/ $//'
}

# paired_in NAME: 1 if NAME.dat has a "pairs" column with a value above 0 (a blocked sweep), else 0.
paired_in() {
    awk 'NR == 1 { for (i = 2; i <= NF; i++) if ($i == "pairs") p = i - 1; next }
         NF && p && $p + 0 > 0 { f = 1 } END { print f ? 1 : 0 }' "$pd/$1.dat"
}

colrange() {
    awk -v cols="$2" -v conds="${3:-}" -v by="${4:-}" -v all="${COLRANGE_ALL:-0}" '
        NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1
                  nc = split(cols, C, " "); nk = split(conds, K, ","); next }
        !NF { next }
        {
            for (k = 1; k <= nk; k++) { split(K[k], kv, "="); if ($(c[kv[1]]) != kv[2]) next }
            g = (by == "") ? "" : $1
            for (j = 1; j <= nc; j++) {
                v = $(c[C[j]])
                if (v ~ /^[nN][aA][nN]$/ || (!all && v + 0 <= 0)) continue
                v += 0
                if (!(g in lo) || v < lo[g]) lo[g] = v
                if (!(g in hi) || v > hi[g]) hi[g] = v
            }
        }
        END {
            if (by == "") { print (("" in lo) ? lo[""] " " hi[""] : "none none"); exit }
            n = split(by, W, " "); s = ""
            for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") ((W[i] in lo) ? lo[W[i]] " " hi[W[i]] : "none none")
            print s
        }' "$1"
}

# merge_ranges "PAIRS" "PAIRS"...: the union of per-workload ranges given as
# equally long lists of "min max" pairs; "none" entries are ignored, and a
# workload with no value at all gets "1 1".
merge_ranges() {
    printf '%s\n' "$@" | awk '
        { for (i = 1; i <= NF; i += 2) { k = (i + 1) / 2; if (k > n) n = k
              if ($i == "none") continue
              if (!(k in lo) || $i + 0 < lo[k]) lo[k] = $i + 0
              if (!(k in hi) || $(i + 1) + 0 > hi[k]) hi[k] = $(i + 1) + 0 } }
        END { s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? " " : "") ((k in lo) ? lo[k] " " hi[k] : "1 1"); print s }'
}

# outside_runs "RANGES" "PANELS" FILE...: how many runs (column ratio) of the
# FILEs lie outside their panel's range as overhead.gp draws it (the range
# with 1 in it, padded 4% below and 6% above, or 4% and 6% of its ratio on a
# log scale, when it spans more than a factor 2).
outside_runs() {
    r=$1; p=$2; shift 2
    for f in "$@"; do cat "$pd/$f.dat"; done | awk -v r="$r" -v p="$p" '
        BEGIN { n = split(p, P, " "); split(r, R, " ")
                for (i = 1; i <= n; i++) { lo = R[2 * i - 1] + 0; hi = R[2 * i] + 0; if (lo > 1) lo = 1; if (hi < 1) hi = 1
                    if (hi / lo > 2) { s = hi / lo; bot[P[i]] = lo / s ^ 0.04; top[P[i]] = hi * s ^ 0.06 }
                    else { d = (hi - lo > 0) ? hi - lo : 0.01; bot[P[i]] = lo - 0.04 * d; top[P[i]] = hi + 0.06 * d } } }
        /^#/ { delete c; for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF && ($1 in bot) && ("ratio" in c) { v = $(c["ratio"]); if (v !~ /^[nN]/ && (v + 0 < bot[$1] || v + 0 > top[$1])) k++ }
        END { print k + 0 }'
}

# The confidence level analyze used, for keys and captions.
conf=$(sed -n '1s/.*confidence=\([0-9.]*\).*/\1/p' "$dir/summary.csv" 2>/dev/null)
case "$conf" in
    0.*) cilabel=$(awk -v c="$conf" 'BEGIN { printf "%g%%", c * 100 }') ;;
    *) cilabel="95%" ;;
esac

# draw NAME SCRIPT EXTRA-GNUPLOT-SETTINGS: both formats of one figure.
draw() {
    fig=$1; script=$2; extra=$3
    {
        printf "datadir = '%s'\n" "$pd"
        # shown literally in gnuplot's enhanced text: _ ^ { } @ & ~ escaped
        printf "sweep = '%s'\n" "$(printf '%s' "$sweep" | sed 's/[][_^{}@&~\\]/\\&/g')"
        printf "workloads = '%s'\n" "$workloads"
        printf "cilabel = '%s'\n" "$cilabel"
        cat "$tmp"/*.cols 2>/dev/null
        printf '%s\n' "$extra"
    } > "$tmp/$fig.vars"
    for fmt in png svg; do
        if ! gnuplot -e "fmt = '$fmt'; outfile = '$tmp/$fig.$fmt'" "$tmp/$fig.vars" \
                "$here/common.gp" "$here/$script" > "$tmp/$fig.$fmt.log" 2>&1; then
            echo "$me: gnuplot failed on $fig.$fmt:" >&2; sed 's/^/    /' "$tmp/$fig.$fmt.log" >&2
            status=1; return 1
        fi
        if [ ! -s "$tmp/$fig.$fmt" ]; then
            echo "$me: gnuplot wrote no $fig.$fmt" >&2; status=1; return 1
        fi
    done
    mv -f "$tmp/$fig.png" "$out/$fig.png" && mv -f "$tmp/$fig.svg" "$out/$fig.svg" || { status=1; return 1; }
    drawn=$((drawn + 1))
}

# caption NAME TEXT: writes the caption file (atomically).
# The first line (the figure's title) stays whole; the rest is folded.
caption() {
    { printf '%s\n' "$2" | sed -n 1p; printf '%s\n' "$2" | sed 1d | fold -s -w 78 | sed 's/ *$//'; } > "$tmp/$1.txt" &&
        mv -f "$tmp/$1.txt" "$out/$1.txt"
}

# not_drawn NAME TITLE WHY: a figure this sweep has no data for gets a
# caption saying so, and any older picture of it goes (it showed other data).
# A figure whose data is corrupt is left exactly as it was: bad input never
# destroys what an earlier run drew; the error message says what is wrong.
not_drawn() {
    case "$3" in
        *"documented form"*) broken="$broken $1"; return ;;
    esac
    rm -f "$out/$1.png" "$out/$1.svg"
    caption "$1" "$2 (sweep $sweep): NOT DRAWN.

$3

Source: $shown/plotdata."
    skipped="$skipped $1"
}

# peers_untimed: why figure 8 has nothing to draw when peers.dat has no
# overhead: the sweep has no timed cells of the blocked design (the simulated
# part alone, or the in-process design), and where what it has is shown.
peers_untimed() {
    what="" where="peers.md"
    if [ -f "$pd/inprocess.dat" ] && [ "$(sed 1d "$pd/inprocess.dat" | grep -c .)" -gt 0 ]; then
        what="the in-process design, whose runs alternate sampling within one process"
        where="peers.md (each system's in-process per-sample cost) and figure 7"
    fi
    if [ -f "$pd/sim_alloc.dat" ] && [ "$(sed 1d "$pd/sim_alloc.dat" | grep -c .)" -gt 0 ]; then
        what="${what:+$what, and }the simulated part alone, --backends sim"
        where="peers.md (each system's instructions per sample) and figures S1 and S2 (the simulated overhead against the period, per system)"
    fi
    echo "Figure 8 draws each system's overhead from the sweep's timed cells: the paired wall time of the blocked design (its runs against their adjacent baseline runs). No allocation cell of this sweep has one (plotdata/peers.dat has no overhead estimate)${what:+: it ran $what}, so there is nothing to draw; what it measured of each system is in $where."
}

# why_missing FILE...: a sentence on the first of the files that is unusable.
why_missing() {
    for f in "$@"; do
        eval "st=\$ok_$f"
        if [ "$f" = regress_csv ]; then
            case $st in
                corrupt) echo "regress.csv does not have the documented form (see the error printed by figures.sh)."; return ;;
                absent) echo "regress.csv has no wall-time fit (no sampling cell with a baseline) or is missing: run build/bin/analyze $dir."; return ;;
            esac
            continue
        fi
        case $st in
            corrupt) echo "plotdata/$f.dat does not have the documented form (see the error printed by figures.sh)."; return ;;
            absent) if [ -f "$pd/$f.dat" ] && [ "$f" = peers ]; then peers_untimed
                    elif [ -f "$pd/$f.dat" ]; then echo "plotdata/$f.dat has no rows: this sweep has no such cells."
                    else echo "plotdata/$f.dat is missing."; fi; return ;;
        esac
    done
}

# What the sweep's own metadata says about where and when it ran (results.db,
# table meta), so a caption read on its own still identifies its sweep.
sweep_info=""
if [ -f "$dir/results.db" ] && command -v sqlite3 >/dev/null 2>&1; then
    sweep_info=$(sqlite3 -batch -separator '|' "file:$dir/results.db?mode=ro" \
        "SELECT key, replace(value, char(10), ' ') FROM meta WHERE key IN
         ('started_utc', 'host', 'cpu_model', 'git_revision', 'git_dirty', 'plan')" 2>/dev/null |
        awk -F'|' '{ v[$1] = $2 } END {
            s = ""
            if ("started_utc" in v) s = s " started " v["started_utc"] ","
            if ("host" in v) s = s " on host " v["host"] ("cpu_model" in v ? " (" v["cpu_model"] ")" : "") ","
            if ("git_revision" in v) s = s " revision " substr(v["git_revision"], 1, 12) (v["git_dirty"] == "1" ? " (with uncommitted changes)" : "") ","
            if ("plan" in v) s = s " plan: " v["plan"] ","
            sub(/,$/, "", s); if (s != "") print "Sweep" s "." }')
fi
# Captions name the sweep's real directory (results/latest moves on), relative
# to where make runs when it is below it.
shown=$(cd "$dir" && pwd -P)
case "$shown" in "$(pwd -P)"/*) shown=${shown#"$(pwd -P)"/} ;; esac
source_line="Data: $shown/plotdata (written by build/bin/analyze from $shown/results.db). Intervals: $cilabel bootstrap confidence intervals (BCa where defined, else percentile; see docs/STATISTICS.md).${sweep_info:+ $sweep_info}"

# The time-sampling rates of the sweep: the ticks of figure 2 and the
# reference lines of figure 6.
rates=""
[ "$ok_time_cells" = yes ] && rates=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
    NF { r[$(c["time_hz"])] = 1 } END { for (k in r) print k }' "$pd/time_cells.dat" | sort -n | tr '\n' ' ')
rates=${rates% }

# One function per row of plots/figures.list, fig_<name>: called when every
# plot data file the row names is usable, with F_NAME, F_SCRIPT and F_TITLE
# ("Figure N. <title>") set; it computes what its gnuplot script needs, draws
# the figure with draw and writes its caption, or explains with not_drawn
# why this sweep's data cannot show it.

# overhead-alloc: overhead vs allocation sampling period.
fig_overhead_alloc() {
    panels=$(present alloc_cells)
    base=$([ "$ok_baseline_runs" = yes ] && echo 1 || echo 0)
    modes=$(modes_in alloc_cells alloc_mode mode_no)
    # The vertical range follows the cells' medians and intervals (the
    # paired ones included), not the runs: a few outlying runs would
    # otherwise squash the intervals to a few pixels; runs beyond it are
    # drawn on the frame's edge (the caption counts them).
    yr=$(colrange "$pd/alloc_cells.dat" "overhead overhead_lo overhead_hi paired paired_lo paired_hi" "" "$panels")
    yr=$(merge_ranges "$yr" "$yr")
    nout=$(outside_runs "$yr" "$panels" alloc_runs $([ "$base" = 1 ] && echo baseline_runs))
    xr=$(colrange "$pd/alloc_cells.dat" alloc_period)
    pair=$(paired_in alloc_cells)
    draw "$F_NAME" "$F_SCRIPT" "plan_periods = '$(periods alloc_cells alloc_period)'; which = 'alloc'; panels = '$panels'; has_base = $base; modes = '$modes'; has_paired = $pair; yranges = '$yr'; xrange_ = '$xr'" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload (one panel each: $panels), the run time with allocation sampling on, divided by the median run time of the same workload without sampling (its baseline), against the sampling period in bytes on a log2 axis. Each faint dot is one measured run; the black points joined by a line are the cell medians, with their $cilabel confidence intervals as bars.$([ "$base" = 1 ] && echo " The dots above \"off\" are the baseline's own runs divided by their median: the run-to-run noise, the spread a real overhead must stand out from.")$(set -- $modes; [ $# -gt 1 ] && echo " Filled points: $1 mode; open points with dashed lines, shifted a little right: the other modes ($(shift; echo "$*" | sed 's/ /, /g')).")$([ "$pair" = 1 ] && printf '\n\n%s' "Blue squares with bars, a little left of each period: the paired ratio (each run over the adjacent run of its baseline in the same block, the Hodges-Lehmann estimate over blocks, one-sample $cilabel interval; docs/STATISTICS.md, \"Paired comparisons\"). It is the process-level measurement (the whole run, start-up included), and it is narrower than the black bars because adjacent runs share their noise.")

How to read: the dashed line at 1 is no overhead; 1.25 means 25% slower.$([ "$nout" -gt 0 ] && echo " The vertical range follows the cells' medians and intervals; $nout runs beyond it are drawn on the frame's edge.") Each panel has its own vertical scale (a log scale when it spans more than a factor 2), so compare workloads by their tick labels, not by the height of the curves. Overhead falls roughly in proportion to 1/period because the cost is paid once per sample; where the bars include 1 this sweep cannot tell the overhead from noise.

$source_line"
}

# overhead-time: overhead vs time-sampling rate.
fig_overhead_time() {
    panels=$(present time_cells)
    base=$([ "$ok_baseline_runs" = yes ] && echo 1 || echo 0)
    # Each clock and time sampler's mode is a series (time_series); plot data
    # from before that column: the clocks.
    ser=$(head -n 1 "$pd/time_cells.dat" | tr ' ' '\n' | grep -c -x time_series)
    if [ "$ser" = 1 ]; then scol=time_series; modes=$(modes_in time_cells time_series series_no)
    else scol=time_clock; modes=$(modes_in time_cells time_clock clock_no); fi
    main=${modes%% *}
    yr=$(colrange "$pd/time_cells.dat" "overhead overhead_lo overhead_hi paired paired_lo paired_hi" "" "$panels")
    yr=$(merge_ranges "$yr" "$yr")
    nout=$(outside_runs "$yr" "$panels" time_runs $([ "$base" = 1 ] && echo baseline_runs))
    xr=$(colrange "$pd/time_cells.dat" time_hz)
    # each panel's achieved rate at each requested rate (median; -1: none)
    ach=$(for r in $rates; do colrange "$pd/time_cells.dat" hz_achieved "$scol=$main,time_hz=$r" "$panels"; done |
        awk '{ for (i = 1; i <= NF; i += 2) a[NR, (i + 1) / 2] = ($i == "none") ? -1 : $i; n = NF / 2 }
             END { s = ""; for (p = 1; p <= n; p++) for (r = 1; r <= NR; r++) s = s (s == "" ? "" : " ") a[r, p]; print s }')
    pair=$(paired_in time_cells)
    draw "$F_NAME" "$F_SCRIPT" "which = 'time'; panels = '$panels'; has_base = $base; modes = '$modes'; has_paired = $pair; has_series = $ser; time_rates = '$rates'; yranges = '$yr'; xrange_ = '$xr'; achieved = '$ach'" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload (one panel each: $panels), the run time with the time sampler on, divided by the median run time of the same workload without sampling (its baseline), against the requested sampling rate in Hz on a log axis (the achieved rate in brackets below it). Each faint dot is one measured run; the black points joined by a line are the cell medians, with their $cilabel confidence intervals as bars.$([ "$base" = 1 ] && echo " The dots above \"off\" are the baseline's own runs divided by their median: the run-to-run noise.")$(set -- $modes; [ $# -gt 1 ] && echo " Filled points: the $1 clock$([ "$ser" = 1 ] && echo " with the signal sampler"); open points with dashed lines, shifted a little right: the other series ($(shift; echo "$*" | sed 's/ /, /g'); a clock, and after a dash the time sampler's mode when it is not signal: wall-thread is the sampler thread on the wall clock).")$([ "$pair" = 1 ] && printf '\n\n%s' "Blue squares with bars, a little left of each rate: the paired ratio (each run over the adjacent run of its baseline, Hodges-Lehmann over blocks, one-sample $cilabel interval), the process-level measurement of the whole run.")

How to read: the dashed line at 1 is no overhead.$([ "$nout" -gt 0 ] && echo " The vertical range follows the cells' medians and intervals; $nout runs beyond it are drawn on the frame's edge.") Under each requested rate, in brackets, is the rate the timer actually achieved in that workload (median over its runs; time_hz_achieved in summary.csv): when it falls short, the cost belongs to the achieved rate. The time sampler's cost grows with the rate and is almost independent of the workload's allocation; compare with figure 1 at the period whose sample rate (figure 6) matches.

$source_line"
}

# normalized (figure 3): allocation against time sampling per 1000 samples/s,
# from the regressions (regress.csv's wall-time rows): per workload the two
# fits' normalized overheads minus 1, in %, and their difference (alloc minus
# time) with the verdict summary.md gives it.  fig3_data writes
# $tmp/fig3.dat, one row per workload with a fit (its slot in the fixed
# order), every value in % per 1000 samples/s and already cut to the axis
# ranges it chooses: an interval far wider than the others (a workload that
# takes almost no samples, whose extrapolation to 1000/s means little) does
# not set the range; it ends in an arrow at the frame, labelled with its
# true values.  It prints the gnuplot settings (ranges, counts) on stdout.
fig3_data() {
    awk -F, -v order="$workloads" -v out="$tmp/fig3.dat" -v margin="$1" '
        function num(v) { return v != "" && v !~ /^[nN][aA][nN]$/ }
        function pct(v) { return num(v) ? (v - 1) * 100 : "NaN" }
        function pct0(v) { return num(v) ? v * 100 : "NaN" }
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        # A workload whose time cells had several time sampler modes has one
        # time fit per mode (regress.csv time_mode): a slot each, "w/mode",
        # with the one allocation fit beside each and the difference and
        # verdict of that time row (against its mode).  One time fit: slot "w".
        NF && $(c["metric"]) == "wall" {
            w = $(c["workload"]); k = $(c["kind"]); seen[w] = 1
            key = k; md = ("time_mode" in c) ? $(c["time_mode"]) : ""
            if (k == "time") { if (!((w, md) in tmseen)) { tmseen[w, md] = 1; tm[w, ++ntm[w]] = md }; key = "time/" md }
            un[w, key] = pct($(c["norm_overhead"])) " " pct($(c["norm_lo"])) " " pct($(c["norm_hi"]))
            pa[w, key] = pct($(c["paired_norm_overhead"])) " " pct($(c["paired_norm_lo"])) " " pct($(c["paired_norm_hi"]))
            pok[w, key] = $(c["paired_pairs"]) + 0 > 0 && num($(c["paired_norm_lo"]))
            if (num($(c["norm_diff"]))) d[w, key] = pct0($(c["norm_diff"])) " " pct0($(c["norm_diff_lo"])) " " pct0($(c["norm_diff_hi"]))
            if ($(c["verdict"]) != "") v[w, key] = $(c["verdict"])
        }
        # the upper quartile of x[1..n] (sorted in place)
        function quartile3(x, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
            return x[int(0.75 * (n - 1)) + 1] }
        # The range of panel p over its entries E[p, 1..ne[p]] ("est lo hi"):
        # the estimates and interval ends of every entry whose interval is at
        # most 8 times the upper quartile of the widths in the panel (and 0, and
        # +-lim).
        function range(p, lim,   i, n, a, wd, cut, lo, hi, m) {
            n = 0
            for (i = 1; i <= ne[p]; i++) { split(E[p, i], a, " "); if (num(a[2]) && num(a[3])) wd[++n] = a[3] - a[2] }
            cut = n ? 8 * quartile3(wd, n) : 0
            if (cut < 4 * lim) cut = 4 * lim
            lo = -lim; hi = lim
            for (i = 1; i <= ne[p]; i++) { split(E[p, i], a, " ")
                if (num(a[2]) && num(a[3]) && a[3] - a[2] > cut) { wide[p, i] = 1; continue }
                for (m = 1; m <= 3; m++) if (num(a[m])) { if (a[m] < lo) lo = a[m]; if (a[m] > hi) hi = a[m] } }
            pad = 0.06 * (hi - lo); rlo[p] = lo - pad; rhi[p] = hi + pad }
        # entry i of panel p cut to its range: "y lo hi up down label"
        function cut(p, i,   a, y, l, h, up, dn, lab) {
            split(E[p, i], a, " "); y = a[1]; l = a[2]; h = a[3]; up = 0; dn = 0
            if (!num(y)) return "NaN NaN NaN 0 0 -"
            if (num(h) && h > rhi[p]) { h = rhi[p]; up = 1 }
            if (num(l) && l < rlo[p]) { l = rlo[p]; dn = 1 }
            if (y > rhi[p]) { y = rhi[p]; up = 1 } else if (y < rlo[p]) { y = rlo[p]; dn = 1 }
            lab = (up || dn) ? sprintf("\"%.3g [%.3g, %.3g]\"", a[1], a[2], a[3]) : "-"
            return y " " (num(l) ? l : "NaN") " " (num(h) ? h : "NaN") " " up " " dn " " lab }
        END {
            nw = split(order, W, " "); nrow = 0; nslot = 0
            for (j = 1; j <= nw; j++) { w = W[j]; if (!(w in seen)) { nslot++; continue }
                if (!ntm[w]) tm[w, ntm[w] = 1] = "-"  # no time fit: one slot, no time values
                if (ntm[w] > 1) nsplit++
                for (mi = 1; mi <= ntm[w]; mi++) {
                md = tm[w, mi]; kt = "time/" md; dk = ((w, kt) in d) ? kt : "alloc"
                R[++nrow] = ntm[w] > 1 ? w "/" md : w; slot[nrow] = nslot++
                # the basis of the verdict: the fits on the pairs when both have an interval
                bp[nrow] = pok[w, "alloc"] && pok[w, kt]
                npaired += bp[nrow]
                ka = ((w, "alloc") in un) ? (bp[nrow] ? pa[w, "alloc"] : un[w, "alloc"]) : "NaN NaN NaN"
                kv = ((w, kt) in un) ? (bp[nrow] ? pa[w, kt] : un[w, kt]) : "NaN NaN NaN"
                E[1, ++ne[1]] = ka; E[1, ++ne[1]] = kv
                if (bp[nrow]) { E[1, ++ne[1]] = un[w, "alloc"]; E[1, ++ne[1]] = un[w, kt] }
                else { E[1, ++ne[1]] = "NaN NaN NaN"; E[1, ++ne[1]] = "NaN NaN NaN" }
                E[2, ++ne[2]] = ((w, dk) in d) ? d[w, dk] : "NaN NaN NaN"
                vv[nrow] = ((w, dk) in v) ? v[w, dk] : "na"
                if (!((w, "alloc") in un) || split(un[w, "alloc"], q, " ") && q[1] == "NaN") noa = noa (noa == "" ? "" : ", ") R[nrow]
                if (!((w, kt) in un) || split(un[w, kt], q, " ") && q[1] == "NaN") not = not (not == "" ? "" : ", ") R[nrow]
                if (!((w, dk) in d)) nod = nod (nod == "" ? "" : ", ") R[nrow]
                if (vv[nrow] == "alloc_cheaper") nac++; else if (vv[nrow] == "time_cheaper") ntc++
                else if (vv[nrow] == "equivalent") neq++; else if (vv[nrow] == "not_resolved") nnr++ } }
            range(1, 0.5); range(2, 1.5 * margin)
            print "# slot workload paired verdict a a_lo a_hi a_up a_dn a_lab t t_lo t_hi t_up t_dn t_lab au au_lo au_hi au_up au_dn au_lab tu tu_lo tu_hi tu_up tu_dn tu_lab d d_lo d_hi d_up d_dn d_lab" > out
            for (r = 1; r <= nrow; r++) {
                s = slot[r] " " R[r] " " bp[r] " " vv[r]
                for (m = 1; m <= 4; m++) s = s " " cut(1, 4 * (r - 1) + m)
                print s " " cut(2, r) > out }
            for (p = 1; p <= 2; p++) for (i = 1; i <= ne[p]; i++) nwide += wide[p, i]
            # which optional series have a point at all (gnuplot 5.4 can crash
            # on a plot whose every point is undefined): cut ends per panel,
            # n/a per value
            for (r = 1; r <= nrow; r++) {
                for (m = 1; m <= 4; m++) { split(cut(1, 4 * (r - 1) + m), q, " "); cut1 += q[4] + q[5] }
                split(cut(2, r), q, " "); cut2 += q[4] + q[5]
                split(E[1, 4 * (r - 1) + 1], q, " "); na_a += !num(q[1])
                split(E[1, 4 * (r - 1) + 2], q, " "); na_t += !num(q[1])
                split(E[2, r], q, " "); na_d += !num(q[1])
                split(E[1, 4 * (r - 1) + 1], q, " "); has_a += num(q[1])
                split(E[1, 4 * (r - 1) + 2], q, " "); has_t += num(q[1])
                split(E[2, r], q, " "); has_d += num(q[1]) }
            printf "nrow=%d;npaired=%d;nac=%d;ntc=%d;neq=%d;nnr=%d;nwide=%d;nsplit=%d\n", nrow, npaired, nac, ntc, neq, nnr, nwide, nsplit
            printf "cut1=%d;cut2=%d;na_a=%d;na_t=%d;na_d=%d;has_a=%d;has_t=%d;has_d=%d\n", (cut1 > 0), (cut2 > 0), (na_a > 0), (na_t > 0), (na_d > 0), (has_a > 0), (has_t > 0), (has_d > 0)
            printf "yr1=\"%g %g\";yr2=\"%g %g\"\n", rlo[1], rhi[1], rlo[2], rhi[2]
            printf "noa=\"%s\";not=\"%s\";nod=\"%s\"\n", noa, not, nod }' "$dir/regress.csv"
}
fig_normalized() {
    # The verdicts' margin, as summary.md states it ("equivalent within 2%").
    mg=$(sed -n 's/.*By the regressions.*equivalent within \([0-9.]*\)% when.*/\1/p' "$dir/summary.md" 2>/dev/null | head -n 1)
    mg=${mg:-2}
    eval "$(fig3_data "$mg")"
    # The time sampler's modes in the sweep's comparison cells (normalized.dat):
    # a regress.csv from before the fits per mode (no time_mode column) fits
    # every time cell of a workload together.
    # The level of the fits' intervals (regress.csv level: replicates in a
    # replicated sweep; a regress.csv from before the column: runs within cells).
    fitlev=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "level") c = i; next }
        c && $c == "replicates" { r = 1 }
        END { print r ? "the difference over the sweep'"'"'s replicates (each replicate'"'"'s difference of its two fits, combined by the random-effects model)" : "the difference of the two fits'"'"' bootstrap replicates (over runs within cells)" }' "$dir/regress.csv")
    tmodes=""
    [ "$ok_normalized" = yes ] && tmodes=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF && ("time_mode" in c) && $(c["time_mode"]) != "-" && !($(c["time_mode"]) in s) { s[$(c["time_mode"])] = 1; printf "%s%s", n++ ? ", " : "", $(c["time_mode"]) }' "$pd/normalized.dat")
    draw "$F_NAME" "$F_SCRIPT" "fig3 = '$tmp/fig3.dat'; nrow = $nrow; npaired = $npaired; yr1 = '$yr1'; yr2 = '$yr2'; margin_pct = $mg; cut1 = $cut1; cut2 = $cut2; na_a = $na_a; na_t = $na_t; na_d = $na_d; has_a = $has_a; has_t = $has_t; has_d = $has_d" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload with a fit, what 1000 samples per second cost with allocation sampling and with time sampling, from the per-sample cost regressions of summary.md (\"Per-sample cost by regression\", regress.csv: every run's wall time fitted against the samples it took, the cost of turning sampling on kept apart): the normalized overhead 1 + cost x 1000/s / baseline, minus 1, in % (upper panel; a 1% difference is a tick apart). $([ "$npaired" -gt 0 ] && echo "Filled points: the fits on the pairs (each run minus the adjacent run of its baseline in the same block), the values the verdict uses; open, lighter points beside them: the fits on the runs, for comparison. ")The lower panel is what the verdict reads: the difference, allocation minus time, with the $cilabel interval of $fitlev, the shaded band the +-$mg% margin.

Verdicts (over each workload, the same as summary.md's line under the regression table): allocation cheaper when the difference's interval lies wholly below 0, time cheaper when wholly above, equivalent within $mg% when it lies inside the band, else not resolved: allocation cheaper $nac, time cheaper $ntc, equivalent $neq, not resolved $nnr, of $nrow $([ "$nsplit" -gt 0 ] && echo "comparisons" || echo "workloads").$([ "$nwide" -gt 0 ] && echo " An interval more than 8 times as wide as the upper quartile of the panel's widths does not set the axis: it is cut at the frame with an arrow, and its estimate and interval are written beside it ($nwide such).")$([ -n "$noa$not" ] && echo " No fit, so no point (n/a): ${noa:+allocation: $noa}${noa:+${not:+; }}${not:+time: $not} (regress.csv's note says why).")$([ -n "$nod" ] && echo " No difference, so no verdict: $nod.")$([ "$nsplit" -gt 0 ] && echo " This sweep has time cells of several time sampler's modes: such a workload has a slot per mode (<workload>/signal, <workload>/thread), each with that mode's own time fit and its difference from the workload's one allocation fit, drawn again in each slot.")$(set -- $(echo "$tmodes" | tr ',' ' '); [ $# -gt 1 ] && [ "$nsplit" -eq 0 ] && echo " This sweep has time cells of several time sampler's modes ($tmodes): its regress.csv predates the fits per mode, so the time fit pools them; summary.md's allocation-vs-time table compares each mode's cell nearest 1000 samples/s separately.")

How to read: lower is cheaper per sample; 0 is free. The regression uses every cell of a workload rather than the one nearest 1000 samples/s, so a period that takes few samples contributes little instead of being extrapolated 100-fold.

$source_line Regressions: weighted Theil-Sen fits, $cilabel percentile intervals from a bootstrap over runs within cells (docs/STATISTICS.md)."
}

# exactness: exactness, samples taken vs allocated bytes / period.
fig_exactness() {
    panels=$(present exactness)
    # runs, mismatches, runs checked by the exact rule (match 0 or 1), the
    # others, runs off the log axes, residual range of the checked runs
    counts=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF { n++; if ($(c["match"]) == "0") bad++
             chk = ($(c["match"]) == "0" || $(c["match"]) == "1"); if (chk) fx++; else po++
             if ($(c["sample_points"]) + 0 < 1 || $(c["expected"]) + 0 < 1) { zero++; next }
             if (chk) {
                 r = $(c["sample_points"]) - int($(c["sampled_bytes"]) / $(c["alloc_period"]))
                 if (r < rlo) rlo = r; if (r > rhi) rhi = r } }
        END { printf "%d %d %d %d %d %d %d", n, bad, fx, po, zero, (rlo < -1 ? rlo : -1), (rhi > 1 ? rhi : 1) }' "$pd/exactness.dat")
    # the modes of the checked runs and of the others, in the runtime's order
    exact_modes=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF && ($(c["match"]) == "0" || $(c["match"]) == "1") { print $(c["alloc_mode"]) }' "$pd/exactness.dat" | sort -u | tr '\n' ' ')
    other_modes=""
    for m in $(modes_in exactness alloc_mode mode_no); do
        case " $exact_modes " in *" $m "*) ;; *) other_modes="${other_modes:+$other_modes, }$m" ;; esac
    done
    exact_modes=$(echo $exact_modes | sed 's/ /, /g')
    set -- $counts
    lr=$(colrange "$pd/exactness.dat" "expected sample_points")
    draw "$F_NAME" "$F_SCRIPT" "panels = '$panels'; n_runs = $1; n_bad = $2; n_exact = $3; n_other = $4; other_modes = '$other_modes'; resrange = '$6 $7'; logrange = '$lr'" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: one point per measured run of every allocation-sampling cell ($1 runs: $3 checked by the exact rule${exact_modes:+ ($exact_modes mode)}, $4 in modes without exact counts${other_modes:+ ($other_modes)}; workloads: $panels): the sample points the runtime counted (alloc_sample_points) against the bytes allocated while sampling divided by the period, on log-log axes, with the identity line. The lower panel shows what the log scale hides: for the checked runs, sample points minus floor(bytes / period), which the sampling rule makes exactly 0 (docs/FORMATS.md, the stats record).

How to read: every checked point must lie on the identity line and on 0 in the lower panel; a run that does not is a bug in the sampler and is marked with a red cross (mismatching runs in this sweep: $2). Runs of the other modes (open circles) scatter around the line by about the square root of the count.$([ "$5" -gt 0 ] && echo " $5 runs with fewer than one expected sample cannot be shown on the log axes.")

$source_line"
}

# cost-depth: per-sample cost vs stack depth.
fig_cost_depth() {
    depths=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF && $(c["depth"]) != "NaN" && $(c["depth"]) != "nan" { d[$(c["depth"])] = 1 }
        END { n = 0; for (k in d) n++; print n }' "$pd/depth.dat")
    if [ "$depths" -ge 2 ]; then
        series=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
            NF && $(c["depth"]) != "NaN" { k = $1 ":" $(c["kind"]) ":" $(c["alloc_period"]) ":" $(c["time_hz"]); if (!(k in s)) { s[k] = 1; print k } }' "$pd/depth.dat" | tr '\n' ' ')
        dr=$(colrange "$pd/depth.dat" depth)
        cr=$(COLRANGE_ALL=1 colrange "$pd/depth.dat" "cost_us cost_lo cost_hi")
        draw "$F_NAME" "$F_SCRIPT" "series = '${series% }'; depthrange = '$dr'; costrange = '$cr'" &&
        caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: the extra wall time per sample in microseconds, (median run time - median baseline run time) / median samples per run, against the depth of the stack of frames the sampler walks, for the deepstack workload run at several recursion depths; allocation samples and time samples are separate series (one per sampling setting), with $cilabel confidence intervals.

How to read: the value at the smallest depth is roughly the fixed cost of taking one sample (the slow path for allocation samples, the signal and handler for time samples); the growth with depth is the cost of recording frames: (cost at depth b - cost at depth a) / (b - a) is the cost per frame. When the depths span more than 8x the x axis is log2, and a cost linear in depth shows as an upward curve. Each depth is compared with its own baseline at the same depth.

$source_line"
    else
        not_drawn "$F_NAME" "$F_TITLE" "This sweep did not vary the stack depth (plotdata/depth.dat has $depths distinct depths); run a sweep that includes deepstack at several --depth values."
    fi
}

# sample-rate: samples per second vs period.
fig_sample_rate() {
    panels=$(present alloc_cells)
    amode=$(modes_in alloc_cells alloc_mode mode_no); amode=${amode%% *}
    xr=$(colrange "$pd/alloc_cells.dat" alloc_period "alloc_mode=$amode")
    yr=$(colrange "$pd/alloc_cells.dat" "alloc_sps alloc_sps_lo alloc_sps_hi" "alloc_mode=$amode")
    # workloads without a single positive rate (nothing to draw on a log axis;
    # their key entries say so)
    empty=$(colrange "$pd/alloc_cells.dat" alloc_sps "alloc_mode=$amode" "$panels" |
        awk -v w="$panels" '{ n = split(w, W, " "); s = ""; for (i = 1; i <= n; i++) if ($(2 * i - 1) == "none") s = s " " W[i]; print s }')
    draw "$F_NAME" "$F_SCRIPT" "plan_periods = '$(periods alloc_cells alloc_period)'; panels = '$panels'; amode = '$amode'; time_rates = '$rates'; xrange_ = '$xr'; yrange_ = '$yr'; empty = '$empty '" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: allocation samples recorded per second of run time (median over the runs of each cell, with $cilabel confidence intervals, usually narrower than the markers) against the allocation sampling period in bytes, log-log, one line per workload ($amode mode; the workloads' points are shifted slightly sideways so their error bars do not hide one another).$([ -n "$rates" ] && echo " Dashed horizontal lines mark the time-sampling rates of this sweep ($rates Hz) for comparison.")

How to read: each line falls with slope -1 (twice the period, half the samples); its height is the workload's allocation rate divided by the period. A workload that allocates fast takes many more samples at the same period and therefore pays more (figure 1): the period alone does not fix the cost, the sample rate does. Where a line crosses a dashed line, allocation sampling takes as many samples as the time sampler at that rate.

$source_line"
}


# pctrange FILE "EXPRESSIONS" WORKLOADS: per workload, the "min max" of the
# values in percent; each expression is a column name (a ratio: (v - 1) x 100)
# or name*F (v x F); non-positive values are skipped unless PCT_ALL=1.
pctrange() {
    awk -v exprs="$2" -v by="$3" -v all="${PCT_ALL:-0}" '
        NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; ne = split(exprs, E, " "); next }
        !NF { next }
        { for (j = 1; j <= ne; j++) {
              split(E[j], p, "*"); v = $(c[p[1]])
              if (v ~ /^[nN][aA][nN]$/) continue
              v = (2 in p) ? v * p[2] : (v - 1) * 100
              if (p[1] == "model_user_ns") v *= $(c["time_hz"])
              if (!all && v <= 0) continue
              g = $(c["workload"])
              if (!(g in lo) || v < lo[g]) lo[g] = v; if (!(g in hi) || v > hi[g]) hi[g] = v } }
        END { n = split(by, W, " "); s = ""
              for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") ((W[i] in lo) ? lo[W[i]] " " hi[W[i]] : "1e-4 1e-3")
              print s }' "$1"
}
# inprocess: the in-process design's steady-state marginal overhead, one row per cell.
fig_inprocess() {
    nrow=$(awk 'NR > 1 && NF { n++ } END { print n + 0 }' "$pd/inprocess.dat")
    xr=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF {
            for (k = 0; k < 3; k++) { v = $(c[k == 0 ? "ratio" : k == 1 ? "lo" : "hi"])
                if (v ~ /^[nN][aA][nN]$/) continue; v = (v - 1) * 100
                if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v } }
        END { print (lo == "" ? "none none" : lo " " hi) }' "$pd/inprocess.dat")
    mp=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF && $(c["margin"]) !~ /^[nN][aA][nN]$/ { m = $(c["margin"]) * 100 }
        END { print (m == "" ? 2 : m) }' "$pd/inprocess.dat")
    counts=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF {
            if ($(c["kind"]) == "baseline") { aa++; next }
            n++; v = $(c["verdict"]); if (v == "slower") s++; else if (v == "faster") f++; else if (v ~ /^no_effect/) e++; else if (v == "not_resolved") u++ }
        END { printf "%d %d %d %d %d %d", n, aa, s, f, e, u }' "$pd/inprocess.dat")
    set -- $counts
    draw "$F_NAME" "$F_SCRIPT" "nrow = $nrow; xrange_ = '$xr'; margin_pct = $mp" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: one row per cell of this in-process sweep ($1 sampling cells and $2 A/A rows): the steady-state marginal cost of sampling, as the extra CPU time per unit of work (bytes allocated, or iterations) with sampling on, in percent. Inside each run the runtime switched the cell's sampling on (B) and off (A) in ABBA blocks of short segments; the value is the median over blocks of log((CPU/work, B) / (CPU/work, A)), with a one-sample $cilabel interval over blocks (docs/STATISTICS.md, \"In-process alternation\"). Colours: the verdict at the +-$mp% margin (shaded): red slower ($3), blue faster ($4), grey no effect above $mp% ($5), orange not resolved ($6). Open black circles: baseline runs, where nothing was switched (the A/A floor of the design).

How to read: this is the steady-state marginal cost, not the whole run: start-up, the profile's setup and final flush and the switching itself are not in it; figures 1 and 2 measure whole runs (process level). A bar inside the band with the verdict grey means no effect above the margin; a bar that crosses the band's edge is not resolved.

$source_line"
}

# peers (figure 8): the overhead of each system's sampler against the period,
# one panel per workload with an estimate, one line per system (sweeps of
# several systems: make peers).  The key and the caption give each system's
# per-sample cost, or say that it has none because the system keeps no count
# of its samples.
fig_peers() {
    f="$pd/peers.dat"
    # peers_awk PROGRAM: runs PROGRAM over peers.dat with the columns by name
    # (c[...]), the workloads with an estimate in file order (W[1..nw]) and,
    # per workload, its systems with an estimate (S[w, 1..ns[w]]) and its
    # first row (row[w, s]); lab(w, s) is the system's key entry.
    peers_awk() {
        awk "
        function num(v) { return v !~ /^[nN][aA][nN]\$/ }
        function lab(w, s,   r, a, k) { split(row[w, s], a, \" \")
            if (a[c[\"samples\"]] != \"counted\") return s \": no sample count, no per-sample cost\"
            k = num(a[c[\"inproc_cost_ns\"]]) ? \"inproc_cost\" : \"cost\"
            if (!num(a[c[k \"_ns\"]])) r = s \": per-sample cost n/a\"
            else {
                r = sprintf(\"%s: %.0f ns per sample\", s, a[c[k \"_ns\"]])
                if (num(a[c[k \"_lo\"]]) && num(a[c[k \"_hi\"]])) r = r sprintf(\" [%.0f, %.0f]\", a[c[k \"_lo\"]], a[c[k \"_hi\"]])
                r = r (k == \"cost\" ? \" (process level, wall)\" : \" (in-process, CPU)\") }
            if (num(a[c[\"sim_ir_per_sample\"]]))
                r = r sprintf(\", %.0f instructions%s\", a[c[\"sim_ir_per_sample\"]], a[c[\"sim_repeat\"]] == \"exact\" ? \"\" : \" (not exact)\")
            return r }
        function cap(w, s,   l) { l = lab(w, s); sub(/: no sample count, no per-sample cost\$/, \" none (no sample count)\", l); sub(/: /, \" \", l); return l }
        NR == 1 { for (i = 2; i <= NF; i++) c[\$i] = i - 1; next }
        !NF { next }
        { w = \$(c[\"workload\"]); s = \$(c[\"system\"])
          if (!(s in sysno)) { sysno[s] = ++nsys; sysname[nsys] = s }
          if (!(w in allw)) { allw[w] = 1; AW[++naw] = w }
          if (!num(\$(c[\"overhead_pct\"]))) next
          p = \$(c[\"period_bytes\"]) + 0; if (p > 0) { if (!np++ || p < lo) lo = p; if (p > hi) hi = p }
          if ((w, s) in row) next
          if (!(w in wno)) { wno[w] = ++nw; W[nw] = w }
          row[w, s] = \$0; S[w, ++ns[w]] = s
          if (\$(c[\"samples\"]) != \"counted\") nocount[s] = 1 }
        END { $1 }" "$f"
    }
    # The workloads, systems, key entries and x range, as gnuplot settings.
    vars=$(peers_awk 'printf "npanel = %d; xmin = %s; xmax = %s; systems = \"", nw, np ? lo : 1, np ? hi : 2
        for (k = 1; k <= nsys; k++) printf "%s%s", (k > 1 ? " " : ""), sysname[k]; printf "\"\n"
        for (k = 1; k <= nw; k++) { w = W[k]; printf "panel_%d = \"%s\"; sys_%d = \"", k, w, k
            for (i = 1; i <= ns[w]; i++) printf "%s%s", (i > 1 ? " " : ""), S[w, i]; printf "\"\n"
            for (i = 1; i <= ns[w]; i++) printf "lab_%d_%d = \"%s\"\n", k, i, lab(w, S[w, i]) }')
    panels=$(peers_awk 'for (k = 1; k <= nw; k++) printf "%s%s", (k > 1 ? " " : ""), W[k]')
    if [ -z "$panels" ]; then
        not_drawn "$F_NAME" "$F_TITLE" "$(peers_untimed)"
        return
    fi
    # "binarytrees: freecheck 412 ns per sample [398, 430], gperftools none (no sample count); gcbench: ..."
    costs=$(peers_awk 'for (k = 1; k <= nw; k++) { w = W[k]; printf "%s%s: ", (k > 1 ? "; " : ""), w
            for (i = 1; i <= ns[w]; i++) printf "%s%s", (i > 1 ? ", " : ""), cap(w, S[w, i]) }')
    nopanel=$(peers_awk 'for (k = 1; k <= naw; k++) if (!(AW[k] in wno)) printf "%s%s", (n++ ? ", " : ""), AW[k]')
    nocount=$(peers_awk 'for (k = 1; k <= nsys; k++) if (sysname[k] in nocount) printf "%s%s", (n++ ? ", " : ""), sysname[k]')
    # the allocators of the systems in this sweep, as the caption names them
    sysdesc=$(peers_awk 'for (k = 1; k <= nsys; k++) { s = sysname[k]
            d = s == "freecheck" ? "freecheck'"'"'s runtime" : s == "jemalloc" ? "C malloc with jemalloc" : s == "gperftools" ? "C malloc with gperftools" : s == "go" ? "Go" : s == "hotspot" ? "HotSpot" : s == "v8" ? "V8" : s
            printf "%s%s", (k > 1 ? ", " : ""), d }')
    draw "$F_NAME" "$F_SCRIPT" "plan_periods = '$(periods peers period_bytes)'; $vars" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload (one panel each: $panels$([ -n "$nopanel" ] && echo "; no overhead estimate, so no panel: $nopanel")), the overhead of allocation sampling on each system measured in this sweep, in % of wall time, against the sampling period (log2 axis): each point is a cell's paired overhead, the median over blocks of its runs against their adjacent baseline runs (Hodges-Lehmann), with a one-sample $cilabel interval. Per-sample cost (in the key): from the in-process design when the sweep's peers report has it (the extra CPU time per sample of the system's sampling segments, with its $cilabel interval over blocks), else the regression of each run's wall time on the samples the system itself counted, over the periods, with its $cilabel interval (docs/STATISTICS.md); and the instructions per sample the simulated part counted (the fixed cost apart; \"not exact\" when repeated runs did not agree; peers.md has the spread). $costs.$([ -n "$nocount" ] && echo " No per-sample cost for $nocount: the system keeps no count of its samples, and bytes allocated / period is not the number it took (docs/WORKLOADS.md, \"How each system's samples are counted\"); only the overhead is drawn.")

How to read: a line falls with the period as samples get rarer; at the same period a lower line costs less per byte allocated. The systems run the same work on their own allocators ($sysdesc), so compare the costs of sampling, not the run times. Where each system's sample check lives (folded into the allocation limit, or a counter on the malloc path) is in peers.md.

Data: $shown/plotdata/peers.dat (written by build/bin/analyze and build/bin/peers-report from $shown/results.db); the table is $shown/peers.md.${sweep_info:+ $sweep_info}"
}

# offlog FILE "EXPR..." [X-COLUMN]: the values a log axis cannot show (at or
# below 0), as "workload X (value%)" separated by ", "; EXPR as for pctrange;
# X is a period (formatted as 32K) or, with a third argument "hz", a rate.
offlog() {
    awk -v exprs="$2" -v xc="${3:-alloc_period}" '
        function fb(x) { return x % 1048576 == 0 ? x / 1048576 "M" : x % 1024 == 0 ? x / 1024 "K" : x }
        NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; ne = split(exprs, E, " "); next }
        !NF { next }
        { for (j = 1; j <= ne; j++) {
              split(E[j], p, "*"); v = $(c[p[1]])
              x = (xc == "index") ? "" : " " (xc == "time_hz" ? $(c[xc]) " Hz" : fb($(c[xc])))
              k = $(c["workload"]) x
              if (v ~ /^[nN][aA][nN]$/) { if (!(k in seen)) na[k] = 1; continue }
              v = (2 in p) ? v * p[2] : (v - 1) * 100
              if (p[1] == "model_user_ns") v *= $(c["time_hz"])
              if (v > 0) continue
              if (k in seen) continue; seen[k] = 1; delete na[k]
              s = s (s == "" ? "" : ", ") sprintf("%s (%.3g%%)", k, v) } }
        END { for (k in na) if (!(k in seen)) s = s (s == "" ? "" : ", ") k " (n/a)" }
        END { print s }' "$1"
}
offlog_note() {
    [ -n "$1" ] && echo " Not on the log axis: values at or below 0 (a red down-triangle at the bottom edge marks them) and values analyze could not compute (n/a): $1."
}

sim_source="Data: $shown/plotdata (written by build/bin/analyze from $shown/results.db, the cells with backend sim: every run under valgrind --tool=cachegrind --cache-sim=yes with fixed simulated caches, ASLR off, a fixed SGC_SEED, each cell run at least twice; docs/HARNESS.md, docs/STATISTICS.md).${sweep_info:+ $sweep_info}"
# sim_modes PANELS: the allocation mode figures S1, S2 and S5 draw for the
# workloads PANELS (sim_alloc_mode in stats/st_report.c): fixed, or for a
# workload without fixed-mode cells (a peers sweep's poisson) its own, as
# sim.csv (analyze) gives each cell's.
sim_modes() {
    m_="fixed mode, or a workload's own mode when it has no fixed-mode cells (sim.csv gives each cell's mode)"
    [ -f "$dir/sim.csv" ] || { echo "$m_"; return; }
    awk -F, -v shown="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $(c["kind"]) != "alloc" || index(" " shown " ", " " $(c["workload"]) " ") == 0 { next }
        { w = $(c["workload"]); m = $(c["alloc_mode"]); if (m == "fixed") fixed[w] = 1; else if (!(w in own)) { own[w] = m; W[++nw] = w } }
        END { for (k = 1; k <= nw; k++) if (!(W[k] in fixed)) { n++; s = s (n > 1 ? ", " : "") W[k] " (" own[W[k]] ")"; ms[own[W[k]]] = 1 }
              for (w in fixed) nf++
              for (k in ms) { nm++; one = k }
              if (!nf && nm == 1) print one " mode: the sweep has no fixed-mode cells"
              else if (n) print "fixed mode; in their own mode, having no fixed-mode cells: " s
              else print "fixed mode" }' "$dir/sim.csv"
}
# S1, S2: extra instructions / estimated cycles vs period (sim_fig_alloc METRIC MEANING).
sim_fig_alloc() {
    m=$1; mn=$2
    panels=$(valued sim_alloc "overhead_$m")
    # workloads whose every cell has no overhead (no ok run, or no baseline): no panel
    nopanel=$(for w in $(present sim_alloc); do case " $panels " in *" $w "*) ;; *) printf '%s\n' "$w" ;; esac; done | paste -sd, - | sed 's/,/, /g')
    modes=$(sim_modes "$panels")
    if [ -z "$panels" ]; then
        not_drawn "$F_NAME" "$F_TITLE" "plotdata/sim_alloc.dat has no overhead: no simulated allocation cell of this sweep has an ok run with a simulated baseline at its size (summary.md lists what the simulated part measured)."
        return
    fi
    yr=$(pctrange "$pd/sim_alloc.dat" "overhead_$m" "$panels")
    off=$(offlog "$pd/sim_alloc.dat" "overhead_$m")
    xr=$(colrange "$pd/sim_alloc.dat" alloc_period)
    draw "$F_NAME" "$F_SCRIPT" "plan_periods = '$(periods sim_alloc alloc_period)'; has_off = $([ -n "$off" ] && echo 1 || echo 0); which = 'alloc'; metric = '$m'; panels = '$panels'; yranges = '$yr'; xrange_ = '$xr'" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload (one panel each: $panels$([ -n "$nopanel" ] && echo "; no overhead estimate, so no panel: $nopanel")), the $mn a run executes with allocation sampling on ($modes), minus those of the same workload's simulated baseline at the same size, as a percentage of the baseline, against the sampling period (log2 axis); the y axis is logarithmic. $([ $m = Ir ] && echo "Instructions are valgrind's count of the instructions executed (sim::Ir)." || echo "Estimated cycles are L1 hits + 5 x LL hits + 35 x RAM accesses of the simulated caches (sim::est-cycles), a cost model, not a measurement of any CPU.")

How to read: every point is counted, not sampled: the runs of a cell agree to within 0.01% (checked, summary.md), so there are no intervals. The line falls with the period (the cost is paid once per sample) until the fixed cost of turning sampling on (the profile's setup) dominates at long periods. A point at or below 0 cannot be drawn on the log axis; summary.md lists every value.$(offlog_note "$off")

$sim_source"
}
fig_sim_overhead_alloc_instructions() { sim_fig_alloc Ir instructions; }
fig_sim_overhead_alloc_cycles() { sim_fig_alloc est_cycles "estimated cycles"; }

# S3: time sampling modelled at the native rate.
fig_sim_overhead_time() {
    panels=$(present sim_time)
    nopanel="" # every workload with a time cell gets a panel (not figure 8's or S1's list)
    yr=$(pctrange "$pd/sim_time.dat" "model_overhead model_user_ns*1e-7" "$panels")
    off=$(offlog "$pd/sim_time.dat" "model_overhead model_user_ns*1e-7" time_hz)
    xr=$(colrange "$pd/sim_time.dat" time_hz)
    trates=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF { r[$(c["time_hz"])] = 1 } END { for (k in r) print k }' "$pd/sim_time.dat" | sort -n | tr '\n' ' ')
    draw "$F_NAME" "$F_SCRIPT" "has_off = $([ -n "$off" ] && echo 1 || echo 0); which = 'time'; panels = '$panels'; yranges = '$yr'; xrange_ = '$xr'; time_rates = '${trates% }'" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload (one panel each: $panels$([ -n "$nopanel" ] && echo "; no overhead estimate, so no panel: $nopanel")), the overhead time sampling would have at its native rate, in % of the baseline's run time (log axes). Under valgrind a program runs 20-100x slower, so a timer fires 20-100x more often per unit of work, and the kernel's signal delivery is not counted at all: the simulated time cells cannot be read directly. Two parts are combined instead. COUNTED (open points, dashed): the user-space instructions per time sample (the handler and the drain into the profile: (cell - baseline instructions) / samples), converted to time with the baseline's native nanoseconds per instruction (its native CPU time at the same size over its counted instructions), times the rate. MEASURED (filled points, the total): plus the kernel's cost of delivering one signal, measured natively on this machine by time-bench (meta time_delivery_ns), times the rate.

How to read: the difference between the two lines is the kernel's part, which dominates here; the counted part is exact, the measured part carries the noise of one native micro-benchmark. Compare with figure 2, the same cells timed natively.$(offlog_note "$off")

$sim_source"
}

# S4: normalized overheads.
fig_sim_normalized() {
    finite=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF {
            for (k = 0; k < 3; k++) { v = $(c[k == 0 ? "normalized_Ir" : k == 1 ? "normalized_est_cycles" : "time_normalized_model"])
                if (v !~ /^[nN][aA][nN]$/) n++ } }
        END { print n + 0 }' "$pd/sim_normalized.dat")
    if [ "$finite" = 0 ]; then
        not_drawn "$F_NAME" "$F_TITLE" "plotdata/sim_normalized.dat has no normalized overhead: no workload of this sweep has both a simulated allocation cell with samples and a native sample rate, nor a simulated time cell (summary.md lists what the simulated part measured)."
        return 0
    fi
    yr=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF {
            for (k = 0; k < 3; k++) { v = $(c[k == 0 ? "normalized_Ir" : k == 1 ? "normalized_est_cycles" : "time_normalized_model"])
                if (v ~ /^[nN][aA][nN]$/) continue; v = (v - 1) * 100; if (v <= 0) continue
                if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v } }
        END { print (lo == "" ? "1e-4 1e-3" : lo " " hi) }' "$pd/sim_normalized.dat")
    xr=$(COLRANGE_ALL=1 colrange "$pd/sim_normalized.dat" index)
    off=$(offlog "$pd/sim_normalized.dat" "normalized_Ir normalized_est_cycles time_normalized_model" index)
    draw "$F_NAME" "$F_SCRIPT" "has_off = $([ -n "$off" ] && echo 1 || echo 0); which = 'normalized'; panels = ''; yranges = '$yr'; xrange_ = '$xr'" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload, 1 + (overhead - 1) x 1000 / (samples per second), shown as a percentage above 1 on a log axis: the cost of 1000 samples per second. Allocation sampling (the fixed-mode period whose native sample rate is nearest 1000/s): COUNTED in instructions and in estimated cycles, the native rate being samples over the baseline's native CPU time at the simulated size. Time sampling: MODELLED as in figure S3 (counted handler instructions at native speed plus the kernel's delivery cost measured natively), which is the same at every rate.

How to read: lower is cheaper per sample. A workload that took no allocation samples has no allocation points (summary.md lists every value).$(offlog_note "$off")

$sim_source"
}

# S5: instructions, estimated cycles and wall time side by side.
fig_sim_vs_wall() {
    panels=$(valued sim_compare overhead_Ir)
    # workloads whose compared cells have no overhead (no ok run, or no baseline): no panel
    nopanel=$(for w in $(present sim_compare); do case " $panels " in *" $w "*) ;; *) printf '%s\n' "$w" ;; esac; done | paste -sd, - | sed 's/,/, /g')
    if [ -z "$panels" ]; then
        not_drawn "$F_NAME" "$F_TITLE" "plotdata/sim_compare.dat has no counted overhead: no compared simulated allocation cell of this sweep has an ok run with a simulated baseline at its size (summary.md lists what the simulated part measured)."
        return
    fi
    hw=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next } NF && $(c["overhead_wall"]) !~ /^[nN][aA][nN]$/ { f = 1 } END { print f ? 1 : 0 }' "$pd/sim_compare.dat")
    yr=$(PCT_ALL=1 pctrange "$pd/sim_compare.dat" "overhead_Ir overhead_est_cycles overhead_wall overhead_wall_lo overhead_wall_hi" "$panels")
    set -- $(periods sim_compare alloc_period)
    ps_=${1:-32768}; pl_=${2:-$ps_}
    s5p=$(awk -v a="$ps_" -v b="$pl_" 'function f(x) { return x % 1048576 == 0 ? x / 1048576 "M" : x % 1024 == 0 ? x / 1024 "K" : x }
        BEGIN { print (b > a) ? "a " f(a) " and a " f(b) " period" : "a " f(a) " period" }')
    draw "$F_NAME" "$F_SCRIPT" "which = 'compare'; panels = '$panels'; yranges = '$yr'; has_wall = $hw; p_short = $ps_; p_long = $pl_" &&
    caption "$F_NAME" "$F_TITLE (sweep $sweep).

What: for each workload (one panel each: $panels$([ -n "$nopanel" ] && echo "; no overhead estimate, so no panel: $nopanel")), the overhead of allocation sampling ($(sim_modes "$panels")) at $s5p (the periods of the plan that sim_compare.dat holds), in % of the baseline, three ways: instructions and estimated cycles COUNTED under valgrind (exact, labelled with their value), and wall time MEASURED natively (the median with its $cilabel confidence interval, from this sweep's timed cells$([ "$hw" = 1 ] || echo "; this sweep has none, so only the counts are shown")).

How to read: the counts give the cost of the sampler's own work without noise; the wall-time interval shows how much of the machine's noise a timed measurement has to see through. Where the interval includes 0 the timed measurement cannot tell the cell from its baseline, while the count still says exactly how much work was added. Counted and timed cells use different --size values (calibrated separately), so compare percentages, not absolute values.

$sim_source"
}

# Every figure of plots/figures.list, in order.  A row whose ?data files are
# all absent does not belong to this sweep: its files go, and it gets no
# caption and no entry in the index.
listed=""
while IFS='	' read -r F_NAME f_num F_SCRIPT f_data f_title <&3; do
    case $F_NAME in ''|'#'*) continue ;; esac
    case $f_data in '!'*) continue ;; esac      # drawn by --compare, not from a sweep
    F_TITLE="Figure $f_num. $f_title"
    f_need=$(printf '%s' "$f_data" | tr ',' ' ' | tr -d '?')
    f_opt=$(printf '%s' "$f_data" | tr ',' '\n' | sed -n 's/^?//p')
    if [ -n "$f_opt" ]; then
        f_here=0
        for f in $f_opt; do [ -f "$pd/$f.dat" ] && f_here=1; done
        if [ $f_here = 0 ]; then
            rm -f "$out/$F_NAME.png" "$out/$F_NAME.svg" "$out/$F_NAME.txt"
            continue
        fi
    fi
    listed="$listed $F_NAME"
    f_ok=1
    for f in $f_need; do eval "[ \"\$ok_$f\" = yes ]" || f_ok=0; done
    if [ $f_ok = 1 ]; then
        "fig_$(printf '%s' "$F_NAME" | tr '-' '_')"
    else
        not_drawn "$F_NAME" "$F_TITLE" "$(why_missing $f_need)"
    fi
done 3< "$here/figures.list"

# index.md: every figure of the sweep with its caption, to browse or link.
{
    echo "# Figures of sweep $sweep"
    echo
    echo "Drawn by plots/figures.sh from $shown/plotdata; docs/FIGURES.md explains each figure."
    for f in $listed; do
        [ -f "$out/$f.txt" ] || continue
        echo
        echo "## $(sed -n '1s/ (sweep .*//p' "$out/$f.txt")"
        echo
        if grep -q "NOT DRAWN" "$out/$f.txt"; then
            printf 'Not drawn: '; sed '1,2d; /^Source: /,$d' "$out/$f.txt" | tr '\n' ' ' | sed 's/ *$//'; echo
        else
            echo "![$(sed -n '1s/ (sweep .*//p' "$out/$f.txt")]($f.png) ([SVG]($f.svg))"
            echo
            sed '1,2d' "$out/$f.txt"
        fi
    done
} > "$tmp/index.md" && mv -f "$tmp/index.md" "$out/index.md"

echo "figures: $drawn drawn in $out${skipped:+; not drawn (no data in this sweep, see their captions):$skipped}${broken:+; not drawn (bad plot data, see above):$broken}"
exit $status
