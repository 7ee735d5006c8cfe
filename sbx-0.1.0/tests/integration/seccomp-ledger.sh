#!/bin/sh
# Deny rules through seccomp user notification: the command sees the
# errno, the supervisor's ledger counts every call exactly, other families
# pass, and the summary has SPEC's form.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 25

run="$SBX_TEST_HELPERS/seccomp-run"
storm="$SBX_TEST_HELPERS/bind-storm"
probe="$SBX_TEST_HELPERS/seccomp-probe"

# 2 processes x 4 threads x 125 calls = exactly 1000 denied binds.
run_cmd "$run" --deny 'bind:inet,inet6 EPERM' -- "$storm" 2 4 125
is "$status" 0 "bind-storm exits 0"
is "$out" "eperm=1000 other=0 success=0" "the command saw 1000 EPERMs and nothing else"
like "$err" "sbx: 1000 operations denied: bind(AF_INET 127.0.0.1:0) x1000 -> EPERM [pid " "the ledger counted exactly 1000 binds"
n=$(printf '%s\n' "$err" | grep -o 'pid [0-9]* "bind-storm"' | sort -u | wc -l)
is "$n" 2 "both processes are named in the summary"
like "$err" "sbx: the command exited 0 after denials: this green does not prove network code works" "false-green line after exit 0"

# Without rules the same program binds (the EPERMs above are the rule's).
run_cmd "$run" -- "$storm" 1 1 1
is "$out" "eperm=0 other=0 success=1" "without a deny rule bind(127.0.0.1:0) succeeds"
is "$err" "" "no summary when nothing was denied"

# A family the rule does not name passes, decided in the supervisor.
run_cmd "$run" --deny 'bind:unix EPERM' -- "$storm" 1 2 10
is "$out" "eperm=0 other=0 success=20" "bind:unix does not deny AF_INET binds"
is "$err" "" "allowed calls are not counted"

# socket() families are filtered in BPF already.
run_cmd "$run" --deny 'socket:inet EACCES' -- "$probe" socket-inet socket-unix
is "$out" "socket-inet=EACCES
socket-unix=ok" "socket:inet EACCES denies AF_INET only, with the rule's errno"
like "$err" 'sbx: 1 operation denied: socket(AF_INET) x1 -> EACCES [pid ' "socket denial in the ledger"

# listen() carries no address: the supervisor learns the family from the
# socket itself (pidfd_getfd + SO_DOMAIN), or AF_UNIX would be denied too.
run_cmd "$run" --deny 'listen:inet,inet6 EPERM' -- "$probe" listen-inet listen-unix
# (an unbound AF_UNIX socket cannot listen: EINVAL is the kernel's answer,
# reached only because the supervisor let the call through)
is "$out" "listen-inet=EPERM
listen-unix=EINVAL" "listen:inet denies AF_INET and lets AF_UNIX through to the kernel, from any thread"
like "$err" 'sbx: 1 operation denied: listen(AF_INET) x1 -> EPERM' "the family of an address-less call is read from the socket"

# A call whose memory cannot be read is still answered: the socket gives
# the family; with neither socket nor address the rule errs toward denial.
run_cmd "$run" -- "$probe" bind-badptr bind-badfd
is "$out" "bind-badptr=EFAULT
bind-badfd=EBADF" "without a rule the kernel answers EFAULT / EBADF"
run_cmd timeout 20 "$run" --deny 'bind:inet EPERM' -- "$probe" bind-badptr bind-badfd
is "$out" "bind-badptr=EPERM
bind-badfd=EPERM" "bind:inet answers unreadable calls with EPERM, nothing hangs"
like "$err" "sbx: 2 operations denied: " "both are counted"

# --strict: exit 3 only for exit 0 after denials.
run_cmd "$run" --strict --deny 'bind:inet EPERM' -- "$storm" 1 1 3
is "$status" 3 "--strict: exit 0 after denials becomes 3"
run_cmd "$run" --strict --deny 'bind:inet EPERM' -- sh -c "\"$storm\" 1 1 1; exit 7"
is "$status" 7 "--strict keeps a failing command's own status"
run_cmd "$run" --strict --deny 'bind:unix EPERM' -- "$storm" 1 1 1
is "$status" 0 "--strict: exit 0 without denials stays 0"

# Denying sendmsg must not deadlock the listener's own handoff (sendmsg).
run_cmd timeout 20 "$run" --deny 'sendmsg EPERM' --deny 'bind:inet EPERM' -- "$storm" 1 1 1
is "$out" "eperm=1 other=0 success=0" "a sendmsg deny rule does not block the listener handoff"

# ...and that exemption is the handoff call only: the command's own
# sendmsg on whatever fd number the handoff socket had is still denied.
run_cmd "$run" --deny 'sendmsg:inet EPERM' -- "$probe" sendmsg-fds
is "$out" "sendmsg-fds=EPERM,EPERM,EPERM,EPERM,EPERM,EPERM" "sendmsg on fds 3..8 denied, the handoff's old number included"
like "$err" "sbx: 6 operations denied: sendmsg(AF_INET 127.0.0.1:9) x6 -> EPERM" "all six counted, with the address from the msghdr"

# A second listener in the same process tree is refused by the kernel
# (EBUSY): sbx says why instead of a bare errno, and never runs unfiltered.
run_cmd "$run" --deny 'bind EPERM' -- "$run" --deny 'bind EPERM' -- "$storm" 1 1 1
is "$status" 125 "nested deny rules: the inner command does not run (125)"
like "$err" "an outer seccomp filter already has a notification listener" "nested deny rules: the diagnosis names the cause"

# Denials inside a child that outlives nothing: all counted before exit.
run_cmd "$run" --deny 'bind:inet EPERM' -- sh -c "\"$storm\" 1 1 5; \"$storm\" 1 1 7"
like "$err" "sbx: 12 operations denied: bind(AF_INET 127.0.0.1:0) x12" "denials of successive children add up"
done_testing
