#!/bin/sh
# validate.sh [OUT] - `make validate`: runs the sweeps of scripts/validate/plan, each with its
# SGC_SAMPLE_SPIN_NS, analyses each like any sweep (build/bin/analyze), then compares the
# per-sample cost recovered at each injected D with D (build/bin/validation) and draws the
# figure (plots/validation.gp).  Then the in-process runs of scripts/validate/inproc: time
# samples measured on the program's own thread CPU time in ABBA blocks, signal and thread mode
# (build/bin/validation --inproc).  Output: OUT (default results/validation-<UTC time>):
# validation.md, validation.csv, aa.csv, validation.dat, inproc.csv, inproc.dat,
# validation.png/.svg, inproc.png/.svg, README.md (when, where, load average, duration),
# sweeps/<sweep-id>/ (each sweep, analysed), inproc/<group>/ (series and stats of each run).
# Settings: VALIDATE_PLAN (plan file), VALIDATE_CONF (sweep config), VALIDATE_ARGS (extra
# sweep options, e.g. "--runs 4"), VALIDATE_RESAMPLES (bootstrap resamples, default 2000),
# VALIDATE_COMMIT (the commit to record when not run from a git checkout), VALIDATE_INPROC
# (in-process plan; empty: none), VALIDATE_INPROC_RUNS (processes per D, default 4),
# VALIDATE_INPROC_HALFWIDTH and VALIDATE_INPROC_MAX_RUNS (more rounds, up to MAX_RUNS processes
# per D, while a recovered cost's interval is wider than +-HALFWIDTH percent of its D; default
# none: exactly VALIDATE_INPROC_RUNS), VALIDATE_INPROC_TIMEOUT (seconds an in-process run may
# take, default 600).
# Exit status: 0 done (targets met or not: validation.md says), 1 a step failed, 2 bad plan.
set -u
plan=${VALIDATE_PLAN:-scripts/validate/plan}
conf=${VALIDATE_CONF:-scripts/validate/sweep.conf}
inproc=${VALIDATE_INPROC-scripts/validate/inproc}
inruns=${VALIDATE_INPROC_RUNS:-4}
inmax=${VALIDATE_INPROC_MAX_RUNS:-$inruns}
inhw=${VALIDATE_INPROC_HALFWIDTH:-}
intimeout=${VALIDATE_INPROC_TIMEOUT:-600}
bin=${BIN:-build/bin}
out=${1:-results/validation-$(date -u +%Y%m%d-%H%M%S)}
me=validate
case "$intimeout" in '' | *[!0-9]* | 0) echo "$me: VALIDATE_INPROC_TIMEOUT '$intimeout' is not a whole number of seconds above 0" >&2; exit 2 ;; esac
[ -r "$plan" ] || { echo "$me: $plan: cannot read the plan" >&2; exit 2; }
[ -r "$conf" ] || { echo "$me: $conf: cannot read the sweep config" >&2; exit 2; }
for b in sweep analyze validation; do
    [ -x "$bin/$b" ] || { echo "$me: $bin/$b missing: run make first" >&2; exit 1; }
done
mkdir -p "$out/sweeps" || exit 1
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$me: into $out (plan $plan, load average $load0)"

# Check the whole plan before running anything.
n=0
while read -r w d periods hz clock rest; do
    case "$w" in ''|'#'*) continue ;; esac
    n=$((n + 1))
    if [ -z "$hz" ] || [ -n "$rest" ]; then
        echo "$me: $plan: line '$w $d $periods $hz $clock $rest': expected WORKLOAD SPIN_NS PERIODS TIME_HZ [wall|cpu]" >&2
        exit 2
    fi
    case "$d" in ''|*[!0-9]*) echo "$me: $plan: $w: SPIN_NS '$d' is not a whole number of ns" >&2; exit 2 ;; esac
    case "$clock" in ''|wall|cpu) ;; *) echo "$me: $plan: $w: spin clock '$clock' is not wall or cpu" >&2; exit 2 ;; esac
done < "$plan"
[ $n -gt 0 ] || { echo "$me: $plan: no sweeps" >&2; exit 2; }
case "$inruns" in ''|*[!0-9]*|0) echo "$me: VALIDATE_INPROC_RUNS '$inruns' is not a whole number above 0" >&2; exit 2 ;; esac
case "$inmax" in ''|*[!0-9]*|0) echo "$me: VALIDATE_INPROC_MAX_RUNS '$inmax' is not a whole number above 0" >&2; exit 2 ;; esac
[ "$inmax" -ge "$inruns" ] || { echo "$me: VALIDATE_INPROC_MAX_RUNS $inmax is below VALIDATE_INPROC_RUNS $inruns" >&2; exit 2; }
if [ -n "$inhw" ]; then
    echo "$inhw" | grep -Eq '^[0-9]+(\.[0-9]+)?$' && awk -v h="$inhw" 'BEGIN { exit !(h > 0) }' ||
        { echo "$me: VALIDATE_INPROC_HALFWIDTH '$inhw' is not a percentage above 0 (such as 12.5)" >&2; exit 2; }
    [ "$inmax" -gt "$inruns" ] ||
        { echo "$me: VALIDATE_INPROC_HALFWIDTH needs VALIDATE_INPROC_MAX_RUNS above VALIDATE_INPROC_RUNS ($inruns): with no room for more rounds it has no effect" >&2; exit 2; }
elif [ "$inmax" -ne "$inruns" ]; then
    echo "$me: VALIDATE_INPROC_MAX_RUNS has no effect without VALIDATE_INPROC_HALFWIDTH (the interval to reach)" >&2; exit 2
fi
ni=0
if [ -n "$inproc" ]; then
    [ -r "$inproc" ] || { echo "$me: $inproc: cannot read the in-process plan" >&2; exit 2; }
    while read -r w size mode hz ds rest; do
        case "$w" in ''|'#'*) continue ;; esac
        if [ -z "$ds" ] || [ -n "$rest" ]; then
            echo "$me: $inproc: line '$w $size $mode $hz $ds $rest': expected WORKLOAD SIZE TIME_MODE TIME_HZ SPIN_NS,..." >&2
            exit 2
        fi
        [ -x "$bin/$w" ] || { echo "$me: $inproc: no workload $bin/$w" >&2; exit 2; }
        case "$size" in *[!0-9]*) echo "$me: $inproc: $w: SIZE '$size' is not a whole number" >&2; exit 2 ;; esac
        case "$hz" in *[!0-9]*) echo "$me: $inproc: $w: TIME_HZ '$hz' is not a whole number" >&2; exit 2 ;; esac
        case "$mode" in signal|thread) ;; *) echo "$me: $inproc: $w: time mode '$mode' is not signal or thread" >&2; exit 2 ;; esac
        case ",$ds," in *,0,*) ;; *) echo "$me: $inproc: $w $mode: the list of D '$ds' has no 0 (the real cost to subtract)" >&2; exit 2 ;; esac
        for d in $(echo "$ds" | tr ',' ' '); do
            case "$d" in *[!0-9]*) echo "$me: $inproc: $w: SPIN_NS '$d' is not a whole number of ns" >&2; exit 2 ;; esac
        done
        ni=$((ni + 1))
    done < "$inproc"
fi

sweeps=""
i=0
while read -r w d periods hz clock rest; do
    case "$w" in ''|'#'*) continue ;; esac
    i=$((i + 1))
    clock=${clock:-wall}
    sizefile="$out/sweeps/.size-$w"
    size_arg=""
    if [ "$d" != 0 ]; then
        [ -s "$sizefile" ] || { echo "$me: $plan: $w's D = 0 sweep must come before its D = $d one" >&2; exit 2; }
        size_arg="--size $w=$(cat "$sizefile")"
    fi
    echo "$me: sweep $i of $n: $w, SGC_SAMPLE_SPIN_NS=$d ($clock clock), periods $periods, time $hz Hz"
    # shellcheck disable=SC2086
    "$bin/sweep" --backends native --config "$conf" --workloads "$w" --periods "$periods" --time-hz "$hz" \
        --env "SGC_SAMPLE_SPIN_NS=$d" --env "SGC_SAMPLE_SPIN_CLOCK=$clock" --out "$out/sweeps" --no-progress $size_arg ${VALIDATE_ARGS:-} \
        </dev/null || { rc=$?; [ $rc -eq 3 ] && echo "$me: some runs failed (reasons above); going on with the others" >&2 ||
                      { echo "$me: the sweep failed (above)" >&2; exit 1; }; }
    dir="$out/sweeps/$(readlink "$out/sweeps/latest")"
    [ -f "$dir/results.db" ] || { echo "$me: $dir: no results.db" >&2; exit 1; }
    if [ "$d" = 0 ]; then
        sqlite3 "$dir/results.db" "SELECT size FROM cells WHERE kind = 'baseline' LIMIT 1" > "$sizefile" ||
            { echo "$me: cannot read $w's calibrated size from $dir/results.db" >&2; exit 1; }
    fi
    "$bin/analyze" --quiet --resamples 2000 "$dir" </dev/null ||
        { echo "$me: analyze $dir failed" >&2; exit 1; }
    sweeps="$sweeps $dir"
done < "$plan"
rm -f "$out/sweeps/latest" "$out"/sweeps/.size-*

# The in-process runs, pinned to the last CPU this shell may use (where the
# sweeps pin theirs); the sampler thread moves to another CPU if there is one.
groups=""
# wide W MODE HZ GROUPS: is the recovered cost's interval of a D > 0 group
# of that line wider than +-inhw percent of its D, or missing?  (The
# estimate of the groups so far, by validation itself; the sweeps give it
# its D = 0 sweep.)  How many rounds a line gets then depends on the noise
# the machine shows, never on where the estimate lies.
wide() {
    # shellcheck disable=SC2086
    "$bin/validation" --quiet --resamples "${VALIDATE_RESAMPLES:-2000}" $4 "$out/.inproc-check" $sweeps \
        > "$out/.inproc-check.log" 2>&1 ||
        { echo "$me: validation failed on the in-process runs so far:" >&2; cat "$out/.inproc-check.log" >&2; exit 1; }
    awk -F, -v w="$1" -v m="$2" -v hz="$3" -v hw="$inhw" '
        NR > 1 && $1 == w && $2 == m && $3 == hz && $4 > 0 {
            if ($10 == "" || $11 == "" || ($11 - $10) / 2 > hw / 100 * $4) wide = 1
        }
        END { exit !wide }' "$out/.inproc-check/inproc.csv"
}
if [ $ni -gt 0 ]; then
    cpu=$(grep Cpus_allowed_list /proc/self/status | sed 's/.*[[:space:],-]//')
    li=0
    while read -r w size mode hz ds rest; do
        case "$w" in ''|'#'*) continue ;; esac
        li=$((li + 1))
        echo "$me: in-process $li of $ni: $w --size $size, $mode time sampling at $hz Hz, D = $ds ns, $inruns runs each (CPU $cpu)"
        lgroups=""
        for d in $(echo "$ds" | tr ',' ' '); do
            g="$out/inproc/$w-$mode-$hz-$d"
            mkdir -p "$g" || exit 1
            printf 'workload %s\ntime_mode %s\ntime_hz %s\nspin_ns %s\nspin_clock cpu\nsize %s\n' "$w" "$mode" "$hz" "$d" "$size" > "$g/params"
            lgroups="$lgroups --inproc $g"
        done
        groups="$groups$lgroups"
        r=1
        while [ $r -le "$inruns" ] ||
            { [ -n "$inhw" ] && [ $r -le "$inmax" ] && wide "$w" "$mode" "$hz" "$lgroups" &&
                echo "$me: $w $mode: a recovered cost's interval after $((r - 1)) runs of each D is wider than +-$inhw% of D: round $r"; }; do
            # Every D once a round, starting one further each round.
            set -- $(echo "$ds" | tr ',' ' ')
            k=1
            while [ $k -lt $(( (r - 1) % $# + 1 )) ]; do d=$1; shift; set -- "$@" "$d"; k=$((k + 1)); done
            for d in "$@"; do
                g="$out/inproc/$w-$mode-$hz-$d"
                SGC_ALTERNATE=time SGC_TIME_HZ=$hz SGC_TIME_MODE=$mode SGC_SAMPLE_SPIN_NS=$d SGC_SAMPLE_SPIN_CLOCK=cpu \
                    SGC_SEED=$((li * 1000 + r)) SGC_ALT_OUT="$g/run-$r.series" SGC_STATS="$g/run-$r.stats" \
                    timeout "$intimeout" taskset -c "$cpu" "$bin/$w" --size "$size" > /dev/null </dev/null
                rc=$?
                [ $rc -eq 124 ] && { echo "$me: $w --size $size ($mode, $hz Hz, D = $d ns) did not finish in $intimeout s (a program that gets less than rate x D of a CPU never can; VALIDATE_INPROC_TIMEOUT sets the limit)" >&2; exit 1; }
                [ $rc -eq 0 ] || { echo "$me: $w --size $size ($mode, $hz Hz, D = $d ns) failed (exit status $rc)" >&2; exit 1; }
            done
            r=$((r + 1))
        done
        [ -n "$inhw" ] && [ $r -gt "$inmax" ] && wide "$w" "$mode" "$hz" "$lgroups" &&
            echo "$me: $w $mode: a recovered cost's interval is still wider than +-$inhw% of D after $inmax runs of each D (VALIDATE_INPROC_MAX_RUNS)"
        rm -rf "$out/.inproc-check" "$out/.inproc-check.log"
        for d in $(echo "$ds" | tr ',' ' '); do
            g="$out/inproc/$w-$mode-$hz-$d"
            [ "$mode" = thread ] &&
                echo "sampler_cpu $(awk '$1 == "time_sampler_cpu" { print $2 }' "$g"/run-*.stats | sort -u | tr '\n' ' ' | sed 's/ $//')" >> "$g/params"
        done
    done < "$inproc"
fi

# shellcheck disable=SC2086
"$bin/validation" --resamples "${VALIDATE_RESAMPLES:-2000}" $groups "$out" $sweeps || exit 1
if command -v gnuplot >/dev/null 2>&1; then
    for t in png svg; do
        gnuplot -e "dat='$out/validation.dat'; out='$out/validation.$t'; term='$t'" plots/validation.gp ||
            { echo "$me: gnuplot failed on plots/validation.gp" >&2; exit 1; }
    done
    if [ -s "$out/inproc.dat" ]; then
        for t in png svg; do
            gnuplot -e "dat='$out/inproc.dat'; out='$out/inproc.$t'; term='$t'" plots/validation-inproc.gp ||
                { echo "$me: gnuplot failed on plots/validation-inproc.gp" >&2; exit 1; }
        done
    fi
else
    echo "$me: gnuplot not found: no figure (make deps installs it)" >&2; exit 1
fi
end=$(date +%s)
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "# make validate: $(basename "$out")"
    echo
    echo "- started $(date -u -d "@$start" '+%Y-%m-%d %H:%M:%S UTC'), took $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s"
    echo "- load average (1, 5, 15 min) at the start: $load0; at the end: $load1"
    echo "- machine: $(nproc) CPUs, $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
    echo "- commit: ${VALIDATE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "- plan: $plan; sweep config: $conf; extra sweep options: ${VALIDATE_ARGS:-none}"
    echo "- in-process plan: ${inproc:-none}; runs per D: $inruns${inhw:+ or more, up to $inmax, until every recovered interval is within +-$inhw% of D}"
    echo
    echo "Results: [validation.md](validation.md) (figures: validation.png, and inproc.png for the"
    echo "in-process time samples); each sweep with its own summary.md under sweeps/, each in-process"
    echo "group's series under inproc/."
} > "$out/README.md"
echo "$me: done in $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s (load average $load0 -> $load1): $out/validation.md"
