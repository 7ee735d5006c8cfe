#!/bin/sh
# Run by landlock-net.sh inside network, mount and PID namespaces of its
# own (unprivileged: and a user namespace), in egress-world.sh's world
# (egress-net.sh): "the host" whose only route leads to a server namespace
# the test owns, so no packet reaches another machine. sbx runs under
# deny-userns, which refuses it a user namespace as Docker's default
# seccomp profile does: the Landlock tier, sharing this world's network.
#
# Added to the world: a UDP server on 198.18.0.1:9053 ("the internet")
# that logs every datagram it receives, and ping sockets for every group
# (net.ipv4.ping_group_range of this network namespace).
#
# Writes NAME=OUTPUT lines to $1. $SBX_AS runs sbx as the outer test's
# uid; $NOUSERNS is the deny-userns helper.
set -u
results=$1
T=$SBX_TOP_SRCDIR/tests/integration
PY=/usr/bin/python3
w=$(mktemp -d "${TMPDIR:-/tmp}/sbx-landlock-net.XXXXXX")
chmod 755 "$w"
record() { name=$1; shift; printf '%s=%s\n' "$name" "$("$@" 2>&1 | tr '\n' ' ')" >>"$results"; }

. "$T/egress-net.sh"
sysctl -q -w net.ipv4.ping_group_range="0 2147483647" 2>/dev/null ||
    echo 0 0 >/proc/sys/net/ipv4/ping_group_range
: >"$w/udp.log"
chmod 666 "$w/udp.log"
ns $PY -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("198.18.0.1", 9053))
open(sys.argv[1] + ".ready", "w").close()
while True:
    d, a = s.recvfrom(2048)
    with open(sys.argv[1], "a") as f:
        f.write(d.decode(errors="replace") + "\n")
' "$w/udp.log" &
i=0; while [ ! -e "$w/udp.log.ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done

cat >"$w/net.py" <<'PY'
import ctypes, errno, socket, struct, sys, threading
op, args = sys.argv[1], sys.argv[2:]
def err(e): return errno.errorcode.get(e.errno, str(e.errno))
far = ("198.18.0.1", 9053)
try:
    if op == "sendto":            # sendto TEXT: one datagram to "the internet"
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(args[0].encode(), far); print("sent")
    elif op == "sendmsg":
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendmsg([args[0].encode()], [], 0, far); print("sent")
    elif op == "sendmmsg":        # through libc, two messages
        libc = ctypes.CDLL(None, use_errno=True)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sa = struct.pack("!HH4s8x", socket.AF_INET, far[1], socket.inet_aton(far[0]))
        sa = struct.pack("=H", socket.AF_INET) + sa[2:]
        name = ctypes.create_string_buffer(sa, 16)
        data = ctypes.create_string_buffer(args[0].encode())
        iov = (ctypes.c_void_p * 2)(ctypes.cast(data, ctypes.c_void_p), len(args[0]))
        hdr = struct.pack("PIxxxxPQPQixxxxIxxxx", ctypes.addressof(name), 16, ctypes.addressof(iov), 1, 0, 0, 0, 0)
        vec = ctypes.create_string_buffer(hdr + hdr)
        n = libc.sendmmsg(s.fileno(), vec, 2, 0)
        print("sent" if n > 0 else errno.errorcode.get(ctypes.get_errno()))
    elif op == "v6mapped":        # an IPv6 socket to ::ffff:198.18.0.1
        socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(args[0].encode(), ("::ffff:" + far[0], far[1])); print("sent")
    elif op == "loopback":        # a UDP echo on the loopback, sendto and sendmsg
        r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0)); r.settimeout(3)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"one", r.getsockname()); s.sendmsg([b"tw", b"o"], [], 0, r.getsockname())
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.connect(r.getsockname()); c.send(b"three")
        print(" ".join(r.recv(10).decode() for _ in range(3)))
    elif op == "ping":            # an ICMP echo through a ping socket
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP); s.settimeout(3)
        s.sendto(b"\x08\0\0\0\0\x01\0\x01sbx", (args[0], 0))
        print("reply" if s.recv(64)[0] == 0 else "other")
    elif op == "race":            # race TEXT N: a thread flips the address during sendto
        libc = ctypes.CDLL(None, use_errno=True)
        lo = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); lo.bind(("127.0.0.1", 0))
        good = struct.pack("=H", socket.AF_INET) + struct.pack("!H", lo.getsockname()[1]) + socket.inet_aton("127.0.0.1") + bytes(8)
        bad = struct.pack("=H", socket.AF_INET) + struct.pack("!H", far[1]) + socket.inet_aton(far[0]) + bytes(8)
        buf = ctypes.create_string_buffer(16)
        stop = False
        def flip():
            while not stop:
                ctypes.memmove(buf, bad, 16); ctypes.memmove(buf, good, 16)
        ctypes.memmove(buf, good, 16); t = threading.Thread(target=flip); t.start()
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        msg = args[0].encode(); sent = 0
        for _ in range(int(args[1])):
            sent += libc.sendto(s.fileno(), msg, len(msg), 0, buf, 16) > 0
        stop = True; t.join(); print("sent", sent)
    elif op == "dup2race":        # dup2race TEXT N: a thread dup2()s a UDP socket over a TCP one
        libc = ctypes.CDLL(None, use_errno=True)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        fd = tcp.fileno()
        keep = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # a TCP one to put back
        bad = struct.pack("=H", socket.AF_INET) + struct.pack("!H", far[1]) + socket.inet_aton(far[0]) + bytes(8)
        buf = ctypes.create_string_buffer(bad, 16)
        stop = False
        def flip():
            while not stop:
                libc.dup2(udp.fileno(), fd); libc.dup2(keep.fileno(), fd)
        sys.setswitchinterval(1e-6)  # the two threads interleave, GIL or not
        t = threading.Thread(target=flip); t.start()
        msg = args[0].encode(); sent = 0; refused = 0; tried = 0
        # "until": outside sbx, stop once a few went out (the sends are fast)
        while tried < int(args[1]) and not (args[2:] == ["until"] and sent >= 5):
            n = libc.sendto(fd, msg, len(msg), 0, buf, 16); tried += 1
            sent += n > 0; refused += n < 0 and ctypes.get_errno() == errno.EACCES
        stop = True; t.join(); print("tried", tried, "refused", refused)
    elif op == "dup2unix":        # dup2unix TEXT N: the same over a unix socket, the address flipped too
        libc = ctypes.CDLL(None, use_errno=True)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        keep = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        fd = unix.fileno()
        bad = struct.pack("=H", socket.AF_INET) + struct.pack("!H", far[1]) + socket.inet_aton(far[0]) + bytes(8)
        good = struct.pack("=H", socket.AF_UNIX) + b"\0sbx-dup2-race"[:14]
        buf = ctypes.create_string_buffer(good, 16)
        stop = False
        def flip_fd():
            while not stop:
                libc.dup2(udp.fileno(), fd); libc.dup2(keep.fileno(), fd)
        def flip_addr():
            while not stop:
                ctypes.memmove(buf, bad, 16); ctypes.memmove(buf, good, 16)
        sys.setswitchinterval(1e-6)
        ts = [threading.Thread(target=flip_fd), threading.Thread(target=flip_addr)]
        for t in ts: t.start()
        msg = args[0].encode(); sent = 0; tried = 0
        while tried < int(args[1]) and not (args[2:] == ["until"] and sent >= 5):
            sent += libc.sendto(fd, msg, len(msg), 0, buf, 16) > 0; tried += 1
        stop = True
        for t in ts: t.join()
        print("tried", tried)
except OSError as e:
    print(err(e))
PY
chmod a+r "$w/net.py"
cat >"$w/allow.ini" <<EOT
[profile]
include = qa
[network]
allow = pkg.test
EOT
chmod a+r "$w/allow.ini"
cd "$w" || exit 1
C="$PY $T/egress-client.py"
CURL="curl -sS --max-time 20"
ll() { $SBX_AS "$NOUSERNS" "$SBX" run -p qa -- "$@"; }
llq() { $SBX_AS "$NOUSERNS" "$SBX" run -q -p qa -- "$@"; }
lla() { $SBX_AS "$NOUSERNS" "$SBX" run -q -p "$w/allow.ini" -- "$@"; }
N="$PY $w/net.py"

# --- datagrams to "the internet": first without sbx, then in the tier ------
record udp_direct   $N sendto udp-direct
record udp_sendto   llq $N sendto sendto-in-sbx
record udp_ledger   ll $N sendto sendto-in-sbx
record udp_sendmsg  llq $N sendmsg sendmsg-in-sbx
record udp_sendmmsg_direct $N sendmmsg mmsg-direct
record udp_sendmmsg llq $N sendmmsg mmsg-in-sbx
record udp_v6mapped llq $N v6mapped v6mapped-in-sbx
record udp_loopback llq $N loopback
record udp_dns      llq getent hosts pkg.test
record udp_race     llq $N race race-in-sbx 3000
record dup2_direct  $N dup2race dup2-direct 1000000 until
record dup2_race    llq $N dup2race dup2-in-sbx 3000
record dup2u_direct $N dup2unix dup2u-direct 1000000 until
record dup2u_race   llq $N dup2unix dup2u-in-sbx 5000
record ping_direct  $N ping 198.18.0.1
record ping_sbx     llq $N ping 198.18.0.1
record ping_ledger  ll $N ping 198.18.0.1
record ping_lo      llq $N ping 127.0.0.1
sleep 0.3
record udp_log      cat "$w/udp.log"

# --- [network] allow through the proxy on the host's loopback --------------
record allow_http    lla $CURL http://pkg.test/whoami
record allow_connect lla $CURL -p http://pkg.test/whoami
record allow_evil    lla $CURL http://evil.test/whoami
record allow_env     lla sh -c 'env | grep -i "^https*_proxy=" | sort'
record allow_around  lla sh -c "$CURL --noproxy '*' http://198.18.0.1/whoami; echo curl \$?"
record allow_said    $SBX_AS "$NOUSERNS" "$SBX" run -p "$w/allow.ini" -- \
    sh -c "$CURL --noproxy '*' http://198.18.0.1/whoami; $CURL -o /dev/null http://evil.test/"
record allow_serve   lla $N loopback
# another process of the host, on the same loopback, tries the proxy
# while a sandboxed command runs
rm -f "$w/proxy"
$SBX_AS "$NOUSERNS" "$SBX" run -p "$w/allow.ini" -- \
    sh -c 'echo "$HTTP_PROXY" >proxy.tmp && mv proxy.tmp proxy; i=0; while [ ! -e outsider.done ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done' \
    >/dev/null 2>"$w/outsider.err" &
inside=$!
i=0; while [ ! -s "$w/proxy" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
record allow_outsider sh -c "$CURL -x \"\$(cat '$w/proxy')\" http://pkg.test/whoami; echo curl \$?"
touch "$w/outsider.done"
wait "$inside"
record allow_outsider_said cat "$w/outsider.err"
record allow_show    $SBX_AS "$SBX" profile show --tier landlock "$w/allow.ini"
rm -rf "$w"
