#!/bin/sh
# peers.sh DIR - draws the peers figure, DIR/figures/peers.png and .svg, from
# DIR/plotdata/peers.dat (build/bin/peers-report DIR writes it) with
# plots/peers.gp.  Exit status: 0 drawn; 2 DIR or its peers.dat missing or
# malformed; 1 gnuplot missing or failing.
me=peers
here=$(cd "$(dirname "$0")" && pwd) || exit 1
[ $# -eq 1 ] || { echo "usage: sh plots/peers.sh DIR" >&2; exit 2; }
dir=$1
dat="$dir/plotdata/peers.dat"
[ -f "$dat" ] || { echo "$me: $dat: missing; run build/bin/peers-report $dir first" >&2; exit 2; }
case "$dir" in *"'"*) echo "$me: $dir: a path with a quote cannot be passed to gnuplot" >&2; exit 2 ;; esac
command -v gnuplot >/dev/null 2>&1 || { echo "$me: gnuplot not found (make deps installs it)" >&2; exit 1; }
workloads=$(sed -n 's/^# workloads: *//p' "$dat")
systems=$(sed -n 's/^# systems: *//p' "$dat")
[ -n "$workloads" ] && [ -n "$systems" ] ||
    { echo "$me: $dat: no '# workloads:' or '# systems:' line (not written by peers-report?)" >&2; exit 2; }
# The systems of each panel (those with an estimate), in the order of the
# systems line; a workload without any estimate gets no panel.
panels=""
drawn=""
k=0
for w in $workloads; do
    mine=""
    for s in $systems; do
        awk -v w="$w" -v s="$s" '!/^#/ && $1 == w && $2 == s && $4 != "NaN" { found = 1 } END { exit !found }' "$dat" &&
            mine="$mine${mine:+ }$s"
    done
    [ -n "$mine" ] || { echo "$me: $w: no overhead estimate, no panel" >&2; continue; }
    k=$((k + 1))
    drawn="$drawn${drawn:+ }$w"
    panels="$panels; sys_$k='$mine'"
done
[ -n "$drawn" ] || { echo "$me: $dat: no overhead estimate to draw" >&2; exit 2; }
workloads=$drawn
# One x range for every panel: the periods of the sweep.
xr=$(awk '!/^#/ && $4 != "NaN" && $3 + 0 > 0 { if (!n++ || $3 < lo) lo = $3; if ($3 > hi) hi = $3 } END { print lo / 1.5, hi * 1.5 }' "$dat")
panels="$panels; xmin=${xr% *}; xmax=${xr#* }"
mkdir -p "$dir/figures" || exit 1
sweep=$(basename "$(cd "$dir" && pwd -P)")
for fmt in png svg; do
    gnuplot -e "dat='$dat'; outfile='$dir/figures/peers.$fmt.tmp'; fmt='$fmt'; workloads='$workloads'; systems='$systems'; sweep='$sweep'$panels" \
        "$here/peers.gp" || { echo "$me: gnuplot failed on $dat" >&2; rm -f "$dir/figures/peers.$fmt.tmp"; exit 1; }
    mv "$dir/figures/peers.$fmt.tmp" "$dir/figures/peers.$fmt" || exit 1
done
echo "$me: wrote $dir/figures/peers.png and peers.svg"
