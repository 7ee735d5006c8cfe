#!/bin/sh
# Escape suite, processes and descriptors (issue 7): see or signal a host
# process by PID, ptrace it, reach the sandbox's init (kill it, read its
# descriptors), find a descriptor the caller leaked to sbx. Each asserts
# the errno. Runs as root and as an unprivileged user.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 14
P="$H/escape-probe"
tmpdir=$(mktemp -d "$PWD/escape-proc.XXXXXX")
trap 'kill $host_pid 2>/dev/null; rm -rf "$tmpdir"' EXIT

# A host process of the caller's own uid: the easiest one to reach.
new_marker 7
sleep $marker &
host_pid=$!

run_cmd "$P" kill $host_pid 0
is "$out" "kill $host_pid: ok" "outside, the host process can be signalled (the test can fail)"
sbx_run -- sh -c "\"$P\" kill $host_pid 0; \"$P\" kill $host_pid 9; \"$P\" ptrace $host_pid; test -e /proc/$host_pid && echo visible"
is "$(echo $out)" "kill $host_pid: ESRCH kill $host_pid: ESRCH ptrace-attach $host_pid: ESRCH ptrace-seize $host_pid: ESRCH" \
    "inside, the host PID does not exist: kill and ptrace fail with ESRCH, /proc has no entry"
kill -0 $host_pid; ok $? "the host process is still alive"

# pid = no: the PID is visible (documented), but the command holds no
# capability in the host's user namespace: ptrace is EPERM.
profile nopid <<INI
[namespaces]
pid = no
INI
sbx_run -p "$prof" -- "$P" ptrace $host_pid
is "$(echo $out)" "ptrace-attach $host_pid: EPERM ptrace-seize $host_pid: EPERM" \
    "pid = no: ptrace of a host process of the same uid: EPERM (user namespace)"

# --- the sandbox's init ------------------------------------------------------
# PID 1 of the namespace ignores SIGKILL and SIGSTOP from inside; SIGTERM
# and the other forwarded signals come back to the command, not init.
sbx_run -- sh -c "\"$P\" kill 1 9; \"$P\" kill 1 19; sleep 0.2; \"$P\" kill 1 0; echo alive"
is "$(echo $out)" "kill 1: ok kill 1: ok kill 1: ok alive" "SIGKILL and SIGSTOP to init from inside are delivered to nobody"
is "$status" 0 "and the run ends normally with the command's status"
sbx_run -- sh -c "\"$P\" read /proc/1/fd/0; \"$P\" read /proc/1/environ; \"$P\" ptrace 1"
like "$out" "read /proc/1/fd/0: EACCES" "init's descriptors cannot be opened from inside: EACCES"
like "$out" "read /proc/1/environ: EACCES" "nor its memory read (environ)"
like "$out" "ptrace-attach 1: EPERM" "nor can it be traced (it holds capabilities the command lacks)"

# --- descriptors the caller leaked -----------------------------------------------
echo leaked-secret >"$tmpdir/secret"
run_cmd sh -c "exec 7<'$tmpdir/secret'; exec 9<'$tmpdir/secret'; \"$P\" fd 7"
is "$out" "fd 7: ok: leaked-secret" "outside, fd 7 is readable by a child (the test can fail)"
run_cmd sh -c "exec 7<'$tmpdir/secret'; exec 9<'$tmpdir/secret'; \"$SBX\" run --hide '$tmpdir/secret' -- sh -c '\"\$0\" fd 7; \"\$0\" fd 9; ls /proc/self/fd | tr \"\\n\" \" \"' \"$P\""
like "$out" "fd 7: EBADF" "inside, the caller's fd 7 is closed: EBADF"
like "$out" "fd 9: EBADF" "and fd 9"
unlike "$out" "leaked-secret" "the hidden file's content never reaches the command"
# init itself keeps nothing the caller leaked: only 0 1 2, the channel and
# its signalfd.
exec 7<"$tmpdir/secret"
"$SBX" run -- sleep 1 </dev/null >/dev/null 2>&1 &
sup=$!
exec 7<&-
sleep 0.4
init_pid=$(pgrep -P $sup | head -1)
fds=$(ls -l /proc/$init_pid/fd 2>/dev/null | grep -c "$tmpdir/secret")
wait $sup
is "$fds" 0 "the sandbox's init does not hold the caller's leaked descriptor"

done_testing
