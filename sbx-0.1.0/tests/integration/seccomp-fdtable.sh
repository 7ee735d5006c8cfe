#!/bin/sh
# Issue 14, item 10: the ledger judges the fd table and the address the
# kernel will act on.
#
# A thread that ran unshare(CLONE_FILES) has a table of its own. The ledger
# used to duplicate the fd from the thread-group leader's table (pidfd_open
# takes a process): fd 9 there was an AF_UNIX socket, so the thread's
# bind() and listen() on its own AF_INET socket at 9 passed deny-network
# unseen (bind=ok listen=ok, nothing in the ledger). It now reads the
# calling thread's table (pidfd_open(tid, PIDFD_THREAD)).
#
# The kernel re-reads the fd number after the supervisor's answer
# (SECCOMP_USER_NOTIF_FLAG_CONTINUE): another thread swapping the socket
# at that number with dup2 in between wins. The address is now judged too,
# which closes the swap for bind(); a call without an address (listen)
# stays open, as docs/seccomp.md says: only `deny = socket:FAMILY` rules,
# decided in BPF from a register, cannot be raced.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 14
make_tmpdir
R="$H/ledger-race"

cat >"$tmpdir/bind-unix.ini" <<'INI'
[profile]
include = default
[security]
deny = bind:unix EPERM
INI

run_cmd "$R" unshare-files
is "$out" "bind=ok
listen=ok" "outside sbx the thread with its own fd table binds and listens on AF_INET"

run_sbx run -p deny-network -- "$R" unshare-files
is "$out" "bind=EPERM
listen=EPERM" "deny-network: that thread's bind and listen are denied"
like "$err" "bind(AF_INET 127.0.0.1:0) x1 -> EPERM" "the bind is in the ledger"
# listen() has no address: AF_INET can only have come from the thread's table
like "$err" "listen(AF_INET) x1 -> EPERM" "the listen is in the ledger as AF_INET, read from the thread's own table"

# Before Linux 6.9 (no PIDFD_THREAD) only the leader's table can be read:
# kcmp(KCMP_FILE) then tells a thread's own table apart, and the call is
# denied with its family unknown. SBX_TEST_NO_PIDFD_THREAD=1 makes sbx take
# that path on this kernel.
run_cmd env SBX_TEST_NO_PIDFD_THREAD=1 "$SBX" run -p deny-network -- "$R" unshare-files
is "$out" "bind=EPERM
listen=EPERM" "without PIDFD_THREAD: the thread with its own table is still denied"
like "$err" "listen(?) x1 -> EPERM" "without PIDFD_THREAD: its listen is denied, its family unknown (fail closed)"
# ...while threads that share the leader's table keep working: bind:unix
# lets their AF_INET binds through, the family read from the leader's table.
run_cmd env SBX_TEST_NO_PIDFD_THREAD=1 "$SBX" run -p "$tmpdir/bind-unix.ini" -- "$H/bind-storm" 1 3 10
is "$out" "eperm=0 other=0 success=30" "without PIDFD_THREAD: threads sharing the table are judged by their socket's family"
is "$err" "" "nothing denied"

# dup2 race, fd only: listen() on fd 9 while another thread flips 9
# between an AF_UNIX and an AF_INET socket.
run_sbx run -p deny-network -- "$R" dup2-race 5000
wins=$(printf '%s\n' "$out" | sed -n 's/^wins=//p')
[ "${wins:-0}" -gt 0 ]
ok $? "deny-network: the dup2 race on listen() wins ($wins of 5000 tries; the limit docs/seccomp.md states)"

# The same race on bind(): the AF_INET address is denied whichever socket
# the supervisor saw.
run_sbx run -p deny-network -- "$R" dup2-bind 5000
is "$(printf '%s\n' "$out" | sed -n 's/^wins=//p')" 0 "deny-network: the dup2 race on bind() never wins (the address is judged too)"
# (a row per socket family the supervisor saw: the ledger prints both
# families when the socket's is not the address's)
n=$(printf '%s\n' "$err" | grep '^sbx: 5000 operations denied: \|^sbx:   ' |
    sed -n 's/.*bind(\(AF_INET\|AF_UNIX socket, AF_INET address\) 127\.0\.0\.1:0) x\([0-9]*\) -> EPERM.*/\2/p' |
    awk '{ n += $1 } END { print n + 0 }')
is "$n" 5000 "all 5000 binds denied and counted, on whichever socket the supervisor saw"

# The guarantee: with socket() denied for the families, BPF decides from a
# register, and the same race finds no inet socket to swap in.
cat >"$tmpdir/no-inet.ini" <<'INI'
[profile]
include = deny-network
[security]
deny = socket:inet,inet6 EPERM
INI
run_sbx run -p "$tmpdir/no-inet.ini" -- "$R" dup2-race 5000
is "$out" "inet-sockets=0
wins=0" "deny = socket:inet,inet6: no inet socket in 10000 socket() calls, no inet listen"
like "$err" "socket(AF_INET6) x5000 -> EPERM" "the AF_INET6 socket() calls are counted"
like "$err" "socket(AF_INET) x5000 -> EPERM" "the AF_INET socket() calls are counted"
done_testing
