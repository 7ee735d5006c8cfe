#!/bin/sh
# The Landlock tier keeps qa's promise (issue 26, sbx(1) TIERS): where the
# user namespace is refused (an outer seccomp filter like Docker's, made
# by deny-userns), `sbx run -p qa` starts in the Landlock tier, bind and
# connect on 127.0.0.1 and ::1 work, and every other inet bind, connect
# and listen is refused and counted. Landlock cannot restrict by address:
# the supervisor makes the loopback calls itself, on the command's socket,
# with the address it checked, so a thread that rewrites the address
# during the call gains nothing. The red team of the issue, each first
# shown working without sbx: an MPTCP connect and a TCP Fast Open
# sendto to a host service (Landlock's TCP rights miss both), reading
# the host's /dev/pts, and chmod or utimes outside the writable paths
# (Landlock has no right for metadata: the supervisor makes those calls on
# what it opened and checked). Runs as root and as an unprivileged user.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 33
NOUSERNS="$SBX_TEST_HELPERS/deny-userns"
export ASAN_OPTIONS=detect_leaks=0

abi=$("$SBX" probe --tap 2>/dev/null | sed -n 's/^ok [0-9]* - landlock: ok \([0-9]*\) .*/\1/p')
if [ -z "$abi" ] || [ "$abi" -lt 6 ]; then
    i=0; while [ $i -lt 33 ]; do skip "no Landlock ABI 6 here (sbx probe: '${abi:-none}')"; i=$((i + 1)); done
    done_testing
fi
if ! command -v python3 >/dev/null 2>&1; then
    i=0; while [ $i -lt 33 ]; do skip "python3 is not installed"; i=$((i + 1)); done
    done_testing
fi
# Outside any work tree: a project's own protected paths (.git/hooks) are
# the subject of run-landlock.sh, not of this test.
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/escape-landlock.XXXXXX") || exit 1
trap 'kill $server 2>/dev/null; rm -rf "$tmpdir"' EXIT
chmod 755 "$tmpdir"
mkdir "$tmpdir/work"
cd "$tmpdir/work" || exit 1

# A non-loopback address of this host, where a host service listens.
ip=$(ip -4 -o addr show scope global 2>/dev/null | sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p' | head -n1)
[ -n "$ip" ] || ip=$(hostname -I 2>/dev/null | cut -d' ' -f1)

# The host's service: accepts on 0.0.0.0 (so on the loopback and on $ip),
# counts what it accepted from a non-loopback peer.
cat >"$tmpdir/server.py" <<'PY'
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 0)); s.listen(512)
print(s.getsockname()[1], flush=True)
count = open(sys.argv[1], "w")
while True:
    c, peer = s.accept()
    if not peer[0].startswith("127."):
        count.write("x"); count.flush()
    c.close()
PY
python3 "$tmpdir/server.py" "$tmpdir/external" >"$tmpdir/port" &
server=$!
i=0; while [ ! -s "$tmpdir/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
port=$(cat "$tmpdir/port")

cat >"$tmpdir/net.py" <<'PY'
import ctypes, errno, os, socket, sys, threading
op, args = sys.argv[1], sys.argv[2:]
def err(e): return errno.errorcode.get(e.errno, str(e.errno))
try:
    if op == "connect":          # connect ADDR PORT [PROTO]
        proto = int(args[2]) if len(args) > 2 else 0
        s = socket.socket(socket.AF_INET6 if ":" in args[0] else socket.AF_INET, socket.SOCK_STREAM, proto)
        s.settimeout(3); s.connect((args[0], int(args[1]))); print("ok")
    elif op == "socket":         # socket TYPE PROTO
        socket.socket(socket.AF_INET, int(args[0]), int(args[1])); print("ok")
    elif op == "fastopen":       # fastopen ADDR PORT
        s = socket.socket(); s.sendto(b"x", 0x20000000, (args[0], int(args[1]))); print("ok")
    elif op == "serve":          # serve ADDR: bind, listen, connect to itself
        fam = socket.AF_INET6 if ":" in args[0] else socket.AF_INET
        s = socket.socket(fam); s.bind((args[0], 0)); s.listen()
        c = socket.socket(fam); c.connect(s.getsockname()[:2]); a, _ = s.accept()
        c.send(b"ping"); print(a.recv(4).decode(), s.getsockname()[0])
    elif op == "bind":           # bind ADDR
        s = socket.socket(); s.bind((args[0], 0)); print("ok", s.getsockname()[0])
    elif op == "listen":         # listen on an unbound socket
        s = socket.socket(); s.listen(); print("ok", s.getsockname()[0])
    elif op == "open":           # open PATH for reading
        os.close(os.open(args[0], os.O_RDONLY | os.O_NOCTTY)); print("ok")
    elif op == "openpty":
        m, sl = os.openpty(); os.write(m, b"hi\n"); print("ok", os.read(sl, 3).decode().strip())
    elif op == "race":           # race ADDR PORT N: flip the address during connect
        libc = ctypes.CDLL(None, use_errno=True)
        good = socket.inet_aton("127.0.0.1"); bad = socket.inet_aton(args[0])
        buf = ctypes.create_string_buffer(16)
        def put(a):
            ctypes.memmove(buf, bytes([2, 0]) + int(args[1]).to_bytes(2, "big") + a + bytes(8), 16)
        stop = False
        def flip():
            while not stop:
                put(bad); put(good)
        put(good); t = threading.Thread(target=flip); t.start()
        made = 0
        for _ in range(int(args[2])):
            s = socket.socket()
            made += libc.connect(s.fileno(), buf, 16) == 0
            s.close()
        stop = True; t.join(); print("connected", made)
except OSError as e:
    print(err(e))
PY
py() { python3 "$tmpdir/net.py" "$@"; }
qa() { run_cmd "$NOUSERNS" "$SBX" run -p qa -- python3 "$tmpdir/net.py" "$@"; }

# --- the tier starts, and says so --------------------------------------------
qa serve 127.0.0.1
is "$status:$out" "0:ping 127.0.0.1" "qa under a refused user namespace: bind, listen and connect on 127.0.0.1 work"
like "$err" "sbx[landlock]: user namespaces are refused here" "... in the Landlock tier, said"
like "$err" "so the loopback is the host's (or the container's)" "... saying whose loopback it is"
qa serve ::1
is "$out" "ping ::1" "bind, listen and connect on ::1 work"
qa connect 127.0.0.1 "$port"
is "$out" ok "connect to a host service on 127.0.0.1 works (the loopback is shared: sbx(1) TIERS)"
qa bind 0.0.0.0
is "$out" "ok 127.0.0.1" "a bind on 0.0.0.0 is made on 127.0.0.1, not on every interface"
qa listen
is "$out" "ok 127.0.0.1" "a listen on an unbound socket binds 127.0.0.1, not the wildcard"
run_cmd "$NOUSERNS" "$SBX" run -q -p qa -- "$SBX_TEST_HELPERS/loopback-fds"
case $status:$out in 0:*"all good: this sandbox can run network tests"*) pass "loopback-fds passes in the Landlock tier" ;;
    *) fail "loopback-fds passes in the Landlock tier"; diag "$status: $out $err" ;; esac

if [ -z "$ip" ]; then
    i=0; while [ $i -lt 13 ]; do skip "this host has no non-loopback IPv4 address to attack"; i=$((i + 1)); done
else
    is "$(py connect "$ip" "$port")" ok "without sbx, TCP connect to the host service on $ip works (the test can fail)"
    qa connect "$ip" "$port"
    is "$out" EACCES "Landlock tier: TCP connect to $ip is refused"
    like "$err" "denied: connect(AF_INET $ip:$port) x1 -> EACCES" "... and counted in the ledger"
    qa bind "$ip"
    is "$out" EACCES "Landlock tier: bind on $ip is refused"

    # MPTCP: Landlock's TCP rights cover plain TCP only
    mp=$(py connect "$ip" "$port" 262)
    if [ "$mp" = ok ]; then
        pass "without sbx, an MPTCP socket connects to the host service on $ip (the test can fail)"
    else
        skip "MPTCP is not available on this kernel ($mp): the attack cannot be shown"
    fi
    qa socket 1 262
    is "$out" EACCES "Landlock tier: socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP) is refused"
    qa socket 5 0
    is "$out" EACCES "Landlock tier: socket(AF_INET, SOCK_SEQPACKET, 0), SCTP, is refused"
    qa socket 2 136
    is "$out" EACCES "Landlock tier: UDP-Lite is refused"
    qa socket 2 0
    is "$out" ok "... UDP is not"

    # TCP Fast Open connects from sendto(), without connect()
    is "$(py fastopen "$ip" "$port")" ok "without sbx, sendto(MSG_FASTOPEN) opens a TCP connection to $ip (the test can fail)"
    qa fastopen "$ip" "$port"
    is "$out" EACCES "Landlock tier: sendto(MSG_FASTOPEN) is refused"

    # The race: another thread rewrites the address between the check
    # and the call. The supervisor made the call from what it read.
    : >"$tmpdir/external"
    qa race "$ip" "$port" 300
    like "$out" "connected " "the race ran (300 connects while a thread flips the address)"
    sleep 0.3
    is "$(wc -c <"$tmpdir/external" | tr -d ' ')" 0 "... and not one connection reached the host service from $ip"
fi

# --- terminals: /dev/ptmx, not the host's other ptys --------------------------
python3 -c 'import os, sys, time; m, s = os.openpty(); print(os.ttyname(s), flush=True); time.sleep(30)' >"$tmpdir/pty" &
holder=$!
i=0; while [ ! -s "$tmpdir/pty" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
pty=$(cat "$tmpdir/pty")
is "$(py open "$pty")" ok "without sbx, the caller opens another terminal of its own, $pty (the test can fail)"
qa open "$pty"
is "$out" EACCES "Landlock tier: the host's $pty cannot be opened"
qa open /dev/ptmx
is "$out" ok "... while /dev/ptmx opens"
if command -v script >/dev/null 2>&1; then
    out=$(script -qfec "'$NOUSERNS' '$SBX' run -q -p qa -- sh -c 'python3 \"$tmpdir/net.py\" open \$(tty)'" /dev/null </dev/null 2>&1 | tr -d '\r')
    case $out in *EACCES* | *Traceback*) fail "... and so does the command's own pty, by its name"; diag "$out" ;;
    *ok) pass "... and so does the command's own pty, by its name" ;;
    *) fail "... and so does the command's own pty, by its name"; diag "$out" ;; esac
else
    skip "script(1) is not installed (bsdutils)"
fi
kill "$holder" 2>/dev/null

# --- metadata outside the writable paths (Landlock has no right for it) ------
mkdir "$tmpdir/outside"
echo keep >"$tmpdir/outside/file"
chmod 644 "$tmpdir/outside/file"
touch -d 2001-01-01 "$tmpdir/outside/file"
mode() { stat -c %a "$1"; }
chmod 600 "$tmpdir/outside/file" && [ "$(mode "$tmpdir/outside/file")" = 600 ]
ok $? "without sbx, the caller chmods its file outside the project (the test can fail)"
chmod 644 "$tmpdir/outside/file"
run_cmd "$NOUSERNS" "$SBX" run -p qa -- chmod 666 "$tmpdir/outside/file"
is "$status:$(mode "$tmpdir/outside/file")" "1:644" "Landlock tier: chmod outside the writable paths is refused, the mode unchanged"
like "$err" "1 operation denied: fchmodat() x1 -> EPERM" "... and counted in the ledger"
run_cmd "$NOUSERNS" "$SBX" run -q -p qa -- touch -m -d 2020-02-02 "$tmpdir/outside/file"
is "$(stat -c %Y "$tmpdir/outside/file")" "$(date -d 2001-01-01 +%s)" "Landlock tier: utimes outside is refused, the time unchanged"
ln -s "$tmpdir/outside/file" link
run_cmd "$NOUSERNS" "$SBX" run -q -p qa -- chmod 666 link
is "$(mode "$tmpdir/outside/file")" 644 "Landlock tier: chmod through a symlink in the project to a file outside is refused"
rm -f link
run_cmd "$NOUSERNS" "$SBX" run -q -p qa -- sh -c 'echo x >mine && chmod 640 mine && touch -m -d 2002-02-02 mine && stat -c "%a %Y" mine'
is "$out" "640 $(date -d 2002-02-02 +%s)" "Landlock tier: chmod and utimes in the project work"
run_cmd "$NOUSERNS" "$SBX" run -q -p qa -- python3 -c 'import os; os.setxattr("mine", "user.sbx", b"1"); print(os.getxattr("mine", "user.sbx").decode())'
case $out in
    1) pass "Landlock tier: extended attributes in the project work" ;;
    *EOPNOTSUPP* | *"Operation not supported"*) skip "this file system has no user extended attributes" ;;
    *) fail "Landlock tier: extended attributes in the project work"; diag "$out $err" ;;
esac
run_cmd "$NOUSERNS" "$SBX" run -q -p qa -- chmod u+s mine
is "$status:$(mode mine)" "1:640" "Landlock tier: a set-user-ID bit is refused (nosuid, as the namespace tier's mounts)"

done_testing
