#!/bin/sh
# The seccomp filter and the ledger through `sbx run` itself: the default
# deny-list inside a real sandbox, exact counts with pids as seen inside,
# the summary, --strict, and `sbx audit`'s exit statuses.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 20

probe="$SBX_TEST_HELPERS/seccomp-probe"
storm="$SBX_TEST_HELPERS/bind-storm"

if ! "$SBX" run -- true >/dev/null 2>"${TMPDIR:-/tmp}/sbx-seccomp-sbx.$$"; then
    why=$(head -n1 "${TMPDIR:-/tmp}/sbx-seccomp-sbx.$$")
    rm -f "${TMPDIR:-/tmp}/sbx-seccomp-sbx.$$"
    i=0
    while [ $i -lt 20 ]; do skip "sbx cannot run a sandbox here: $why"; i=$((i + 1)); done
    done_testing
fi
rm -f "${TMPDIR:-/tmp}/sbx-seccomp-sbx.$$"

run_sbx run -- "$probe" tiocsti keyctl bpf socket-inet
is "$out" "tiocsti=EPERM
keyctl=EPERM
bpf=EPERM
socket-inet=ok" "default profile: TIOCSTI, keyctl and bpf fail with EPERM, sockets work"
is "$err" "" "no denial summary: the default list is not a deny rule"

run_sbx run -p deny-network -- "$storm" 2 4 125
is "$status" 0 "deny-network: bind-storm exits 0"
is "$out" "eperm=1000 other=0 success=0" "deny-network: the command saw exactly 1000 EPERMs"
like "$err" 'sbx: 1000 operations denied: bind(AF_INET 127.0.0.1:0) x1000 -> EPERM [pid ' "the ledger counted exactly 1000"
like "$err" 'sbx: the command exited 0 after denials: this green does not prove network code works' "the false-green line"
# PID 1 is init inside; the command and its child come next.
# (in the order they were first denied, which the scheduler decides)
n=$(printf '%s\n' "$err" | grep -o 'pid [23] "bind-storm"' | sort -u | wc -l)
is "$n" 2 "pids as seen inside the sandbox: 2 and 3"

record=$(mktemp "${TMPDIR:-/tmp}/sbx-run-report.XXXXXX")
run_sbx run -p deny-network --report "$record" -- "$storm" 1 2 5
is "$(jq -c '[.denials.total, .denials.denials[0].syscall, .denials.denials[0].family, .denials.denials[0].address, .denials.denials[0].errno, .denials.denials[0].count, .denials.denials[0].processes[0].pid]' "$record")" \
   '[10,"bind","AF_INET","127.0.0.1:0","EPERM",10,2]' "run --report: the ledger in the run record"
is "$(jq -r .verdict "$record")" "false_green_suspected" "run --report: exit 0 after denials is a suspected false green"
rm -f "$record"

run_sbx run -p deny-network --strict -- "$storm" 1 1 1
is "$status" 3 "--strict: exit 0 after denials is 3"
run_sbx run -p deny-network --strict -- sh -c "\"$storm\" 1 1 1; exit 5"
is "$status" 5 "--strict: a failing command keeps its status"
run_sbx run -p deny-network --strict -- "$probe" socket-unix
is "$status" 0 "--strict: exit 0 without denials stays 0"
run_sbx run -p default --strict -- "$storm" 1 1 1
is "$out" "eperm=0 other=0 success=1" "default profile: bind(127.0.0.1:0) works on the sandbox's loopback"

run_sbx run -q -p deny-network -- "$storm" 1 1 1
is "$err" "" "-q: no summary"

report=$(mktemp "${TMPDIR:-/tmp}/sbx-audit-report.XXXXXX")
run_sbx audit --report "$report" -- "$storm" 1 1 1
is "$status" 3 "audit: a command that ignores its EPERMs is a false green (3)"
like "$err" "sbx: verdict: FALSE GREEN suspected" "audit says so"
is "$(jq -r '.verdict' "$report")" "false-green" "audit --report: the verdict"
is "$(jq -r '[.runs[0].denials.total, .runs[1].denials.total, .runs[1].denials.denials[0].address] | join(" ")' "$report")" \
   "0 1 127.0.0.1:0" "audit --report: each run's ledger"
rm -f "$report"
run_sbx audit -- sh -c "out=\$(\"$storm\" 1 1 1); test \"\$out\" = 'eperm=0 other=0 success=1'"
is "$status" 0 "audit: a command that fails on EPERM is trustworthy (0)"
run_sbx audit -- false
is "$status" 1 "audit: a command failing under qa gives 1"
done_testing
