#!/bin/sh
# An i386 process on x86_64 can reach bind through socketcall(2), whose
# arguments BPF cannot see. The deny rule must hold there too, and the
# ledger must name the real call.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 5

case $(uname -m) in
x86_64) ;;
*)
    for i in 1 2 3 4 5; do skip "i386 entry points exist on x86_64 only (this is $(uname -m))"; done
    done_testing ;;
esac
make_tmpdir
cc=${CC:-cc}
if ! $cc -m32 -o "$tmpdir/socketcall32" "$SBX_TOP_SRCDIR/tests/helpers/socketcall32.c" 2>"$tmpdir/cc.err"; then
    diag "$(cat "$tmpdir/cc.err")"
    for i in 1 2 3 4 5; do skip "cannot build an i386 binary with '$cc -m32' (apt-get install gcc-multilib)"; done
    done_testing
fi
if ! "$tmpdir/socketcall32" >/dev/null 2>&1; then
    for i in 1 2 3 4 5; do skip "the kernel does not run i386 binaries (CONFIG_IA32_EMULATION off or ia32_emulation=0)"; done
    done_testing
fi

# deny rules alone (--seccomp none): the default list denies i386
# socketcall(SYS_SOCKET) whole on a host with vsock (seccomp_packet.h)
run="$SBX_TEST_HELPERS/seccomp-run"
run_cmd "$run" --seccomp none -- "$tmpdir/socketcall32"
is "$out" "socketcall-socket=ok
socketcall-bind=ok
direct-bind=EINVAL" "without a rule socketcall(SYS_BIND) binds (the second bind: EINVAL)"

run_cmd "$run" --seccomp none --deny 'bind:inet EPERM' -- "$tmpdir/socketcall32"
is "$out" "socketcall-socket=ok
socketcall-bind=EPERM
direct-bind=EPERM" "bind:inet holds for socketcall(SYS_BIND) and the direct i386 bind"
like "$err" 'sbx: 2 operations denied: bind(AF_INET 127.0.0.1:0) x2 -> EPERM' "the ledger reads socketcall's arguments and names bind"

run_cmd "$run" --seccomp none --deny 'socket:inet EACCES' -- "$tmpdir/socketcall32"
is "$out" "socketcall-socket=EACCES" "socket:inet holds for socketcall(SYS_SOCKET)"

run_cmd "$run" --seccomp none --deny 'socketcall EPERM' -- "$tmpdir/socketcall32"
is "$out" "socketcall-socket=EPERM" "a rule naming socketcall itself denies the multiplexer"
done_testing
