#!/bin/sh
# SIGINT, SIGTERM and SIGHUP sent to `sbx audit` stop the run under way (the
# command gets the signal, as under `sbx run`) and the whole audit at once:
# exit 128+N, no second run after a signal in the first, no verdict, nothing
# left running, and --report says it was interrupted (issue 16: the audit
# used to start its second run and exit 1).
#
# The command logs the profile it runs under ($SBX_PROFILE) to a file, so
# the test sees whether the second run started. The control first: SIGUSR1,
# which is forwarded but does not stop an audit, kills the command of the
# first run and the audit goes on to the second; the same check then
# catches a second run that follows a stop signal.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 45

# qa makes the current directory writable: the log is written there, in
# the build tree when it is ours, else under $TMPDIR.
work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-signals.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-audit-signals.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH

if ! "$SBX" run -- true >/dev/null 2>"$work/sbx-err"; then
    why=$(head -n 1 "$work/sbx-err")
    i=0
    while [ $i -lt 45 ]; do skip "sbx cannot run a sandbox here: $why"; i=$((i + 1)); done
    done_testing
fi

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start_audit WHEN -- ARGS: starts `sbx audit ARGS` in the background with
# the stop signals at their default action (a shell's background job has
# SIGINT ignored, which sbx respects), its output in $work/out; WHEN is the
# profile under which the command waits: qa (the first run) or restrictive
# (the second). Sets $pid and $marker.
start_audit() {
    when=$1
    shift 2
    new_marker "$#"
    : >"$work/log"
    : >"$work/out"
    env --default-signal=INT,TERM,HUP "$SBX" audit "$@" -- sh -c '
        echo "$SBX_PROFILE" >>log
        if [ "$SBX_PROFILE" = "$1" ]; then echo "ready under $1"; exec sleep "$2"; fi' \
        sh "$when" "$marker" </dev/null >"$work/out" 2>&1 &
    pid=$!
}

# stop_audit SIG: sends SIG once the command waits; sets $status and $ms
# (from the signal to the audit's end).
stop_audit() {
    if ! wait_for_text "$work/out" "ready under $when"; then
        kill -KILL $pid
        wait $pid
        status=none ms=0
        diag "the command never became ready: $(cat "$work/out")"
        return
    fi
    # wait_for_text sees the line before sleep has replaced the shell.
    i=0
    while [ $i -lt 40 ] && [ "$(count_marker)" = 0 ]; do sleep 0.05; i=$((i + 1)); done
    t0=$(now_ms)
    kill -"$1" $pid
    wait $pid
    status=$?
    ms=$(($(now_ms) - t0))
}

# The control: the command dies of a forwarded SIGUSR1, and the audit
# starts its second run (so the log check below can fail).
start_audit qa --
stop_audit USR1
like "$(cat "$work/log")" "restrictive" \
    "control: after SIGUSR1 (not a stop signal) the second run starts"
is "$status" 1 "control: and the audit judges the first run failed (exit 1)"

for sig in INT TERM HUP; do
    case $sig in INT) n=2 ;; TERM) n=15 ;; HUP) n=1 ;; esac
    want=$((128 + n))
    start_audit qa -- --report "$work/r.json"
    stop_audit $sig
    is "$status" "$want" "SIG$sig in the first run: exit $want"
    if [ "$ms" -lt 3000 ]; then pass "SIG$sig in the first run: the audit ends at once (${ms} ms)"
    else fail "SIG$sig in the first run: the audit ends at once (${ms} ms)"; fi
    is "$(cat "$work/log")" "qa" "SIG$sig in the first run: the second run never starts"
    is "$(count_marker)" 0 "SIG$sig in the first run: no process is left"
    like "$(cat "$work/out")" \
        "sbx: audit: interrupted by SIG$sig during run 1 of 2 (under qa): no verdict; run 2 (under restrictive) was not started" \
        "SIG$sig in the first run: says it was interrupted"
    unlike "$(cat "$work/out")" "sbx: verdict:" "SIG$sig in the first run: prints no verdict"
    is "$(jq -c '[.verdict, .exit_status, .interrupted.signal, .interrupted.signal_name, .interrupted.during_run, .runs[0].result.signal, (.runs[1] == null)]' "$work/r.json" 2>&1)" \
        "[null,$want,$n,\"SIG$sig\",0,$n,true]" \
        "SIG$sig in the first run: the record says interrupted, no verdict, one run"
done

for sig in INT TERM; do
    case $sig in INT) n=2 ;; TERM) n=15 ;; esac
    want=$((128 + n))
    start_audit restrictive -- --report "$work/r.json"
    stop_audit $sig
    is "$status" "$want" "SIG$sig in the second run: exit $want"
    if [ "$ms" -lt 3000 ]; then pass "SIG$sig in the second run: the audit ends at once (${ms} ms)"
    else fail "SIG$sig in the second run: the audit ends at once (${ms} ms)"; fi
    is "$(count_marker)" 0 "SIG$sig in the second run: no process is left"
    like "$(cat "$work/out")" \
        "sbx: audit: interrupted by SIG$sig during run 2 of 2 (under restrictive): no verdict" \
        "SIG$sig in the second run: says it was interrupted"
    unlike "$(cat "$work/out")" "sbx: verdict:" "SIG$sig in the second run: prints no verdict"
    is "$(jq -c '[.verdict, .exit_status, .interrupted.during_run, .runs[1].result.signal]' "$work/r.json" 2>&1)" \
        "[null,$want,1,$n]" "SIG$sig in the second run: the record says so"
done

# A command that ignores SIGTERM does not hold the audit: the sandbox is
# killed 5 s after the signal (SUPERVISE_GRACE_MS). Without that, it waits
# as long as the command does: shown first with `sbx run`, which waits.
new_marker 9
: >"$work/out"
env --default-signal=TERM "$SBX" run -- sh -c 'trap "" TERM; echo ready; sleep "$1"; echo survived' sh 3 \
    </dev/null >"$work/out" 2>&1 &
pid=$!
wait_for_text "$work/out" ready
kill -TERM $pid
wait $pid
is "$?:$(tail -n 1 "$work/out")" "0:survived" "control: sbx run waits for a command that ignores SIGTERM"
new_marker 8
: >"$work/out"
env --default-signal=TERM "$SBX" audit --report "$work/r.json" -- sh -c 'trap "" TERM; echo ready; sleep "$1"; sleep "$1"' sh "$marker" \
    </dev/null >"$work/out" 2>&1 &
pid=$!
wait_for_text "$work/out" ready
sleep 0.2
t0=$(now_ms)
kill -TERM $pid
wait $pid
status=$? ms=$(($(now_ms) - t0))
is "$status" 143 "a command that ignores SIGTERM: the audit exits 143"
if [ "$ms" -ge 4500 ] && [ "$ms" -lt 9000 ]; then pass "it is killed about 5 s after the signal (${ms} ms)"
else fail "it is killed about 5 s after the signal (${ms} ms)"; diag "$(cat "$work/out")"; fi
like "$(cat "$work/out")" "sbx: the command did not exit 5 s after SIGTERM: killing the sandbox" \
    "and sbx says why"
is "$(count_marker)" 0 "nothing of it is left"
is "$(jq -c '[.exit_status, .interrupted.signal_name, .runs[0].result.signal_name, .runs[0].verdict]' "$work/r.json" 2>&1)" \
    '[143,"SIGTERM","SIGKILL","killed_by_signal"]' "the record says the command was killed, not that sbx failed"

# Ctrl-C at a terminal: the kernel signals the foreground process group,
# sbx and the command alike; sbx does not forward it (the command has its
# own copy) but stops the audit all the same. script(1) provides the
# terminal; SIGINT at its default action, as at a terminal (a suite run in
# the background inherits it ignored, which sbx and the command respect).
if command -v script >/dev/null 2>&1; then
    : >"$work/log"
    : >"$work/pty"
    (
        wait_for_text "$work/pty" "ready under qa"
        sleep 0.2
        printf '\003'
        sleep 1
    ) | env --default-signal=INT,TERM,HUP script -qfec "\"$SBX\" audit -- sh -c 'echo \"\$SBX_PROFILE\" >>log; echo ready under \"\$SBX_PROFILE\"; exec sleep 30'" \
        /dev/null >"$work/pty" 2>&1
    status=$?
    is "$status" 130 "Ctrl-C at a terminal: exit 130"
    like "$(cat "$work/pty")" "interrupted by SIGINT during run 1 of 2" "Ctrl-C at a terminal: interrupted"
    is "$(cat "$work/log")" "qa" "Ctrl-C at a terminal: the second run never starts"
else
    skip "script(1) is not installed"
    skip "script(1) is not installed"
    skip "script(1) is not installed"
fi

# A caller that ignores SIGHUP (nohup) keeps it ignored for the audit and
# the command, as for `sbx run`: the audit goes on.
: >"$work/log"
: >"$work/out"
env --ignore-signal=HUP "$SBX" audit -- sh -c 'echo "$SBX_PROFILE" >>log; echo ready; sleep 1' \
    </dev/null >"$work/out" 2>&1 &
pid=$!
wait_for_text "$work/out" ready
kill -HUP $pid
wait $pid
is "$?:$(cat "$work/log" | tr '\n' ' ')" "0:qa restrictive " "SIGHUP ignored by the caller: the audit completes"

done_testing
