#!/bin/sh
# Signals sent to sbx reach the command; the command's end kills what it
# left behind; killing sbx with SIGKILL leaves nothing inside alive.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 15
make_tmpdir

for sig in INT TERM HUP QUIT USR1 USR2; do
    : >"$tmpdir/out"
    "$SBX" run -- "$H/wait-signal" >"$tmpdir/out" 2>&1 </dev/null &
    pid=$!
    if wait_for_text "$tmpdir/out" ready; then
        kill -$sig $pid
        wait $pid
        st=$?
        is "$st $(tail -n 1 "$tmpdir/out")" "0 got SIG$sig" "SIG$sig sent to sbx reaches the command"
    else
        kill -KILL $pid; wait $pid
        fail "SIG$sig: the command never became ready"; diag "$(cat "$tmpdir/out")"
    fi
done

# Default action: the command dies of the forwarded signal.
: >"$tmpdir/out"
"$SBX" run -- sh -c 'echo ready; exec sleep 30' >"$tmpdir/out" 2>&1 </dev/null &
pid=$!
wait_for_text "$tmpdir/out" ready
kill -TERM $pid
wait $pid
is "$?" 143 "SIGTERM forwarded to a command without a handler gives 143"

# Ctrl-C at a terminal: the kernel signals the whole foreground process
# group, the command included, so sbx must not forward a second SIGINT.
# script(1) (util-linux) provides the terminal.
: >"$tmpdir/pty"
(
    wait_for_text "$tmpdir/pty" ready
    printf '\003'
    sleep 0.5
) | script -qfec "\"$SBX\" run -- \"$H/count-sigint\"" /dev/null >"$tmpdir/pty" 2>&1
like "$(cat "$tmpdir/pty")" "SIGINT x1" "Ctrl-C at a terminal reaches the command exactly once"

# A daemon left behind is killed when the command exits.
new_marker 1
sbx_run -- sh -c "sleep $marker </dev/null >/dev/null 2>&1 & sleep 0.1; kill -0 \$! && echo started"
is "$status $out" "0 started" "the command exited 0 leaving a daemon"
sleep 0.2
is "$(count_marker)" 0 "the daemon was killed with the sandbox"

# Without a PID namespace init is a child subreaper and kills the orphans.
new_marker 3
profile nopid <<INI
[namespaces]
pid = no
INI
sbx_run -p "$prof" -- sh -c "sleep $marker </dev/null >/dev/null 2>&1 & sleep 0.1; kill -0 \$! && echo started"
is "$status $out" "0 started" "pid = no: the command exited 0 leaving a daemon"
sleep 0.2
is "$(count_marker)" 0 "pid = no: the daemon was killed all the same"

# kill -9 of the supervisor: nothing inside survives.
new_marker 2
: >"$tmpdir/out"
"$SBX" run -- sh -c "sleep $marker & sleep $marker & echo ready; wait" >"$tmpdir/out" 2>&1 </dev/null &
pid=$!
wait_for_text "$tmpdir/out" ready
sleep 0.1
is "$(count_marker)" 2 "two processes run inside"
init_pid=$(ps -o pid= --ppid $pid | tr -d ' ')
kill -KILL $pid
wait $pid 2>/dev/null
i=0
while [ $i -lt 40 ] && [ "$(count_marker)" != 0 ]; do sleep 0.05; i=$((i + 1)); done
is "$(count_marker)" 0 "after kill -9 of sbx no process of the sandbox survives"
i=0
while [ $i -lt 40 ] && [ -n "$init_pid" ] && kill -0 "$init_pid" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
if [ -n "$init_pid" ] && ! kill -0 "$init_pid" 2>/dev/null; then
    pass "the sandbox's init ($init_pid) died with the supervisor"
else
    fail "the sandbox's init died with the supervisor"; diag "init pid '$init_pid'"
fi

done_testing
