#!/bin/sh
# Issue 14, item 8 (io_uring): the kernel runs io_uring operations without
# passing the seccomp filter, so IORING_OP_CONNECT gets past a deny rule
# on connect with nothing in the ledger. The default filter denies
# io_uring_setup (EPERM); `[security] io_uring = yes` allows it back, and
# is refused together with deny rules. Runs as root and unprivileged.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 14

make_tmpdir
cp "$H/io-uring-probe" "$tmpdir/"
P=$tmpdir/io-uring-probe
printf '[profile]\ninclude = qa\n[security]\nio_uring = yes\n' >"$tmpdir/uring.ini"
printf '[profile]\ninclude = qa\n[security]\ndeny = connect:inet,inet6 EPERM\n' >"$tmpdir/deny-connect.ini"
printf '[profile]\ninclude = restrictive\n[security]\nio_uring = yes\n' >"$tmpdir/restrictive-uring.ini"
printf '[profile]\ninclude = deny-connect.ini\n[security]\nseccomp = none\n' >"$tmpdir/none-deny.ini"
printf '[profile]\ninclude = qa\n[security]\nseccomp = none\n' >"$tmpdir/none.ini"
cd "$tmpdir" || exit 1

# --- the bypass, without sbx ----------------------------------------------
# A seccomp filter that denies connect(2) (tests/helpers/deny-syscalls):
# the io_uring connect still reaches the listener.
run_cmd "$H/deny-syscalls" EPERM connect -- "$P" connect
is "$out" "connect=EPERM
uring-connect=ok
accepted=1" "a filter denying connect does not see IORING_OP_CONNECT (the bypass works)"

# --- under sbx --------------------------------------------------------------
run_sbx run -p qa -- "$P" setup
is "$out" "io_uring_setup=EPERM" "qa: io_uring_setup fails with EPERM"
run_sbx run -p qa -- "$P" connect
is "$out" "connect=ok
uring-connect=setup-EPERM
accepted=1" "qa: connect(2) works, the io_uring path is closed at setup"

run_sbx run -p uring.ini -- "$P" setup
is "$out" "io_uring_setup=ok" "io_uring = yes: io_uring_setup works"
run_sbx run -p uring.ini -- "$P" connect
is "$out" "connect=ok
uring-connect=ok
accepted=2" "io_uring = yes: an IORING_OP_CONNECT connects"

run_sbx run -p deny-connect.ini -- "$P" connect
is "$out" "connect=EPERM
uring-connect=setup-EPERM
accepted=0" "deny = connect:inet: neither connect(2) nor io_uring reaches the listener"
like "$err" "sbx: 1 operation denied: connect(AF_INET 127.0.0.1:" "and the one denial is in the ledger"

run_sbx run -p restrictive -- "$P" setup
is "$out" "io_uring_setup=EPERM" "restrictive: io_uring_setup fails with EPERM"

run_sbx run -p restrictive-uring.ini -- true
is "$status" 125 "io_uring = yes with deny rules is refused (exit 125)"
like "$err" "restrictive-uring.ini:4: io_uring = yes contradicts the deny rules (" \
    "the refusal names the io_uring line"
like "$err" "deny = bind:inet,inet6 EPERM): io_uring operations bypass them; drop io_uring = yes, or the deny rules" \
    "and a deny rule, and the fix"

run_sbx run -p none-deny.ini -- "$P" setup
is "$out" "io_uring_setup=EPERM" "seccomp = none with deny rules: io_uring is still denied (the ledger would miss it)"
run_sbx run -p none.ini -- "$P" setup
is "$out" "io_uring_setup=ok" "seccomp = none, no deny rule: nothing denies it"

run_sbx run -p uring.ini --report "$tmpdir/run.json" -- true
run_cmd python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["security"]["io_uring"])' "$tmpdir/run.json"
is "$out" "True" "the run record says io_uring = yes"
done_testing
