#!/bin/sh
# inprocal.sh - calibration in the in-process design probes the run the
# design makes: the baseline cell's A/A alternation (SGC_ALTERNATE=none,
# SGC_ALT_OUT, the system's segment length and in-process templates), so
# that a runtime whose alternation costs more than its plain run (V8
# collects at every boundary) is not calibrated on the plain run and then
# timed out.  A command that logs the settings of every run it is started
# with (then runs the tiny peer, tests/harness/tinypeer.c) is calibrated in
# the in-process design and in the blocked one; counted exactly:
#  - in-process: every probe (calibration_probes) has the A/A alternation
#    with its series path, segment and in-process template, and so has every
#    baseline run; the --check-less reference run (check=self) has none;
#  - blocked: no run or probe has any of it.
. tests/harness/lib.sh
TINY=$FAKE_BIN/tinypeer
[ -x "$TINY" ] || { fail "$TINY is not built"; finish; }
for design in inprocess blocked; do
    cat >"$WORK/log-$design.sh" <<EOS
#!/bin/sh
echo "alt=\${SGC_ALTERNATE:-unset} out=\${SGC_ALT_OUT:+set} seg=\${SGC_ALT_SEGMENT:-unset} mark=\${TINY_MARK:-unset} active=\${TINYPEER_ACTIVE:-unset}" >>"$WORK/$design.log"
exec "$TINY" "\$@"
EOS
    chmod +x "$WORK/log-$design.sh"
    cat >"$WORK/$design.list" <<LIST
system tiny site="a counter in its malloc wrapper" modes=poisson alloc-env=TINYPEER_SAMPLE_PERIOD={P} off-env=TINYPEER_SAMPLE_PERIOD=0 inprocess=yes inprocess-alloc-env=TINYPEER_SAMPLE_PERIOD={P} inprocess-alloc-env=TINYPEER_ACTIVE=0 inprocess-env=TINY_MARK=inproc segment=2ms
command bt-log system=tiny check=self -- $WORK/log-$design.sh --size {size} --depth 10
LIST
    "$SWEEP" --backends native --list "$WORK/$design.list" --bin-dir "$FAKE_BIN" --design $design --modes poisson \
        --periods 32K --time-hz none --runs 2 --warmup 0 --target 0.05 --seed 3 --no-progress \
        --out "$WORK/$design" >"$WORK/$design.out" 2>&1
    expect "$design sweep: exit 0" "$?" 0
done
DB="$WORK/inprocess/latest/results.db"
probes=$(q "$DB" "SELECT count(*) FROM calibration_probes WHERE workload = 'bt-log'")
base=$(q "$DB" "SELECT count(*) FROM runs r JOIN cells c USING(cell_id) WHERE c.workload = 'bt-log' AND c.kind = 'baseline'")
alloc=$(q "$DB" "SELECT count(*) FROM runs r JOIN cells c USING(cell_id) WHERE c.workload = 'bt-log' AND c.kind != 'baseline'")
expect "in-process: probes, baseline and alloc runs counted" "$([ "$probes" -ge 2 ] && echo yes)|$base|$alloc" "yes|2|2"
expect "in-process: every probe and baseline run had the A/A alternation, its series, segment and template" \
    "$(grep -c '^alt=none out=set seg=2ms mark=inproc active=unset$' "$WORK/inprocess.log")" $((probes + base))
expect "in-process: the alloc runs had their own" \
    "$(grep -c '^alt=alloc out=set seg=2ms mark=inproc active=0$' "$WORK/inprocess.log")" "$alloc"
expect "in-process: one more run, the reference, plain" \
    "$(grep -c '^alt=unset out= seg=unset mark=unset active=unset$' "$WORK/inprocess.log")|$(wc -l <"$WORK/inprocess.log")" \
    "1|$((probes + base + alloc + 1))"
bprobes=$(q "$WORK/blocked/latest/results.db" "SELECT count(*) FROM calibration_probes WHERE workload = 'bt-log'")
expect "blocked: no run or probe alternated" \
    "$(grep -c '^alt=unset out= seg=unset mark=unset' "$WORK/blocked.log")" "$(wc -l <"$WORK/blocked.log")"
expect "blocked: every probe logged" "$([ "$(wc -l <"$WORK/blocked.log")" -gt "$bprobes" ] && echo yes)" yes
finish
