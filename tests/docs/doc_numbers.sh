#!/bin/sh
# doc_numbers.sh SCRATCH - scripts/tables.py's check on the tree, and on a
# scratch copy of the pages (the rest of the tree linked in) each kind of
# defect it must find: exit status and the exact number of problems.
set -u
scratch=${1:?usage: doc_numbers.sh SCRATCH_DIR}
top=$(pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir -p "$(dirname "$scratch")" # run alone, no other test has made the build's tests/ yet

# 1. The tree as committed.
if python3 scripts/tables.py >"$scratch.out" 2>&1; then
    echo "ok: the tree's pages agree with its results"
else
    fail "scripts/tables.py on the tree:"; sed 's/^/    /' "$scratch.out"
fi

# A scratch root: README.md, docs/ and the results' README.md and CSV files
# copied, everything else linked.
fresh() {
    rm -rf "$scratch"; mkdir -p "$scratch/results"
    for e in "$top"/* "$top"/.[!.]*; do
        [ -e "$e" ] || continue
        b=$(basename "$e")
        case $b in README.md|docs|results|build|.git) ;; *) ln -s "$e" "$scratch/$b" ;; esac
    done
    cp "$top/README.md" "$scratch/"; cp -r "$top/docs" "$scratch/"
    for d in "$top"/results/*; do
        b=$(basename "$d")
        if [ -d "$d" ]; then
            mkdir "$scratch/results/$b"
            for f in "$d"/*; do
                case $f in *.md|*/summary.csv|*/regress.csv|*/sim.csv|*/inprocess.csv|*/peers.csv) cp "$f" "$scratch/results/$b/" ;; *) ln -s "$f" "$scratch/results/$b/" ;; esac
            done
        else
            cp "$d" "$scratch/results/"
        fi
    done
}

# expect STATUS PROBLEMS PATTERN WHAT: run the check on the scratch root.
expect() {
    python3 "$top/scripts/tables.py" --root "$scratch" >"$scratch.out" 2>&1
    rc=$?
    n=$(grep -c "^tables.py: [^ ]*:[0-9]*: " "$scratch.out")
    if [ "$rc" -ne "$1" ]; then
        fail "$4: exit $rc, expected $1"; sed 's/^/    /' "$scratch.out"
    elif [ "$n" -ne "$2" ]; then
        fail "$4: $n problems reported, expected $2"; sed 's/^/    /' "$scratch.out"
    elif [ -z "$3" ] && [ -s "$scratch.out" ]; then
        fail "$4: output where none was expected"; sed 's/^/    /' "$scratch.out"
    elif [ -n "$3" ] && ! grep -q -- "$3" "$scratch.out"; then
        fail "$4: no line matching '$3'"; sed 's/^/    /' "$scratch.out"
    else
        echo "ok: $4"
    fi
}

# edit FILE PYTHON-EXPRESSION-ON-s: rewrite a scratch file.
edit() {
    python3 - "$scratch/$1" "$2" <<'PY' || { echo "FAIL: could not edit $1"; exit 1; }
import sys
p, expr = sys.argv[1], sys.argv[2]
s = open(p).read()
t = eval(expr)
assert t != s, "the edit changed nothing"
open(p, "w").write(t)
PY
}

fresh
expect 0 0 "" "the scratch copy agrees"

# 2. One number of the generated headline table edited by hand: the first
# digit of its first data row's second cell, changed.
fresh
edit README.md '(lambda i: s[:i] + ("1" if s[i] != "1" else "2") + s[i+1:])(s.index("|---", s.index("table:headline")) + s[s.index("|---", s.index("table:headline")):].index("\n| ") + 1 + s[s.index("|---", s.index("table:headline")):].split("\n")[1].index(" | ") + 3)'
expect 1 1 "README.md:[0-9]*: differs from what the data gives" "a hand-edited number in the headline table"

# 3. A result changed, the page not rewritten; then --write makes it agree,
# and the page says the new value.
fresh
python3 - "$scratch/results/reference/summary.csv" <<'PY'
import csv, sys
p = sys.argv[1]
lines = open(p).read().split("\n")
hdr = next(i for i, l in enumerate(lines) if not l.startswith("#"))
cols = lines[hdr].split(",")
k = cols.index("paired")
for i in range(hdr + 1, len(lines)):
    f = next(csv.reader([lines[i]]))
    if f and f[cols.index("kind")] == "alloc" and f[cols.index("depth")] == "" and f[k]:
        f[k] = "1.7777"
        import io
        b = io.StringIO(); csv.writer(b, lineterminator="").writerow(f); lines[i] = b.getvalue()
        break
open(p, "w").write("\n".join(lines))
PY
expect 1 1 "README.md:[0-9]*: differs from what the data gives" "a changed result without --write"
python3 "$top/scripts/tables.py" --root "$scratch" --write >/dev/null 2>&1
expect 0 0 "" "the same after --write"
grep -q "1.778 \[" "$scratch/README.md" && echo "ok: --write put the new value in the page" ||
    fail "--write did not put 1.778 into README.md"

# 4. A measured interval copied by hand into a reference page's prose; the
# same in docs/MEASUREMENTS.md and in a code span is allowed.
fresh
edit docs/RUNTIME.md 's + "\nThe overhead was 1.012 [0.995, 1.031] here.\n"'
expect 1 1 "docs/RUNTIME.md:[0-9]*: measured interval '1.012 \[0.995, 1.031\]'" "a hand-copied interval in docs/"
fresh
edit docs/MEASUREMENTS.md 's + "\nThe overhead was 1.012 [0.995, 1.031] here.\n"'
edit docs/RUNTIME.md 's + "\nA summary line reads `1.012 [0.995, 1.031]`.\n"'
expect 0 0 "" "the same in MEASUREMENTS.md and in a code span"

# 5. A table of measured numbers outside a generated part.
fresh
edit README.md 's + "\n| workload | a | b | c |\n|---|---|---|---|\n| gcbench | 1.02 | 3.5% | 12,345 |\n"'
expect 1 1 "README.md:[0-9]*: a table row of 3 measured numbers" "a hand-made table of measured numbers"

# 6. A broken link and a broken anchor.
fresh
edit docs/README.md 's + "\nSee [the page](NOSUCH.md) and [that part](STATISTICS.md#no-such-heading).\n"'
expect 1 2 "docs/README.md:[0-9]*: link 'STATISTICS.md#no-such-heading': docs/STATISTICS.md has no heading" "a broken link and a broken anchor"
grep -q "link 'NOSUCH.md' names docs/NOSUCH.md, which does not exist" "$scratch.out" ||
    fail "the broken link was not named"

# 7. Bad markers and a missing results file: exit 2, the page named.
fresh
edit docs/FIGURES.md 's + "\n<!-- table:headline begin -->\n"'
expect 2 1 "docs/FIGURES.md:[0-9]*: .*has no '<!-- table:headline end -->'" "a begin marker without its end"
fresh
edit docs/FIGURES.md 's + "\n<!-- table:nosuch begin -->\n<!-- table:nosuch end -->\n"'
expect 2 1 "docs/FIGURES.md:[0-9]*: unknown generated part 'nosuch'" "an unknown generator"
fresh
edit docs/FIGURES.md 's + "\n<!-- table:sim results/nosuch begin -->\n<!-- table:sim results/nosuch end -->\n"'
expect 2 1 "docs/FIGURES.md:[0-9]*: sim: results/nosuch/sim.csv: cannot read" "a marker naming a directory without results"

# 8. A replicated sweep (the format a replicated reference has: intervals over
# replicates) made into a headline by --write: one row, its level named.
if [ -n "${ANALYZE:-}" ]; then
    fresh
    mkdir -p "$scratch/results/replicated"
    { cat "$top/contracts/schema.sql"; python3 "$top/tests/stats/mkreplicated.py"; } |
        sqlite3 -batch "$scratch/results/replicated/results.db" &&
        "$ANALYZE" --quiet --resamples 1000 --fit-resamples 100 "$scratch/results/replicated" ||
        fail "could not make the replicated sweep"
    edit docs/FIGURES.md 's + "\n<!-- table:headline results/replicated begin -->\n<!-- table:headline results/replicated end -->\n"'
    expect 1 1 "docs/FIGURES.md:[0-9]*: differs from what the data gives" "a new generated part before --write"
    python3 "$top/scripts/tables.py" --root "$scratch" --write >/dev/null 2>&1
    expect 0 0 "" "the replicated sweep's headline after --write"
    rows=$(sed -n '/table:headline results\/replicated begin/,/table:headline results\/replicated end/p' "$scratch/docs/FIGURES.md" | grep -c '^| w |')
    [ "$rows" -eq 1 ] && echo "ok: one headline row for the replicated sweep's one workload" ||
        fail "replicated headline: $rows rows for workload w, expected 1"
    grep -q "paired intervals over replicates" "$scratch/docs/FIGURES.md" &&
        echo "ok: the headline says its intervals are over replicates" ||
        fail "the replicated headline does not name its level"
else
    fail "ANALYZE is not set: the replicated sweep's check cannot run"
fi

rm -rf "$scratch" "$scratch.out"
[ "$fails" -eq 0 ] && echo "doc-numbers: all checks passed" && exit 0
echo "doc-numbers: $fails check(s) failed"
exit 1
