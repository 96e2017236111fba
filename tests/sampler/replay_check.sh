#!/bin/sh
# replay_check.sh REPLAY DIR - runs sgc-replay on every DIR/*.trace: a trace
# with a .expected file must print exactly that (also with the poisoning and
# verifying debug modes on, which must not change anything sampled); a trace
# with a .error file must exit with status 2 and name what that file says
# (the line) on stderr, printing nothing on stdout.  Error traces run with
# the address space limited to 4 GiB, so a nursery too large to map fails
# the same way on every machine.  A trace with a .env file runs with the
# NAME=VALUE lines of that file in its environment.  Last, a generated trace
# of one command more than sgc-replay reads (2^24) must be refused naming
# its last line.
replay=$1; dir=$2
tmp=${TMPDIR:-/tmp}/replay_check.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
for t in "$dir"/*.trace; do
    base=${t%.trace}; name=$(basename "$base")
    n=$((n + 1))
    envs=
    [ -f "$base.env" ] && envs=$(cat "$base.env")
    if [ -f "$base.expected" ]; then
        for mode in plain debug; do
            if [ $mode = debug ]; then
                env $envs SGC_POISON=1 SGC_VERIFY=1 "$replay" < "$t" > "$tmp/out" 2> "$tmp/err"
            else
                env $envs "$replay" < "$t" > "$tmp/out" 2> "$tmp/err"
            fi
            rc=$?
            if [ $rc -ne 0 ] || ! cmp -s "$tmp/out" "$base.expected"; then
                echo "FAIL $name ($mode): exit $rc; differences (<got >expected):"
                diff "$tmp/out" "$base.expected" | head -n 10
                head -n 5 "$tmp/err"
                fail=$((fail + 1))
            fi
        done
    elif [ -f "$base.error" ]; then
        # shellcheck disable=SC2086
        (ulimit -v 4194304 && exec env $envs "$replay") < "$t" > "$tmp/out" 2> "$tmp/err"
        rc=$?
        want=$(cat "$base.error")
        if [ $rc -ne 2 ] || ! grep -q "$want" "$tmp/err" || [ -s "$tmp/out" ]; then
            echo "FAIL $name: exit $rc (want 2), stderr: $(cat "$tmp/err"), want \"$want\""
            fail=$((fail + 1))
        fi
    else
        echo "FAIL $name: neither $base.expected nor $base.error"
        fail=$((fail + 1))
    fi
done
n=$((n + 1))
yes minor | head -n 16777217 | "$replay" > "$tmp/out" 2> "$tmp/err"
rc=$?
want="sgc-replay: line 16777217: more than 16777216 commands; split the trace"
if [ $rc -ne 2 ] || ! grep -qx "$want" "$tmp/err" || [ -s "$tmp/out" ]; then
    echo "FAIL too many commands: exit $rc (want 2), stderr: $(head -c 300 "$tmp/err"), want \"$want\""
    fail=$((fail + 1))
fi
echo "replay: $n traces, $fail failed"
[ $fail -eq 0 ] && [ $n -gt 0 ]
