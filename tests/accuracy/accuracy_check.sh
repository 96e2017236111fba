#!/bin/sh
# accuracy_check.sh BIN ACC_SITES - tests of the exact profile, `sgcprof
# accuracy` and the accuracy study (make test-accuracy):
#  1. the exact profile (SGC_ALLOC_PERIOD=8) of acc_sites' hand-worked
#     pattern: every site, leaf, type and survival class with its bytes and
#     objects, and the totals equal the stats record's;
#  2. distances on constructed profiles: identical = 0, disjoint = 1, a known
#     mix = 1/2 with relative errors +100% / -100%; a TRUTH that is not exact
#     and bad arguments exit 2;
#  3. fixed-mode aliasing on a periodic program (a 128-byte round of 16, 48
#     and 64 bytes, P = 4096 = 32 rounds): every sample on one site, TVD
#     exactly 1/2 (offset 0: site c) and 5/8 (offset 100: site b); poisson
#     at the same period spreads them (TVD < 0.05); the same on a periodic
#     sgc-replay trace, counted per line;
#  4. a small accuracy study end to end (accuracy/accuracy.sh).
set -u
bin=$1
prog=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/acccheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# ---- 1. The exact profile, by hand -------------------------------------------
# sites: 2 x 16 bytes with no frame; main;alpha 100 x 32 (10 kept);
# main;beta 50 x 112; main;alpha;gamma 10 large x 9008 (2 kept); main 3 x 8;
# then a minor collection; main;delta 4 x 24 (survival unknown at exit).
SGC_ALLOC_PERIOD=8 SGC_PROFILE="$tmp/sites.prof" SGC_STATS="$tmp/sites.stats" "$prog" sites ||
    fail "acc_sites sites exited $?"
cat > "$tmp/sites.want" <<'EOF'
dimension,rank,key,bytes,objects
site,1,main;alpha;gamma,90080,10
site,2,main;beta,5600,50
site,3,main;alpha,3200,100
site,4,main;delta,96,4
site,5,(no frame),32,2
site,6,main,24,3
leaf,1,gamma,90080,10
leaf,2,beta,5600,50
leaf,3,alpha,3200,100
leaf,4,delta,96,4
leaf,5,(no frame),32,2
leaf,6,main,24,3
type,1,B,95680,60
type,2,A,3352,109
survival,1,died,80600,153
survival,2,survived,18336,12
survival,3,unknown,96,4
EOF
"$bin/sgcprof" accuracy --csv "$tmp/sites.prof" > "$tmp/sites.csv" || fail "sgcprof accuracy TRUTH exited $?"
cut -d, -f1-5 "$tmp/sites.csv" > "$tmp/sites.got"
if cmp -s "$tmp/sites.want" "$tmp/sites.got"; then ok "exact profile by site, leaf, type, survival"
else fail "exact profile differs from the hand-computed one:"; diff "$tmp/sites.want" "$tmp/sites.got"; fi
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
got="$(stat_of "$tmp/sites.stats" bytes_allocated) $(stat_of "$tmp/sites.stats" objects_allocated)"
[ "$got" = "99032 169" ] && ok "stats record: 99032 bytes, 169 objects" || fail "stats record says $got, want 99032 169"
for d in site leaf type survival; do
    t=$(awk -F, -v d=$d '$1 == d { b += $4; o += $5 } END { print b " " o }' "$tmp/sites.csv")
    [ "$t" = "99032 169" ] || fail "$d totals $t differ from the stats record 99032 169"
done

# ---- 2. Known distances -------------------------------------------------------
for m in two one other; do
    SGC_ALLOC_PERIOD=8 SGC_PROFILE="$tmp/$m.prof" "$prog" $m || fail "acc_sites $m exited $?"
done
SGC_ALLOC_PERIOD=8 SGC_PROFILE="$tmp/two2.prof" "$prog" two || fail "acc_sites two exited $?"
# other and one are other runs (another program, another input): --unmatched compares them anyway.
"$bin/sgcprof" accuracy --csv --top 2 --unmatched "$tmp/two.prof" "$tmp/two2.prof" "$tmp/other.prof" "$tmp/one.prof" \
    > "$tmp/cmp.csv" 2> "$tmp/cmp.err" || fail "sgcprof accuracy --unmatched exited $?"
[ "$(grep -c "warning: .* is not a profile of the run of $tmp/two.prof" "$tmp/cmp.err")" = 2 ] &&
    grep -q "warning: $tmp/other.prof is not a profile of the run of $tmp/two.prof: it sampled 100 objects of type A, 32 bytes, at main;epsilon, where the exact profile allocated 0 (compared anyway: --unmatched)" "$tmp/cmp.err" &&
    ok "--unmatched: both other runs compared, each with a warning" || fail "--unmatched warnings: $(cat "$tmp/cmp.err")"
# file,...,dimension(9),...,tvd(12),tvd_indep,top_n,top_max_err(15),top_set,top_order,top_min_expected,err_1(19),err_2
row() { awk -F, -v f="$tmp/$1.prof" -v d="$2" '$1 == f && $9 == d { print $12, $15, $16, $17, $19, $20 }' "$tmp/cmp.csv"; }
check_row() {
    got=$(row "$1" "$2")
    [ "$got" = "$3" ] && ok "$1 vs two by $2: tvd max_err set order err1 err2 = $got" ||
        fail "$1 vs two by $2: got '$got', want '$3'"
}
check_row two2 site "0 0 1 1 0 0"
check_row two2 survival "0 0 1 1 0 "
check_row other site "1 1 0 0 -1 -1"
check_row one site "0.5 1 0 0 1 -1"
check_row one leaf "0.5 1 0 0 1 -1"
check_row one type "0 0 1 1 0 "
# A TRUTH that is not exact, a corrupt one, bad arguments: exit 2 with a message.
SGC_ALLOC_PERIOD=64 SGC_PROFILE="$tmp/p64.prof" "$prog" two || fail "acc_sites two at 64 exited $?"
"$bin/sgcprof" accuracy "$tmp/p64.prof" "$tmp/two.prof" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "not an exact profile: sampling at period 64" "$tmp/err" && ok "non-exact TRUTH refused" ||
    fail "non-exact TRUTH: exit $rc, $(cat "$tmp/err")"
SGC_ALLOC_PERIOD=8 SGC_ALLOC_MODE=poisson SGC_PROFILE="$tmp/pois8.prof" "$prog" two || fail "acc_sites poisson 8 exited $?"
"$bin/sgcprof" accuracy "$tmp/pois8.prof" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "in poisson mode" "$tmp/err" && ok "poisson-mode period 8 TRUTH refused" ||
    fail "poisson TRUTH: exit $rc, $(cat "$tmp/err")"
SGC_PROFILE="$tmp/none.prof" "$prog" two
"$bin/sgcprof" accuracy "$tmp/none.prof" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "never on" "$tmp/err" && ok "profile without allocation sampling refused" ||
    fail "no-sampling TRUTH: exit $rc, $(cat "$tmp/err")"
head -c 100 "$tmp/two.prof" > "$tmp/cut.prof"
"$bin/sgcprof" accuracy "$tmp/cut.prof" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "cut.prof" "$tmp/err" && ok "truncated TRUTH refused" || fail "truncated: exit $rc"
for args in "" "--top 0 $tmp/two.prof" "--bogus $tmp/two.prof" "$tmp/missing.prof"; do
    # shellcheck disable=SC2086
    "$bin/sgcprof" accuracy $args > /dev/null 2>&1; rc=$?
    [ $rc -eq 2 ] || fail "sgcprof accuracy $args: exit $rc, want 2"
done

# Profiles of another run are refused (exit 2), naming what differs: a profile carries no program
# name, input or seed, so the check is on what it holds (sampled objects the truth allocated fewer
# times; the total against the truth's bytes).
refused() { # refused WHAT WANT TRUTH SAMPLED
    what=$1 want=$2; shift 2
    "$bin/sgcprof" accuracy "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/err" && ! grep -q '^sampled:' "$tmp/out"; then
        ok "$what refused: exit 2"
    else fail "$what: exit $rc, want 2 and '$want': $(cat "$tmp/err")"; fi
}
refused "another program" "$tmp/other.prof is not a profile of the run of $tmp/two.prof: it sampled 100 objects of type A, 32 bytes, at main;epsilon, where the exact profile allocated 0; give a sampled profile of the same deterministic program, input and settings" "$tmp/two.prof" "$tmp/other.prof"
refused "another input" "$tmp/one.prof is not a profile of the run of $tmp/two.prof: it sampled 200 objects of type A, 32 bytes, at main;alpha, where the exact profile allocated 100" "$tmp/two.prof" "$tmp/one.prof"

# ---- 3. Aliasing ------------------------------------------------------------------
# 20000 rounds x 128 bytes = 2,560,000 bytes = 625 points of 4096 (offset 0).
SGC_ALLOC_PERIOD=8 SGC_PROFILE="$tmp/per8.prof" "$prog" periodic 20000 || fail "periodic truth exited $?"
SGC_ALLOC_PERIOD=4096 SGC_PROFILE="$tmp/perf0.prof" "$prog" periodic 20000 || fail "periodic fixed exited $?"
SGC_ALLOC_PERIOD=4096 SGC_ALLOC_OFFSET=100 SGC_PROFILE="$tmp/perf100.prof" "$prog" periodic 20000 || fail "periodic fixed offset exited $?"
SGC_ALLOC_PERIOD=4096 SGC_ALLOC_MODE=poisson SGC_SEED=7 SGC_PROFILE="$tmp/perp.prof" "$prog" periodic 20000 || fail "periodic poisson exited $?"
"$bin/sgcprof" accuracy --csv --top 3 "$tmp/per8.prof" "$tmp/perf0.prof" "$tmp/perf100.prof" "$tmp/perp.prof" > "$tmp/per.csv" ||
    fail "sgcprof accuracy (periodic) exited $?"
# samples(4), dimension(9), keys_sampled(11), tvd(12), err_1..3 (main;c, main;b, main;a)
prow() { awk -F, -v f="$tmp/$1.prof" '$1 == f && $9 == "site" { print $4, $11, $12, $19, $20, $21 }' "$tmp/per.csv"; }
got=$(prow perf0); [ "$got" = "625 1 0.5 1 -1 -1" ] && ok "fixed, offset 0: every sample on c, TVD 1/2 ($got)" ||
    fail "fixed offset 0 on the periodic program: '$got', want '625 1 0.5 1 -1 -1'"
got=$(prow perf100); [ "$got" = "625 1 0.625 -1 1.66667 -1" ] && ok "fixed, offset 100: every sample on b, TVD 5/8 ($got)" ||
    fail "fixed offset 100: '$got', want '625 1 0.625 -1 1.66667 -1'"
got=$(prow perp)
echo "$got" | awk '{ exit !($2 == 3 && $3 < 0.05) }' && ok "poisson spreads the samples over the 3 sites, TVD < 0.05 ($got)" ||
    fail "poisson on the periodic program: '$got' (want 3 sites, TVD < 0.05)"
# The same program on another input (30000 or 10000 rounds against the truth's 20000): every sampled
# object is one the truth allocated more often, so the totals decide: fixed mode 937 x 4096 =
# 3837952 and 312 x 4096 = 1277952 bytes against 2560000 (a same run is within one period); poisson
# mode about 937 points where the truth gives 625 +- 25 (more than 6 standard deviations).
SGC_ALLOC_PERIOD=4096 SGC_PROFILE="$tmp/per30k.prof" "$prog" periodic 30000 || fail "periodic 30000 exited $?"
SGC_ALLOC_PERIOD=4096 SGC_PROFILE="$tmp/per10k.prof" "$prog" periodic 10000 || fail "periodic 10000 exited $?"
SGC_ALLOC_PERIOD=4096 SGC_ALLOC_MODE=poisson SGC_SEED=7 SGC_PROFILE="$tmp/perp30k.prof" "$prog" periodic 30000 || fail "periodic poisson 30000 exited $?"
refused "a longer run, fixed mode" "$tmp/per30k.prof is not a profile of the run of $tmp/per8.prof: it estimates 3837952 bytes allocated, the exact profile holds 2560000: in fixed mode at period 4096 the same run gives at most a period less or more" "$tmp/per8.prof" "$tmp/per30k.prof"
refused "a shorter run, fixed mode" "it estimates 1277952 bytes allocated, the exact profile holds 2560000" "$tmp/per8.prof" "$tmp/per10k.prof"
refused "a longer run, poisson mode" "the exact profile's 2560000 bytes give 625.0 +- 25.0 at period 4096 in poisson mode: more than 6 standard deviations apart" "$tmp/per8.prof" "$tmp/perp30k.prof"
# The table says what was checked, and that the profiles carry no run identity.
"$bin/sgcprof" accuracy "$tmp/per8.prof" "$tmp/perf100.prof" "$tmp/perp.prof" > "$tmp/table.txt" || fail "sgcprof accuracy (table) exited $?"
[ "$(grep -c "^  same run as the truth, as far as the profiles tell (they name no program, input or seed): every sampled object allocated as often in the truth; the estimated total within one period of the truth's bytes$" "$tmp/table.txt")" = 1 ] &&
    [ "$(grep -c "^  same run as the truth, as far as the profiles tell (they name no program, input or seed): every sampled object allocated as often in the truth; the sample points within 6 standard deviations of the truth's bytes / period$" "$tmp/table.txt")" = 1 ] &&
    ok "the table says what identifies the run and what was checked" || fail "table: $(grep 'same run' "$tmp/table.txt")"
# The same on a trace: 3000 rounds of 16, 48, 64 bytes at P = 4096 (fixed):
# 3000 x 128 / 4096 = 93 points, all on the third allocation of a round.
awk 'BEGIN { print "nursery 64K"; print "period 4096"; for (i = 0; i < 3000; i++) { print "alloc 8"; print "alloc 40"; print "alloc 56" } }' > "$tmp/per.trace"
"$bin/sgc-replay" < "$tmp/per.trace" > "$tmp/per.out" || fail "sgc-replay exited $?"
got=$(awk '$1 == "alloc" && $4 > 0 { s[($2 - 3) % 3] += $4 } END { print s[0] + 0, s[1] + 0, s[2] + 0 }' "$tmp/per.out")
[ "$got" = "0 0 93" ] && ok "replay, fixed: samples per site a b c = $got" || fail "replay fixed: '$got', want '0 0 93'"
sed 's/^period 4096$/poisson 4096 11/' "$tmp/per.trace" > "$tmp/perp.trace"
"$bin/sgc-replay" < "$tmp/perp.trace" > "$tmp/perp.out" || fail "sgc-replay (poisson) exited $?"
got=$(awk '$1 == "alloc" && $4 > 0 { s[($2 - 3) % 3] += $4 } END { print s[0] + 0, s[1] + 0, s[2] + 0 }' "$tmp/perp.out")
echo "$got" | awk '{ exit !($1 > 0 && $2 > 0 && $3 > 0 && $3 < $1 + $2 + 40) }' && ok "replay, poisson: samples per site a b c = $got" ||
    fail "replay poisson: '$got' (want every site sampled, c not all)"

# ---- 4. A small study end to end --------------------------------------------------
if [ "${ACC_E2E:-1}" = 1 ]; then
    sh accuracy/accuracy.sh --bin "$bin" --out "$tmp/study" --workloads gcbench,interp --periods 16K,512K --runs 3 \
        --sizes gcbench=20,interp=2000 > "$tmp/study.log" 2>&1; rc=$?
    [ $rc -eq 0 ] && ok "accuracy.sh exit 0" || { fail "accuracy.sh exit $rc"; tail -5 "$tmp/study.log"; }
    n=$(awk -F, 'NR > 1' "$tmp/study/summary.csv" | wc -l)
    [ "$n" -eq 32 ] && ok "summary: 32 cells (2 workloads x 2 periods x 2 modes x 4 dimensions)" || fail "summary has $n cells, want 32"
    n=$(awk -F, 'NR > 1 && $12 == "site"' "$tmp/study/runs.csv" | wc -l)
    [ "$n" -eq 24 ] && ok "runs.csv: 24 site rows" || fail "runs.csv has $n site rows, want 24"
    n=$(awk -F, 'NR > 1 && $8 == 1' "$tmp/study/truth.csv" | wc -l)
    [ "$n" -eq 2 ] && ok "truth identical in both exact runs of both workloads" || fail "truth identical for $n of 2"
    # interp at 512K, fixed: three offsets, three distinct sample sets
    n=$(awk -F, '$1 == "interp" && $2 == "fixed" && $3 == 524288 && $12 == "site" { print $5 }' "$tmp/study/runs.csv" | sort -u | wc -l)
    [ "$n" -eq 3 ] && ok "fixed mode: 3 distinct offsets" || fail "fixed mode: $n distinct offsets, want 3"
    grep -q "^| gcbench |" "$tmp/study/summary.md" && ok "summary.md has the recommendation" || fail "summary.md incomplete"
    for f in accuracy-tvd accuracy-overhead; do
        [ -s "$tmp/study/figures/$f.png" ] && [ -s "$tmp/study/figures/$f.svg" ] && [ -s "$tmp/study/figures/$f.txt" ] &&
            ok "figure $f drawn" || fail "figure $f missing"
    done
fi

echo "$fails failed"
[ $fails -eq 0 ]
