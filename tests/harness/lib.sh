# lib.sh - helpers shared by the harness's shell tests (sourced).
# Needs SWEEP (the sweep binary) and FAKE_BIN (the stand-in workloads).
set -u
: "${SWEEP:?SWEEP must name the sweep binary}"
: "${FAKE_BIN:?FAKE_BIN must name the stand-in workloads directory}"
FAKE_BIN=$(cd "$FAKE_BIN" && pwd) # the sweep runs workloads by absolute path
WORK=$(mktemp -d "${TMPDIR:-/tmp}/harness-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Private per-CPU sweep locks: the tests' sweeps (and other people's on a
# shared machine) do not queue behind each other.
FREECHECK_LOCK_DIR="$WORK/locks"
export FREECHECK_LOCK_DIR
mkdir -p "$FREECHECK_LOCK_DIR"
FAILS=0

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# expect NAME ACTUAL EXPECTED: compares two strings exactly.
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else
        fail "$1"; echo "  expected: $3" | head -n 40; echo "  actual:   $2" | head -n 40; fi
}

# q DB SQL: one query, rows separated by newlines, fields by |.
q() { sqlite3 -batch "$1" "$2"; }

finish() {
    if [ "$FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
    echo "$FAILS checks failed"; exit 1
}
