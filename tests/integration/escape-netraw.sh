#!/bin/sh
# Raw, ping and packet sockets (issue 17). A command that is uid 0 in the
# sandbox's own network namespace keeps CAP_NET_RAW, which the kernel
# checks against the namespace's owner (caps.c): raw IP sockets work, as
# for root on a host, and see only the sandbox's traffic. ICMP datagram
# ("ping") sockets work for the command's gid (ping_group_range, net.c).
# What else the cap opens, AF_PACKET and AF_XDP, is denied by seccomp,
# also in a nested user + network namespace, where it works without sbx.
# In the host's network namespace the cap is not kept.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
N="$H/net-raw"
tmpdir=$(mktemp -d "$PWD/escape-netraw.XXXXXX")
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmpdir"' EXIT

# nested_outside SOCKET-ARGS: the attack without sbx: the socket from a user
# + network namespace of the helper's own. Prints the helper's lines.
nested_outside() { run_cmd "$N" --nested socket "$@"; }

# The i386 multiplexer (seccomp_packet.h), when this machine runs i386.
socketcall32=
if [ "$(uname -m)" = x86_64 ] &&
    ${CC:-cc} -m32 -o "$tmpdir/socketcall32" "$SBX_TOP_SRCDIR/tests/helpers/socketcall32.c" 2>/dev/null &&
    "$tmpdir/socketcall32" >/dev/null 2>&1; then
    socketcall32="$tmpdir/socketcall32"
fi
# vsock has no network namespace: where the host has a transport (a VM),
# a socket of the sandbox's would reach the hypervisor and the host's ports.
vsock_try='import socket
try:
    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print("vsock: ok")
except OSError as e:
    print("vsock: " + (__import__("errno").errorcode.get(e.errno, str(e.errno))))'
host_vsock=$(/usr/bin/python3 -c "$vsock_try" 2>&1)
check_vsock() {
    if [ "$host_vsock" = "vsock: ok" ]; then
        pass "outside, an AF_VSOCK socket can be made (this host has a vsock transport)"
        sbx_run -- /usr/bin/python3 -c "$vsock_try"
        is "$out" "vsock: EPERM" "inside, AF_VSOCK sockets are refused: vsock is not namespaced"
    else
        skip "this host has no vsock transport ($host_vsock): nothing to refuse"
        skip "no vsock transport"
    fi
}

if is_root; then
    plan 26
    check_vsock
    # --- raw and ping sockets in the sandbox's own namespace -----------------
    run_cmd "$N" raw-ping 127.0.0.1
    is "$out" "raw-ping 127.0.0.1: ok" "outside, root's raw ICMP socket pings 127.0.0.1"
    sbx_run -v -- "$N" raw-ping 127.0.0.1
    is "$out" "raw-ping 127.0.0.1: ok" "inside, uid 0 pings 127.0.0.1 through a raw socket"
    like "$err" "capabilities: cap_net_raw kept: the command is uid 0 in a network namespace of the sandbox's own" \
        "-v says why cap_net_raw is kept"
    sbx_run -- "$N" socket inet6 raw icmpv6
    is "$out" "socket inet6 raw icmpv6: ok" "inside, a raw IPv6 socket"
    sbx_run -- "$N" ping 127.0.0.1
    is "$out" "ping 127.0.0.1: ok" "inside, an ICMP datagram (ping) socket pings 127.0.0.1"
    sbx_run -- cat /proc/sys/net/ipv4/ping_group_range
    is "$out" "0	0" "inside, ping_group_range names the command's gid (0)"
    sbx_run -- sh -c 'grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status | tr -s "\t" " "'
    is "$out" "CapPrm: 0000000000002000
CapEff: 0000000000002000
CapBnd: 0000000000002000
CapAmb: 0000000000002000" "inside, cap_net_raw is the only capability, in every set"

    # --- a raw socket inside sees the sandbox's traffic, not the host's ------
    # Outside, a sniffer sees the host's datagrams (the test can fail);
    # inside, at the same time, one sees its own and none of the host's.
    host_mark="sbxhost$$" own_mark="sbxown$$"
    "$SBX" run -- sh -c "\"$N\" sniff 3 $host_mark $own_mark & sleep 0.5; \"$N\" send-udp 127.0.0.1 9 $own_mark 5 >/dev/null; wait" \
        </dev/null >"$tmpdir/inside.sniff" 2>&1 &
    pids="$pids $!"
    inside=$!
    wait_for_text "$tmpdir/inside.sniff" listening || diag "inside: $(cat "$tmpdir/inside.sniff")"
    "$N" sniff 2 "$host_mark" >"$tmpdir/host.sniff" 2>&1 &
    pids="$pids $!"
    host_sniffer=$!
    wait_for_text "$tmpdir/host.sniff" listening || diag "outside: $(cat "$tmpdir/host.sniff")"
    "$N" send-udp 127.0.0.1 9 "$host_mark" 20 >/dev/null
    wait $inside
    wait $host_sniffer
    like "$(cat "$tmpdir/host.sniff")" "seen $host_mark 20" "outside, a raw socket sees the host's 20 datagrams"
    like "$(cat "$tmpdir/inside.sniff")" "seen $own_mark 5" "inside, a raw socket sees the sandbox's own 5 datagrams"
    like "$(cat "$tmpdir/inside.sniff")" "seen $host_mark 0" "inside, it sees none of the host's"

    # --- AF_PACKET, AF_XDP, (AF_INET, SOCK_PACKET): work without sbx, denied inside
    # (A root caller's command cannot map its uid 0 into a nested user
    # namespace without CAP_SETFCAP, Linux 5.12: the nested way is the
    # other callers', tested below.)
    for s in "packet raw 0" "inet packet 0" "xdp raw 0"; do
        nested_outside $s
        case $out in
        *"socket $s: ok"*)
            pass "outside, a nested user+net namespace opens socket($s) (the attack works)"
            sbx_run -- "$N" socket $s
            is "$out" "socket $s: EPERM" "inside, with cap_net_raw, socket($s): EPERM (seccomp)" ;;
        *)
            if [ "$s" = "xdp raw 0" ] && [ "$out" = "nested: ok
socket $s: EAFNOSUPPORT" ]; then
                skip "this kernel has no AF_XDP (CONFIG_XDP_SOCKETS)"
                skip "no AF_XDP"
            else
                fail "outside, a nested namespace opens socket($s)"; diag "$out $err"
                fail "socket($s) inside: not tried"
            fi ;;
        esac
    done
    if [ -n "$socketcall32" ]; then
        run_cmd "$socketcall32"
        like "$out" "socketcall-socket=ok" "outside, i386 socketcall(SYS_SOCKET) makes a socket"
        sbx_run -- "$socketcall32"
        is "$out" "socketcall-socket=EPERM" "inside, with cap_net_raw, i386 socketcall(SYS_SOCKET) goes whole: EPERM"
    else
        skip "no i386 binary: cc -m32 (gcc-multilib) or ia32 emulation missing"
        skip "no i386 binary"
    fi

    # --- no cap_net_raw in the host's namespace or without the guard ---------
    make_profile() { { printf '[profile]\ninclude = default\n'; cat; } >"$tmpdir/$1.ini"; }
    printf '[network]\nmode = host\n' | make_profile hostnet
    sbx_run -v -p "$tmpdir/hostnet.ini" -- "$N" raw-ping 127.0.0.1
    is "$out" "raw-ping 127.0.0.1: EPERM" "mode = host: the command has no cap_net_raw (the host's namespace)"
    like "$err" "no cap_net_raw: the command shares the host's network namespace" "-v says why"
    printf '[security]\nseccomp = none\n' | make_profile noseccomp
    sbx_run -v -p "$tmpdir/noseccomp.ini" -- "$N" raw-ping 127.0.0.1
    is "$out" "raw-ping 127.0.0.1: EPERM" "seccomp = none: no cap_net_raw (nothing would deny AF_PACKET)"
    like "$err" "no cap_net_raw: seccomp = none would leave AF_PACKET sockets open" "-v says why"
    printf '[security]\nnet_raw = no\n' | make_profile nonetraw
    sbx_run -v -p "$tmpdir/nonetraw.ini" -- "$N" raw-ping 127.0.0.1
    is "$out" "raw-ping 127.0.0.1: EPERM" "net_raw = no: no cap_net_raw (as Codex and srt give root)"
    like "$err" "no cap_net_raw: the profile says net_raw = no" "-v says why"
else
    plan 13
    check_vsock
    # --- a non-root command: what it has on a host, plus ping sockets ---------
    run_cmd "$N" raw-ping 127.0.0.1
    is "$out" "raw-ping 127.0.0.1: EPERM" "outside, uid $(id -u) has no raw socket"
    sbx_run -v -- "$N" raw-ping 127.0.0.1
    is "$out" "raw-ping 127.0.0.1: EPERM" "inside, neither: cap_net_raw is for a command that is uid 0"
    unlike "$err" "cap_net_raw kept" "-v does not claim it"
    sbx_run -- "$N" ping 127.0.0.1
    is "$out" "ping 127.0.0.1: ok" "inside, an ICMP datagram (ping) socket pings 127.0.0.1"
    # (ping_group_range itself cannot tell: the kernel's "1 0" of a new
    # namespace shows as overflow gids here, like the command's own gid.)
    sbx_run -- "$N" socket inet6 dgram icmpv6
    is "$out" "socket inet6 dgram icmpv6: ok" "inside, an IPv6 ping socket too (one ping_group_range for both)"
    sbx_run -- sh -c 'grep -E "^CapEff" /proc/self/status | tr -s "\t" " "'
    is "$out" "CapEff: 0000000000000000" "inside, no capability"
    for s in "packet raw 0" "inet packet 0"; do
        nested_outside $s
        if [ "$out" = "nested: ok
socket $s: ok" ]; then
            pass "outside, a nested user+net namespace opens socket($s) (the attack works)"
            sbx_run -- "$N" --nested socket $s
            is "$out" "nested: ok
socket $s: EPERM" "inside, from a nested user+net namespace: EPERM (seccomp)"
        else
            skip "unprivileged user namespaces are refused here: $out"
            skip "no nested namespace"
        fi
    done
    if [ -n "$socketcall32" ]; then
        sbx_run -- "$socketcall32"
        if [ "$host_vsock" = "vsock: ok" ]; then
            is "$out" "socketcall-socket=EPERM" "inside, on a host with vsock, i386 socketcall(SYS_SOCKET) goes whole (its family is out of BPF's sight)"
        else
            like "$out" "socketcall-socket=ok" "inside, without cap_net_raw or vsock, i386 socketcall(SYS_SOCKET) works"
        fi
    else
        skip "no i386 binary: cc -m32 (gcc-multilib) or ia32 emulation missing"
    fi
fi
done_testing
