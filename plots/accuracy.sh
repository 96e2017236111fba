#!/bin/sh
# accuracy.sh DIR - draws the accuracy study's figures from DIR/plotdata/
# (accuracy/summarize.awk writes it) into DIR/figures/: accuracy-tvd,
# accuracy-top10 and accuracy-overhead, each as .png, .svg and a .txt
# caption (docs/FIGURES.md, "Accuracy figures").  Each picture is drawn under
# a temporary name and renamed when complete.  A figure without data (no
# overheads for any period of the study) is not drawn; its caption says so.
# Exit status: 0 drawn; 2 DIR or its plot data missing; 1 gnuplot failed.
me="accuracy figures"
here=$(cd "$(dirname "$0")" && pwd) || exit 1
[ $# -eq 1 ] || { echo "usage: sh plots/accuracy.sh DIR" >&2; exit 2; }
dir=$1
pd="$dir/plotdata"
[ -s "$pd/accuracy.dat" ] || { echo "$me: $pd/accuracy.dat: missing (run accuracy/accuracy.sh)" >&2; exit 2; }
case "$dir" in *"'"*) echo "$me: $dir: a path with a quote cannot be passed to gnuplot" >&2; exit 2 ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "$me: gnuplot not found (make deps installs it)" >&2; exit 1; }
out="$dir/figures"
mkdir -p "$out" || exit 1
tmp=$(mktemp -d "$out/.tmp.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
study=$(basename "$(cd "$dir" && pwd -P)")

# Workloads in the order of workloads/workloads.list (fixed colours), then any others.
listed=$(sed 's/#.*//' "$here/../workloads/workloads.list" 2>/dev/null | tr -s ' \t' '\n' | grep -v '^$')
present=$(awk '!/^#/ { print $1 }' "$pd/accuracy.dat" | awk '!seen[$0]++')
panels=""
for w in $listed; do echo "$present" | grep -qx "$w" && panels="$panels $w"; done
for w in $present; do echo " $panels " | grep -q " $w " || panels="$panels $w"; done
workloads=$(echo "$listed $present" | tr ' ' '\n' | grep -v '^$' | awk '!seen[$0]++' | tr '\n' ' ')
range=$(awk '!/^#/ { if (lo == "" || $3 < lo) lo = $3; if ($3 > hi) hi = $3 } END { print lo, hi }' "$pd/accuracy.dat")
xmin=${range% *}; xmax=${range#* }
# x range of each overhead panel: its overheads and their intervals.
oranges=""; have_o=0
for w in $panels; do
    r=$(awk -v w="$w" '$1 == w { for (k = 3; k <= 5; k++) if ($k != "nan") { if (lo == "" || $k < lo) lo = $k; if ($k > hi) hi = $k } }
        END { if (lo == "") print "0.9 1.1"; else print lo, hi }' "$pd/accuracy_overhead.dat" 2>/dev/null)
    oranges="$oranges $r"
done
[ -s "$pd/accuracy_overhead.dat" ] && [ "$(grep -vc '^#' "$pd/accuracy_overhead.dat")" -gt 0 ] && have_o=1
status=0
draw() { # NAME WHICH
    for fmt in png svg; do
        if ! gnuplot -e "fmt = '$fmt'; outfile = '$tmp/$1.$fmt'; datadir = '$pd'; study = '$study'; workloads = '$workloads'" \
                "$here/common.gp" \
                -e "panels = '$panels'; xmin = $xmin; xmax = $xmax; yranges = '$oranges'; which = '$2'" \
                "$here/accuracy.gp" > "$tmp/$1.$fmt.log" 2>&1 || [ ! -s "$tmp/$1.$fmt" ]; then
            echo "$me: gnuplot failed on $1.$fmt:" >&2; sed 's/^/    /' "$tmp/$1.$fmt.log" >&2; status=1; return 1
        fi
        mv "$tmp/$1.$fmt" "$out/$1.$fmt"
    done
}
meta=$(sed 's/^/  /' "$dir/meta.txt" 2>/dev/null)
caption() { printf '%s\n\nData: %s/plotdata (accuracy/summarize.awk; %s).\nStudy metadata:\n%s\n' "$2" "$dir" \
    "quantiles over a cell's runs, linear between order statistics" "$meta" > "$out/$1.txt.tmp" && mv "$out/$1.txt.tmp" "$out/$1.txt"; }
draw accuracy-tvd tvd && caption accuracy-tvd "Sampled vs exact allocation sites: total variation distance vs period ($study).
One panel per workload. Each profile's site distribution (estimated bytes per calling context) is compared
with the exact profile of the same run (SGC_ALLOC_PERIOD=8). Black: fixed mode, median and the 2.5-97.5%
range over start offsets (SGC_ALLOC_OFFSET); red, open, shifted right: poisson mode over seeds. Coloured
line: the TVD independent sampling is expected to give at that period (each site's samples an independent
Poisson count of mean bytes / P). Fixed mode far above the line is aliasing; below it, fixed mode's
regular spacing stratifies the samples."
draw accuracy-top10 top10 && caption accuracy-top10 "Largest relative error of the ten largest sites vs period ($study).
The same layout: per run, max |estimated bytes / true bytes - 1| over the exact profile's ten largest sites
that hold at least 1% of the bytes each. Dotted: 5%. Coloured line: 1.96 / sqrt(expected samples of the
smallest of those sites), the 95% bound of its relative error under independent sampling."
if [ $have_o -eq 1 ]; then
    draw accuracy-overhead overhead && caption accuracy-overhead "Accuracy vs overhead ($study).
One point per period (labels): x, the overhead the reference sweep measured for fixed-mode sampling at that
period (median run / baseline median wall time, with its 95% BCa interval; results/reference); y, this
study's median site TVD (black: fixed, red open: poisson). Periods the reference sweep did not run are
absent. Where every interval includes 1 the sweep could not measure the overhead at any of these periods:
the accuracy axis decides, and the cheapest accurate period is the largest one that is accurate enough."
else
    rm -f "$out"/accuracy-overhead.png "$out"/accuracy-overhead.svg
    printf 'Accuracy vs overhead (%s): NOT DRAWN: no overhead for any period of this study.\n' "$study" > "$out/accuracy-overhead.txt"
fi
exit $status
