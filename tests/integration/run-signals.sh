#!/bin/sh
# Signals sent to sbx reach the command; the command's end kills what it
# left behind; killing sbx with SIGKILL leaves nothing inside alive. The
# command runs in a process group and session of its own on every path
# (issue 28): kill(0, ...) from inside reaches neither the caller's group
# nor sbx, in the namespaces tier and in the Landlock tier, and
# --timeout holds against a command that stops itself and its children.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 30
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

# --- the command's process group and session (issue 28) ---------------------
# kill_zero BINARY...: in a group of its own (setsid), a sibling sleeps
# while BINARY... runs `kill -KILL 0`; prints whether the sibling lived.
kill_zero() {
    new_marker 4
    setsid sh -c "sleep $marker & echo \$! >$tmpdir/kz.pid; $* sh -c 'kill -KILL 0; echo alive' </dev/null; echo st=\$?" \
        >"$tmpdir/kz" 2>&1
    sleep 0.2
    echo "$(tr '\n' ' ' <"$tmpdir/kz")sibling=$(count_marker)"
    kill "$(cat "$tmpdir/kz.pid")" 2>/dev/null
}
like "$(kill_zero)" "sibling=0" "control: without sbx, kill(0, SIGKILL) kills a sibling in the caller's group"
like "$(kill_zero "$SBX" run --)" "st=137 sibling=1" \
    "inside, kill(0, SIGKILL) kills the command's own group only: the caller's sibling lives"
new_marker 5
"$SBX" run -- sh -c "sleep $marker" </dev/null >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ "$(count_marker)" = 0 ]; do sleep 0.05; i=$((i + 1)); done
cmd=$(pgrep -xf "sleep $marker")
init=$(ps -o ppid= -p "$cmd" | tr -d ' ')
field() { ps -o "$1"= -p "$2" | tr -d ' '; }
isnt "$(field pgid "$init")" "$(field pgid $pid)" "the sandbox's init is not in sbx's process group"
isnt "$(field sid "$init")" "$(field sid $pid)" "... nor in its session"
isnt "$(field pgid "$cmd")" "$(field pgid $pid)" "the command is not in sbx's process group"
isnt "$(field sid "$cmd")" "$(field sid $pid)" "... nor in its session"
kill -TERM $pid; wait $pid

# kill(0, SIGSTOP) from inside stops the command's group, not sbx: the
# timeout fires, SIGTERM and SIGCONT reach the stopped group at once.
new_marker 6
start=$(date +%s)
sbx_run --timeout 1s -- sh -c "sleep $marker & kill -STOP 0; echo never"
is "$status" 124 "kill(0, SIGSTOP) inside: --timeout 1s still expires (exit 124)"
[ $(( $(date +%s) - start )) -lt 4 ]
ok $? "... at the timeout, not after the 5 s grace (SIGCONT after SIGTERM)"
is "$(count_marker)" 0 "... and the stopped child is gone"

# Ctrl-C at the caller's terminal while the command's output is piped (no
# raw mode: the terminal's own SIGINT to its foreground job, which sbx
# passes on to the command's group): exactly once.
: >"$tmpdir/cnt"
(
    wait_for_text "$tmpdir/cnt" ready
    printf '\003'
    sleep 0.5
) | script -qfec "\"$SBX\" run -- \"$H/count-sigint\" >$tmpdir/cnt" /dev/null >/dev/null 2>&1
like "$(cat "$tmpdir/cnt")" "SIGINT x1" "Ctrl-C with stdout redirected (the terminal cooked) reaches the command once"

# --- the same in the Landlock tier ---------------------------------------------
abi=$("$SBX" probe --tap 2>/dev/null | sed -n 's/^ok [0-9]* - landlock: ok \([0-9]*\) .*/\1/p')
if [ -z "$abi" ]; then
    for i in 1 2 3 4 5; do skip "this kernel has no Landlock (sbx probe): no Landlock tier"; done
else
    # as run-landlock.sh: a home and a working directory of the test's own
    mkdir -p "$tmpdir/home" "$tmpdir/work"
    export HOME="$tmpdir/home"
    cd "$tmpdir/work" || exit 1
    profile lltier <<'INI'
[network]
forward = 9
[filesystem]
-tmpfs = *
[sandbox]
fallback = landlock
INI
    like "$(kill_zero "$H/deny-userns" "$SBX" run -q -p "$prof" --)" "st=137 sibling=1" \
        "Landlock tier: kill(0, SIGKILL) inside spares the caller's sibling"
    new_marker 7
    run_cmd "$H/deny-userns" "$SBX" run -q -p "$prof" -- sh -c 'ps -o pgid=,sid= -p $$; ps -o pgid=,sid= -p $PPID'
    set -- $out x x x x
    is "$status" 0 "Landlock tier: the command ran"
    ok "$([ "$1" != "$(ps -o pgid= -p $$ | tr -d ' ')" ] && [ "$2" = "$4" ] && [ "$2" != "$(ps -o sid= -p $$ | tr -d ' ')" ] && echo 0 || echo 1)" \
        "Landlock tier: the command in a group of its own, in init's session, not the caller's ($out)"
    start=$(date +%s)
    run_cmd "$H/deny-userns" "$SBX" run -q --timeout 1s -p "$prof" -- \
        sh -c "trap '' TERM; sleep $marker & kill -STOP \$!; while :; do sleep 1; done"
    is "$status" 124 "Landlock tier: a command that ignores SIGTERM with a stopped child: --timeout expires (124)"
    sleep 0.2
    is "$(count_marker)" 0 "Landlock tier: after the grace init killed the stopped child too ($(( $(date +%s) - start )) s)"
fi

done_testing
