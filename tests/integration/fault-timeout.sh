#!/bin/sh
# Faults (issue 7): a command that ignores SIGTERM is killed at the end of
# the timeout's grace (5 s); a command stopped with SIGSTOP still times out,
# at the timeout (continued to see the SIGTERM);
# neither leaves a process behind. Both run at once to keep the suite fast.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 8
tmpdir=$(mktemp -d "$PWD/fault-timeout.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
new_marker 6
ignoring=$marker
new_marker 8
stopped=$marker

timed() { # timed NAME COMMAND...: runs sbx with --timeout 1s, records status and seconds
    s=$(date +%s.%N)
    "$SBX" run --timeout 1s -- "$@" </dev/null >"$tmpdir/$name.out" 2>"$tmpdir/$name.err"
    echo "$? $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')" >"$tmpdir/$name.result"
}
name=ignore timed sh -c "trap '' TERM; sleep $ignoring & wait; sleep $ignoring" &
a=$!
name=stop timed sh -c "sleep $stopped & kill -STOP \$\$; wait" &
b=$!
wait $a $b

read st secs <"$tmpdir/ignore.result"
is "$st" 124 "a command ignoring SIGTERM: exit 124"
awk -v t="$secs" 'BEGIN { exit !(t >= 5.9 && t < 9) }'; ok $? "killed at the grace end, 1 s + 5 s (took $secs s)"
like "$(cat "$tmpdir/ignore.err")" "did not exit 5 s after SIGTERM" "sbx says it had to kill it"
read st secs <"$tmpdir/stop.result"
is "$st" 124 "a command stopped with SIGSTOP: exit 124"
# SIGCONT follows the timeout's SIGTERM to the command's group (issue 28):
# the stopped command sees it at once instead of at the grace end
awk -v t="$secs" 'BEGIN { exit !(t >= 0.9 && t < 3) }'; ok $? "a stopped command gets the SIGTERM at the timeout, continued ($secs s)"
like "$(cat "$tmpdir/stop.err")" "timeout 1s expired" "sbx says the timeout expired"
sleep 0.2
marker=$ignoring; is "$(count_marker)" 0 "nothing of the SIGTERM-ignoring command is left"
marker=$stopped; is "$(count_marker)" 0 "nothing of the stopped command is left"

done_testing
