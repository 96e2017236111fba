#!/bin/sh
# lib.sh - helpers for the peer programs' tests (sourced).
# fail MSG: prints "FAIL MSG" and counts it; stat FILE KEY: the value of KEY in a
# stats record (empty if absent); stats_parse FILE: checks the record's form
# (docs/FORMATS.md, "The stats record") and the keys every peer writes;
# same_checksum WHAT EXPECTED-LINE COMMAND...: runs the command and compares
# its stdout with the expected checksum line.
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

stat() { awk -v k="$2" 'NR > 1 && $1 == k { print $2 }' "$1"; }

stats_parse() {
    f=$1
    [ -s "$f" ] || { fail "$f: no stats record written"; return 1; }
    bad=$(awk 'NR == 1 { if ($0 != "sgc-stats 1") print "line 1 is not \"sgc-stats 1\""; next }
               !/^[a-z_0-9]+ [^ ]+$/ { print "line " NR " is not \"key value\": " $0 }
               { if (seen[$1]++) print "key " $1 " twice" }' "$f")
    [ -z "$bad" ] || { fail "$f: $bad"; return 1; }
    for k in run_ns bytes_allocated objects_allocated alloc_period time_samples; do
        v=$(stat "$f" $k)
        case "$v" in
            '' | *[!0-9]*) fail "$f: $k is '$v', not a decimal integer"; return 1 ;;
        esac
    done
    [ "$(stat "$f" alloc_mode)" = poisson ] || { fail "$f: alloc_mode is '$(stat "$f" alloc_mode)', not poisson"; return 1; }
    [ "$(stat "$f" time_samples)" = 0 ] || { fail "$f: time_samples is not 0"; return 1; }
    v=$(stat "$f" alloc_samples)
    case "$v" in
        *[!0-9]*) fail "$f: alloc_samples is '$v'"; return 1 ;;
    esac
    return 0
}

same_checksum() {
    what=$1 want=$2
    shift 2
    got=$("$@") || { fail "$what: exit status $?"; return 1; }
    [ "$got" = "$want" ] || { fail "$what: printed '$got', freecheck's workload '$want'"; return 1; }
    return 0
}

# within N MEAN K: is N within K standard deviations of a Poisson count with this mean?
within() {
    awk -v n="$1" -v m="$2" -v k="$3" 'BEGIN { d = n - m; if (d < 0) d = -d; exit !(d <= k * sqrt(m) + 1) }'
}

# between N LO HI K: is N within K standard deviations of a Poisson count
# whose mean lies in LO..HI?
between() {
    awk -v n="$1" -v lo="$2" -v hi="$3" -v k="$4" 'BEGIN { if (lo < 0) lo = 0
        exit !(n >= lo - k * sqrt(lo) - 1 && n <= hi + k * sqrt(hi) + 1) }'
}

# v8_own STATS BYTES NODE_BYTES P EXTRA: V8's samples of the program's own
# nodes (the record's v8_node_samples: the samples of a node's or two
# folded nodes' reported size whose leaf frame is in the workload's script,
# common.js) against their expected count.  BYTES are the nodes' bytes
# (N = BYTES / NODE_BYTES nodes).  V8 samples an allocation of s bytes with
# probability 1 - exp(-s / P); optimized code may fold two nodes into one
# allocation, sampled as one, so the count's mean lies between
# N / 2 * (1 - exp(-2 s / P)) (every node folded) and N * (1 - exp(-s / P))
# (none), held within 6 sd of that range (no other slack), and up to EXTRA
# more for other objects of the workload's script that report the same size
# (gcbench's Float64Array).  v8_node_samples + v8_other_samples must be the
# record's alloc_samples.  Prints "OWN of LO..HI" for the message; returns 1
# on a mismatch.
v8_own() {
    own=$(stat "$1" v8_node_samples) other=$(stat "$1" v8_other_samples)
    case "$own$other" in '' | *[!0-9]*) echo "v8_node_samples '$own', v8_other_samples '$other': not counts"; return 1 ;; esac
    lo=$(awk -v b="$2" -v s="$3" -v p="$4" 'BEGIN { printf "%.1f", b / s / 2 * (1 - exp(-2 * s / p)) }')
    hi=$(awk -v b="$2" -v s="$3" -v p="$4" -v x="$5" 'BEGIN { printf "%.1f", b / s * (1 - exp(-s / p)) + x }')
    echo "$own of $lo..$hi, $other others"
    [ $((own + other)) = "$(stat "$1" alloc_samples)" ] || { echo "$own + $other is not alloc_samples $(stat "$1" alloc_samples)"; return 1; }
    between "$own" "$lo" "$hi" 6
}
