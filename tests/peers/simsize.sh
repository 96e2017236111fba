#!/bin/sh
# simsize.sh BIN - a command's sim-size=N in the workload list (harness/sw_cmd.h):
# its simulated cells run at that size without calibration (the stored
# calibration says "fixed", size N, one probe), --sim-size WORKLOAD=M on the
# command line replaces it, and bad values (0, not a number, a sign, a
# command without {size}) are refused with exit 2 and a message naming them
# before anything runs.  The command is freecheck's own gcbench declared as a
# command workload, at sizes 2 and 3 under valgrind (about a second a run).
BIN=${1:?usage: simsize.sh BIN}
. tests/peers/lib.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Its own CPU locks: a sweep elsewhere on the machine does not make it wait.
FREECHECK_LOCK_DIR=$tmp/locks
export FREECHECK_LOCK_DIR
mkdir -p "$FREECHECK_LOCK_DIR"
if ! command -v valgrind >/dev/null 2>&1; then
    fail "valgrind is not installed (make deps installs it)"
    exit 1
fi
list() { # list FILE SIM-SIZE-KEY...: a list declaring gcb, gcbench as a command
    f=$1
    shift
    printf 'gcbench\ncommand gcb system=freecheck check=like:gcbench %s -- {bin}/gcbench --size {size}\n' "$*" >"$f"
}
sweep_sim() { # sweep_sim LIST OUT EXTRA...: a simulated sweep of gcb's baseline and 32K
    l=$1 o=$2
    shift 2
    "$BIN/sweep" --bin-dir "$BIN" --list "$l" --workloads gcb --backends sim --design blocked --modes poisson \
        --periods 32K --time-hz none --seed 7 --no-progress --out "$o" "$@" >"$o.out" 2>"$o.err"
}
calib() { sqlite3 "$1/latest/results.db" "SELECT size, method, probes, status FROM calibration WHERE workload = 'sim:gcb'"; }

list "$tmp/a.list" sim-size=3
sweep_sim "$tmp/a.list" "$tmp/a"
rc=$?
if [ $rc != 0 ]; then
    fail "sweep with sim-size=3: exit $rc: $(tail -n 5 "$tmp/a.err")"
else
    got=$(calib "$tmp/a")
    [ "$got" = "3|fixed|1|ok" ] && ok "sim-size=3: the simulated cells at --size 3, not calibrated" ||
        fail "sim-size=3: calibration '$got', expected 3|fixed|1|ok"
    got=$(sqlite3 "$tmp/a/latest/results.db" "SELECT count(*), min(c.size), max(c.size) FROM runs r JOIN cells c
        USING (cell_id) WHERE c.backend = 'sim' AND r.status = 'ok'")
    [ "$got" = "4|3|3" ] && ok "sim-size=3: 4 simulated runs, all at --size 3" ||
        fail "sim-size=3: simulated runs (count|min size|max size) '$got', expected 4|3|3"
    got=$(sqlite3 "$tmp/a/latest/results.db" "SELECT value FROM meta WHERE key = 'commands'" | grep -c 'sim-size=3')
    [ "$got" = 1 ] && ok "sim-size=3 is in the stored declarations (meta commands)" ||
        fail "the stored declarations (meta commands) do not hold sim-size=3"
fi

sweep_sim "$tmp/a.list" "$tmp/b" --sim-size gcb=2
rc=$?
if [ $rc != 0 ]; then
    fail "sweep with sim-size=3 and --sim-size gcb=2: exit $rc: $(tail -n 5 "$tmp/b.err")"
else
    got=$(calib "$tmp/b")
    [ "$got" = "2|fixed|1|ok" ] && ok "--sim-size gcb=2 replaces the list's sim-size=3" ||
        fail "--sim-size gcb=2 with sim-size=3: calibration '$got', expected 2|fixed|1|ok"
fi

for bad in sim-size=0 sim-size=x sim-size=-1 sim-size=+2 sim-size=; do
    list "$tmp/bad.list" "$bad"
    "$BIN/sweep" --bin-dir "$BIN" --list "$tmp/bad.list" --workloads gcb --backends sim --periods 32K \
        --time-hz none --plan >/dev/null 2>"$tmp/bad.err"
    rc=$?
    if [ $rc = 2 ] && grep -q "line 2: sim-size: '${bad#sim-size=}' is not a size of 1 or more" "$tmp/bad.err"; then
        ok "$bad refused (exit 2, naming it)"
    else
        fail "$bad: exit $rc, $(cat "$tmp/bad.err")"
    fi
done
printf 'command gcb system=freecheck check=self sim-size=4 -- %s/gcbench --size 5\n' "$BIN" >"$tmp/nosize.list"
"$BIN/sweep" --bin-dir "$BIN" --list "$tmp/nosize.list" --workloads gcb --backends sim --periods 32K --time-hz none \
    --plan >/dev/null 2>"$tmp/bad.err"
rc=$?
if [ $rc = 2 ] && grep -q "sim-size=4: command gcb takes no {size}" "$tmp/bad.err"; then
    ok "sim-size on a command without {size} refused"
else
    fail "sim-size on a command without {size}: exit $rc, $(cat "$tmp/bad.err")"
fi
[ $failures = 0 ] || exit 1
