#!/bin/sh
# check.sh WORKDIR FOLDER... - scripts/include-graph.py finds exactly the include cycle and the
# cross-stage arrow planted in a fixture folder (and nothing in a clean one), then reports no
# cycle and no arrow in each FOLDER.
set -u
w=$1; shift
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$w" && mkdir -p "$w/stats" "$w/clean" || exit 1
# A three-module loop (a -> b -> c -> a, one edge through a header), a module outside it,
# an arrow into harness/ and one into contracts/ (allowed).
printf '#include "a.h"\n#include "b.h"\n' > "$w/stats/a.c"
: > "$w/stats/a.h"
printf '#include "c.h"\n' > "$w/stats/b.h"
printf '#include "b.h"\n#include "../harness/sw_opts.h"\n' > "$w/stats/b.c"
printf '#include "a.h"\n#include "../contracts/ct_json.h"\n' > "$w/stats/c.c"
: > "$w/stats/c.h"
printf '#include "a.h"\n#include "c.h"\n' > "$w/stats/d.c"
: > "$w/stats/d.h"
python3 scripts/include-graph.py "$w/stats" > "$w/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "fixture with a loop: exit $rc, want 1"
cat > "$w/want" <<WANT
$w/stats: b.c includes ../harness/sw_opts.h: an arrow from stage stats/ into stage harness/
$w/stats: a 3-module include cycle: a b c
  a.c includes b.h
  b.h includes c.h
  c.c includes a.h
WANT
diff "$w/want" "$w/out" || fail "fixture with a loop: the report above differs from the expected one"
printf '#include "b.h"\n' > "$w/clean/a.c"
printf '#include "c.h"\n' > "$w/clean/b.c"
: > "$w/clean/b.h"
: > "$w/clean/c.h"
python3 scripts/include-graph.py "$w/clean" > "$w/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ ! -s "$w/out" ] || { fail "clean fixture: exit $rc, want 0 and no output:"; cat "$w/out"; }
python3 scripts/include-graph.py "$w/missing" > "$w/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "a missing folder: exit $rc, want 2"
for f in "$@"; do
    python3 scripts/include-graph.py "$f" > "$w/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { fail "$f: exit $rc, want 0 (no include cycle, no arrow into another stage):"; cat "$w/out"; }
done
echo "include graph: $fails failed"
[ $fails -eq 0 ]
