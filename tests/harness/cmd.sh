#!/bin/sh
# cmd.sh - command workloads (harness/sw_cmd.h) end to end: systems whose
# sampling period reaches the command through an environment template with
# {log2P} and through an argument template, a freecheck workload run as a
# command, a like: reference, a fixed command, a missing optional peer
# skipped with its reason; cells a system cannot do are not planned; exact
# run counts and settings; bad declarations exit 2 naming the line.
. tests/harness/lib.sh

PEER="$(pwd)/tests/harness/fakepeer.sh"
cat > "$WORK/cmds.list" <<LIST
# systems: how each one takes a period
system envsys site="a counter on the malloc path" modes=poisson alloc-env=FAKE_CONF=prof:true,lg_prof_sample:{log2P} off-env=FAKE_CONF=prof:false
system nocountsys site=nowhere modes=poisson alloc-env=FAKE_CONF=lg_prof_sample:{log2P} alloc-env=FAKE_NOCOUNT=1 off-env=FAKE_NOCOUNT=1 off-env=FAKE_CONF=off
system argsys site=limit modes=poisson,fixed alloc-arg=--interval={P} alloc-arg=--mode={mode} off-arg=--interval=0
command envpeer system=envsys check=self -- $PEER --size {size}
command argpeer system=argsys check=self -- $PEER {sampling} --size {size}
command fixedpeer system=envsys check=none -- $PEER --size 3
command fcok system=freecheck check=flag -- {bin}/fake-ok --size {size}
command likeok system=envsys check=like:fake-ok -- {bin}/fake-ok --size {size}
command nocountpeer system=nocountsys check=self -- $PEER --size {size}
command gone system=envsys optional=yes -- {bin}/peers/not-built --size {size}
fake-alt
LIST
# The user's own setting of a template's variable must not reach the runs.
FAKE_CONF=prof:true,lg_prof_sample:3
export FAKE_CONF
COMMON="--backends native --bin-dir $FAKE_BIN --list $WORK/cmds.list --periods 64K,48K --modes fixed,poisson
    --time-hz 1000 --time-modes signal --runs 2 --warmup 1 --size 2 --seed 11 --no-progress"

# --plan: the cells, the skipped peer and every cell not planned, with why.
"$SWEEP" $COMMON --plan >"$WORK/plan" 2>"$WORK/plan.err"
expect "plan: exit 0" "$?" 0
expect "plan: cells" "$(grep '^cell ' "$WORK/plan" | cut -d' ' -f3 | tr '\n' ' ')" \
"envpeer/baseline envpeer/alloc-poisson-64K argpeer/baseline argpeer/alloc-fixed-64K argpeer/alloc-fixed-48K \
argpeer/alloc-poisson-64K argpeer/alloc-poisson-48K fixedpeer/baseline fixedpeer/alloc-poisson-64K fcok/baseline \
fcok/alloc-fixed-64K fcok/alloc-fixed-48K fcok/alloc-poisson-64K fcok/alloc-poisson-48K fcok/time-1000Hz \
likeok/baseline likeok/alloc-poisson-64K nocountpeer/baseline nocountpeer/alloc-poisson-64K fake-alt/baseline fake-alt/alloc-fixed-64K fake-alt/alloc-fixed-48K \
fake-alt/alloc-poisson-64K fake-alt/alloc-poisson-48K fake-alt/time-1000Hz "
expect "plan: the missing optional peer is skipped with its reason" "$(grep '^skipped ' "$WORK/plan")" \
"skipped gone: $FAKE_BIN/peers/not-built is not an executable program (No such file or directory)"
expect "plan: what is not planned, and why" "$(grep '^not planned ' "$WORK/plan" | sort)" \
"not planned argpeer/time-1000Hz: its system has no time sampling template (only freecheck's runtime has a time sampler here)
not planned envpeer/alloc-fixed-48K: its system does not sample in this mode (the system's modes=)
not planned envpeer/alloc-fixed-64K: its system does not sample in this mode (the system's modes=)
not planned envpeer/alloc-poisson-48K: its system's setting is log2 of the period ({log2P}): the period is not a power of two
not planned envpeer/time-1000Hz: its system has no time sampling template (only freecheck's runtime has a time sampler here)
not planned fixedpeer/alloc-fixed-48K: its system does not sample in this mode (the system's modes=)
not planned fixedpeer/alloc-fixed-64K: its system does not sample in this mode (the system's modes=)
not planned fixedpeer/alloc-poisson-48K: its system's setting is log2 of the period ({log2P}): the period is not a power of two
not planned fixedpeer/time-1000Hz: its system has no time sampling template (only freecheck's runtime has a time sampler here)
not planned likeok/alloc-fixed-48K: its system does not sample in this mode (the system's modes=)
not planned likeok/alloc-fixed-64K: its system does not sample in this mode (the system's modes=)
not planned likeok/alloc-poisson-48K: its system's setting is log2 of the period ({log2P}): the period is not a power of two
not planned likeok/time-1000Hz: its system has no time sampling template (only freecheck's runtime has a time sampler here)
not planned nocountpeer/alloc-fixed-48K: its system does not sample in this mode (the system's modes=)
not planned nocountpeer/alloc-fixed-64K: its system does not sample in this mode (the system's modes=)
not planned nocountpeer/alloc-poisson-48K: its system's setting is log2 of the period ({log2P}): the period is not a power of two
not planned nocountpeer/time-1000Hz: its system has no time sampling template (only freecheck's runtime has a time sampler here)"
# 25 cells, each one block per round (a cell with its baseline, or a baseline's A/A block): 3 rounds of 50 runs
expect "plan: summary" "$(head -n 1 "$WORK/plan")" \
    "plan: 7 workloads, 25 cells, 1 warm-up + 2 measured rounds = 150 runs, seed 11, design blocked"

mkdir -p "$WORK/tmp"
"$SWEEP" $COMMON --out "$WORK/res" --tmp "$WORK/tmp" >"$WORK/out" 2>"$WORK/err"
expect "sweep: exit 3 (the like: peer whose setting cannot reach it fails its alloc runs)" "$?" 3
DB="$WORK/res/latest/results.db"
[ -f "$DB" ] || { fail "no results.db"; cat "$WORK/err"; finish; }
expect "runs: every planned one, exactly" "$(q "$DB" 'SELECT count(*), sum(round >= 1) FROM runs')" "150|100"
expect "outcomes per cell" "$(q "$DB" "SELECT c.label, r.status, coalesce(r.failure, '-'), count(*)
    FROM runs r JOIN cells c USING(cell_id) WHERE c.workload IN ('envpeer', 'likeok', 'fixedpeer')
    GROUP BY c.label, r.status, r.failure ORDER BY c.label")" \
"envpeer/alloc-poisson-64K|ok|-|3
envpeer/baseline|ok|-|9
fixedpeer/alloc-poisson-64K|ok|-|3
fixedpeer/baseline|ok|-|9
likeok/alloc-poisson-64K|failed|the stats record says alloc_period 0 but the cell set 65536|3
likeok/baseline|ok|-|9"
expect "every run of the other workloads ok" "$(q "$DB" "SELECT count(*), sum(r.status = 'ok') FROM runs r
    JOIN cells c USING(cell_id) WHERE c.workload IN ('argpeer', 'fcok', 'fake-alt', 'nocountpeer')")" "114|114"
stat_of() { q "$DB" "SELECT group_concat(DISTINCT s.value) FROM run_stats s JOIN runs r USING(run_id)
    JOIN cells c USING(cell_id) WHERE c.label = '$1' AND s.key = '$2'"; }
expect "env template: P = 65536 -> lg_prof_sample:16" "$(stat_of envpeer/alloc-poisson-64K conf)" \
    "prof:true,lg_prof_sample:16"
expect "env template: baseline gets the off setting" "$(stat_of envpeer/baseline conf)" "prof:false"
expect "env template: samples from the command's stats record" "$(stat_of envpeer/alloc-poisson-64K alloc_samples)" 32
expect "foreign system: no SGC_ALLOC_PERIOD" "$(stat_of envpeer/alloc-poisson-64K sgc_alloc_period)" "unset"
expect "arg template: P = 49152, mode fixed" \
    "$(stat_of argpeer/alloc-fixed-48K interval)|$(stat_of argpeer/alloc-fixed-48K alloc_period)|$(stat_of argpeer/alloc-fixed-48K alloc_mode)" \
    "49152|49152|fixed"
expect "arg template: baseline gets the off argument" "$(stat_of argpeer/baseline interval)" "0"
expect "freecheck command: the harness's SGC_* settings" "$(stat_of fcok/alloc-poisson-48K alloc_period),$(stat_of fcok/alloc-poisson-48K alloc_mode)" \
    "49152,poisson"
expect "calibration: fixed sizes, checksums by check=" "$(q "$DB" "SELECT workload, size, method, coalesce(checksum, '-')
    FROM calibration ORDER BY workload")" \
"argpeer|2|fixed|15838
envpeer|2|fixed|15838
fake-alt|2|fixed|$(q "$DB" "SELECT checksum FROM calibration WHERE workload = 'fcok'")
fcok|2|fixed|$("$FAKE_BIN/fake-ok" --size 2 --check | sed -n 's/^checksum //p')
fixedpeer|1|fixed|-
likeok|2|fixed|$("$FAKE_BIN/fake-ok" --size 2 --check | sed -n 's/^checksum //p')
nocountpeer|2|fixed|15838"
expect "meta: skipped, with the reason" "$(q "$DB" "SELECT value FROM meta WHERE key = 'skipped'")" \
    "gone (system envsys): $FAKE_BIN/peers/not-built is not an executable program (No such file or directory)"
expect "meta: not planned cells" "$(q "$DB" "SELECT value FROM meta WHERE key = 'not_planned'" | tr ';' '\n' | grep -c ': ')" 17
expect "meta: systems and sites" "$(q "$DB" "SELECT key, value FROM meta WHERE key LIKE 'workload_system:%'
    OR key LIKE 'system_site:%' ORDER BY key")" \
"system_site:argsys|limit
system_site:envsys|a counter on the malloc path
system_site:freecheck|folded into the allocation limit
system_site:nocountsys|nowhere
workload_system:argpeer|argsys
workload_system:envpeer|envsys
workload_system:fake-alt|freecheck
workload_system:fcok|freecheck
workload_system:fixedpeer|envsys
workload_system:gone|envsys
workload_system:likeok|envsys
workload_system:nocountpeer|nocountsys"
expect "sweep: the skipped peer said so" "$(grep -c '^sweep: skipping workload gone (system envsys): ' "$WORK/err")" 1

# --resume refuses changed declarations.
sed 's/lg_prof_sample:{log2P}/lg_prof_sample:{log2P},x:1/' "$WORK/cmds.list" > "$WORK/cmds2.list"
cp "$WORK/cmds2.list" "$WORK/cmds.list"
"$SWEEP" --resume "$WORK/res/latest" >"$WORK/out" 2>"$WORK/err"
expect "resume with other declarations: exit 2" "$?" 2
expect "resume with other declarations: message" "$(grep -c 'command workload declarations in the workload list changed' "$WORK/err")" 1

# analyze treats command workloads like any other: a per-sample cost fit per workload.
if [ -n "${ANALYZE:-}" ] && [ -x "$ANALYZE" ]; then
    "$ANALYZE" --quiet "$WORK/res/latest" >/dev/null 2>"$WORK/an.err"
    expect "analyze: exit 0" "$?" 0
    [ -s "$WORK/an.err" ] && cat "$WORK/an.err"
    expect "analyze: alloc cost fits for the command workloads" \
        "$(grep -c '^\(envpeer\|argpeer\|fixedpeer\),alloc,' "$WORK/res/latest/regress.csv")" 6
    # A sweep of several systems: analyze writes figure 8's data, peers-report the same file.
    [ -s "$WORK/res/latest/plotdata/peers.dat" ] || fail "analyze wrote no plotdata/peers.dat for a sweep of several systems"
    cp "$WORK/res/latest/plotdata/peers.dat" "$WORK/peers-analyze.dat" 2>/dev/null
    # The peers table: one row per workload and system, samples counted or not (no per-sample cost then).
    if [ -n "${PEERS_REPORT:-}" ] && [ -x "$PEERS_REPORT" ]; then
        "$PEERS_REPORT" --quiet "$WORK/res/latest" 2>"$WORK/pr.err"
        expect "peers-report: exit 0" "$?" 0
        expect "peers-report: rows (workload, system, site, samples)" \
            "$(cut -d, -f1,2,4,5 "$WORK/res/latest/peers.csv")" \
"base,system,check_site,samples
argpeer,argsys,limit,counted
envpeer,envsys,a counter on the malloc path,counted
fake-alt,freecheck,folded into the allocation limit,counted
fcok,freecheck,folded into the allocation limit,counted
fixedpeer,envsys,a counter on the malloc path,counted
likeok,envsys,a counter on the malloc path,counted
nocountpeer,nocountsys,nowhere,not counted"
        expect "peers-report: figure data per (workload, system), by period" \
            "$(grep -v '^#' "$WORK/res/latest/plotdata/peers.dat" | cut -d' ' -f1-3,7 | grep '^\(envpeer\|nocountpeer\|argpeer\) ')" \
"argpeer argsys-fixed 49152 42
argpeer argsys-fixed 65536 32
argpeer argsys-poisson 49152 42
argpeer argsys-poisson 65536 32
envpeer envsys 65536 32
nocountpeer nocountsys 65536 NaN"
        expect "peers-report: peers.dat as analyze wrote it" \
            "$(cmp -s "$WORK/peers-analyze.dat" "$WORK/res/latest/plotdata/peers.dat" && echo same)" same
        expect "peers-report: a system without a sample count has no cost in peers.dat" \
            "$(awk '$1 == "nocountpeer" { print $8, $9, $10, $11 }' "$WORK/res/latest/plotdata/peers.dat")" \
            "not_counted NaN NaN NaN"
        expect "peers-report: the table says a system without a sample count has no per-sample cost" \
            "$(grep '^| nocountpeer ' "$WORK/res/latest/peers.md" | cut -d'|' -f5-9)" \
            " not counted | not measured | not measured | not measured | none: no sample count "
        expect "peers-report: the note says why" \
            "$(grep -c '^- nocountpeer on nocountsys: nocountsys keeps no count of its samples (its runs report no alloc_samples), so there is no per-sample cost' "$WORK/res/latest/peers.md")" 1
        expect "peers-report: the skipped peer in the table" \
            "$(grep -c 'gone (system envsys): .*not-built is not an executable program' "$WORK/res/latest/peers.md")" 1
        if command -v gnuplot >/dev/null 2>&1; then
            ANALYZE="$ANALYZE" sh plots/figures.sh "$WORK/res/latest" >/dev/null 2>"$WORK/gp.err"
            expect "figures drawn, figure 8 (peers) among them" "$?" 0
            [ -s "$WORK/res/latest/figures/peers.png" ] || fail "no figures/peers.png"
        fi
    fi
fi

# Bad declarations: exit 2, the file and line named.
bad_decl() { # NAME LINE EXPECTED-MESSAGE-PART
    printf '# a comment\n%s\n' "$2" > "$WORK/bad.list"
    "$SWEEP" --backends native --bin-dir "$FAKE_BIN" --list "$WORK/bad.list" --plan >"$WORK/out" 2>"$WORK/err"
    rc=$?
    expect "bad declaration, $1: exit 2" "$rc" 2
    expect "bad declaration, $1: message" "$(cat "$WORK/err")" "sweep: $WORK/bad.list line 2: $3 (docs/WORKLOADS.md, \"Measuring your own runtime\")"
}
bad_decl "unknown key" "system s sitex=1 alloc-env=A={P}" \
    "unknown key 'sitex' (keys: site, modes, alloc-env, alloc-arg, off-env, off-arg, inprocess, inprocess-env, inprocess-alloc-env, inprocess-alloc-arg, segment, sim-env, calibrate)"
bad_decl "bad inprocess" "system s alloc-env=A={P} inprocess=maybe" "inprocess: 'maybe' is not yes or no"
bad_decl "in-process settings without inprocess=yes" "system s alloc-env=A={P} segment=2ms" \
    "system s: inprocess-env, inprocess-alloc-* and segment= are settings of the in-process design, which the system does not declare (inprocess=yes)"
bad_decl "in-process env without inprocess=yes" "system s alloc-env=A={P} inprocess-env=B=1" \
    "system s: inprocess-env, inprocess-alloc-* and segment= are settings of the in-process design, which the system does not declare (inprocess=yes)"
bad_decl "bad segment" "system s alloc-env=A={P} inprocess=yes segment=5s" \
    "segment: '5s' is not a segment length: Nms with N from 1 to 60000 (CPU time), or K from 1 to 1000000 (collections)"
bad_decl "segment out of range" "system s alloc-env=A={P} inprocess=yes segment=60001ms" \
    "segment: '60001ms' is not a segment length: Nms with N from 1 to 60000 (CPU time), or K from 1 to 1000000 (collections)"
bad_decl "a variable set twice" "system s alloc-env=A={P} off-env=A=0 sim-env=A=1" \
    "system s: sim-env sets A, which another of its templates sets too (a run would get it twice): give the variable one template"
bad_decl "in-process template without the period" "system s alloc-env=A={P} inprocess=yes inprocess-alloc-env=A=1" \
    "system s: no inprocess-alloc template uses the period ({P} or {log2P})"
bad_decl "period in sim-env" "system s alloc-env=A={P} sim-env=B={P}" \
    "sim-env 'B={P}': {P} has no value there ({P}, {log2P} and {mode} belong in alloc templates)"
bad_decl "SGC_ variable in sim-env" "system s alloc-env=A={P} sim-env=SGC_SEED=1" \
    "sim-env: SGC_SEED: the SGC_* variables are freecheck's runtime's, set by the harness"
bad_decl "bad calibrate" "system s alloc-env=A={P} calibrate=fast" \
    "calibrate: 'fast' is not work (the target excludes the command's fixed cost) or run (the whole run's CPU time, the default)"
bad_decl "unknown placeholder" "system s alloc-env=A={Q}" \
    "alloc-env 'A={Q}': unknown placeholder {Q} (known: {P}, {log2P}, {mode}, {bin}, {size}, {sampling})"
bad_decl "period in the off template" "system s alloc-env=A={P} off-env=A={P}" \
    "off-env 'A={P}': {P} has no value there ({P}, {log2P} and {mode} belong in alloc templates)"
bad_decl "no alloc template" "system s site=x" \
    "system s has no allocation sampling template (alloc-env=... or alloc-arg=...)"
bad_decl "period unused" "system s alloc-env=A=1" "system s: no alloc template uses the period ({P} or {log2P})"
bad_decl "SGC_ variable" "system s alloc-env=SGC_ALLOC_PERIOD={P}" \
    "alloc-env: SGC_ALLOC_PERIOD: the SGC_* variables are freecheck's runtime's, set by the harness"
bad_decl "two modes without {mode}" "system s modes=fixed,poisson alloc-env=A={P}" \
    "system s samples in more than one mode (modes=) but no alloc template passes {mode}"
bad_decl "bad mode" "system s modes=geometric alloc-env=A={P}" \
    "modes: 'geometric' is not an allocation sampling mode (fixed, poisson)"
bad_decl "unclosed quote" "system s site=\"x alloc-env=A={P}" "a double quote is not closed"
bad_decl "undeclared system" "command c system=nope -- /bin/true" \
    "system 'nope' is not declared above (systems are declared before their commands)"
bad_decl "no command line" "command c system=freecheck check=self" "command c has no command line (after ' -- ')"
bad_decl "bad check" "command c system=freecheck check=maybe -- /bin/true" \
    "check: 'maybe' is not like:WORKLOAD, self, flag or none"
bad_decl "placeholder in the command" "command c system=freecheck -- /bin/true {P}" \
    "command word '{P}': {P} has no value there ({P}, {log2P} and {mode} belong in alloc templates)"
bad_decl "redeclared freecheck" "system freecheck alloc-env=A={P}" \
    "system freecheck is declared twice (freecheck is built in)"
printf 'system s alloc-arg=-i={P}\ncommand c system=s -- /bin/true --size {size}\n' > "$WORK/bad.list"
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --list "$WORK/bad.list" --plan >"$WORK/out" 2>"$WORK/err"
expect "argument system without {sampling}: exit 2" "$?" 2
expect "argument system without {sampling}: message" "$(cat "$WORK/err")" \
    "sweep: $WORK/bad.list line 2: system s passes its setting as arguments (alloc-arg/off-arg): the command needs a {sampling} word where they go (docs/WORKLOADS.md, \"Measuring your own runtime\")"
printf 'command c system=freecheck -- {bin}/missing --size {size}\n' > "$WORK/bad.list"
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --list "$WORK/bad.list" --plan >"$WORK/out" 2>"$WORK/err"
expect "missing program, not optional: exit 2" "$?" 2
expect "missing program, not optional: message" "$(cat "$WORK/err")" \
    "sweep: workload 'c' ($WORK/bad.list line 1): $FAKE_BIN/missing is not an executable program (No such file or directory); build it, or declare it optional=yes to skip it when missing"
finish
