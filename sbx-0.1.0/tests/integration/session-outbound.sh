#!/bin/sh
# Outbound network through pasta ([network] outbound = yes, --outbound):
# the sandbox keeps its own lo (bind(127.0.0.1:0) works), reaches a
# server beyond its namespace, cannot reach the host's loopback (neither
# directly nor through the gateway address) unless the port is forwarded,
# and never runs without pasta. Nothing here contacts another machine:
# the reachable server lives in a network namespace the test builds
# (session-world.sh), the host is stood in for by another namespace whose
# only route leads there.
#
# Root builds that world with `unshare --net`; an unprivileged user builds
# it inside a user namespace of its own (`unshare --user --map-root-user`)
# and runs sbx from a nested user namespace mapped back to its own uid, so
# sbx and pasta hold no privilege at all: the same checks, both ways.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
make_tmpdir
NP=$H/net-probe

# --- the real host: loopback stays the sandbox's own --------------------
"$NP" serve 127.0.0.1 0 host-loopback "$tmpdir/lo.port" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$tmpdir"' EXIT
wait_for_text "$tmpdir/lo.port" . || diag "the host loopback server did not start"
lo=$(cat "$tmpdir/lo.port")

sbx_run --outbound -- "$H/loopback-echo"
is "$status" 0 "outbound: bind(127.0.0.1:0) and bind([::1]:0) + connect work"
sbx_run --outbound -- "$NP" tcp 127.0.0.1 "$lo"
is "$out" "connect: Connection refused" "outbound: the host's 127.0.0.1:$lo is not reachable"
sbx_run --outbound -- readlink /proc/self/ns/net
isnt "$out" "$(readlink /proc/self/ns/net)" "outbound: a network namespace of its own"
profile fwd <<EOT
[network]
outbound = yes
forward = $lo
EOT
sbx_run -p "$prof" -- "$NP" tcp 127.0.0.1 "$lo"
is "$out" "reply host-loopback" "forward = $lo: the host's 127.0.0.1:$lo is reachable (TCP)"
sbx_run -p "$prof" -- "$NP" udp 127.0.0.1 "$lo"
is "$out" "reply host-loopback" "forward = $lo: the host's 127.0.0.1:$lo is reachable (UDP)"

# Refusals: no pasta, a failing pasta, never the host's network.
run_cmd env PATH=/nonexistent "$SBX" run --outbound -- /bin/sh -c "echo ran >$tmpdir/ran"
is "$status" 125 "no pasta in PATH: exit 125"
like "$err" "install Debian's passt package" "no pasta: the message names the package"
mkdir "$tmpdir/bin"
printf '#!/bin/sh\necho "fake pasta: cannot attach" >&2\nexit 1\n' >"$tmpdir/bin/pasta"
chmod 755 "$tmpdir/bin/pasta"
run_cmd env PATH="$tmpdir/bin:$PATH" "$SBX" run --outbound -- /bin/sh -c "echo ran >$tmpdir/ran"
is "$status" 125 "a failing pasta: exit 125"
like "$err" "fake pasta: cannot attach" "a failing pasta: its own message is shown"
like "$err" "package passt" "a failing pasta: the message names the package"
test ! -e "$tmpdir/ran"
ok $? "with no pasta or a failing one the command never ran"
sbx_run --outbound --network none -- true
is "$status" 125 "outbound with mode = none is refused"

# A caller that ignores SIGPIPE (Python's pty.fork(), `trap '' PIPE`):
# ignored signals stay ignored across execve(), and pasta refused to start
# with it ("Couldn't install signal handlers", 125). First, without sbx:
# the ignored SIGPIPE (bit 12 of SigIgn) reaches a program exec'd after it.
run_cmd sh -c "trap '' PIPE; exec sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status"
is "$(( (0x${out:-0} >> 12) & 1 ))" 1 "without sbx, an ignored SIGPIPE reaches the exec'd program"
run_cmd sh -c "trap '' PIPE; exec \"\$1\" run --outbound -- true" sh "$SBX"
is "$status:$err" "0:" "SIGPIPE ignored by the caller: --outbound runs (pasta starts from the defaults)"
run_cmd sh -c "trap '' PIPE; exec \"\$1\" run -p qa-session -- true" sh "$SBX"
is "$status:$err" "0:" "SIGPIPE ignored by the caller: -p qa-session runs"

# pasta lives exactly as long as the sandbox, even when sbx is killed.
new_marker 1
"$SBX" run --outbound -- sleep "$marker" </dev/null >/dev/null 2>&1 &
sbx_pid=$!
i=0
pasta=
while [ -z "$pasta" ] && [ $i -lt 100 ]; do
    pasta=$(ps -eo pid=,ppid=,comm= | awk -v s=$sbx_pid '$2 == s && $3 ~ /^pas/ { print $1 }')
    [ "$(count_marker)" = 1 ] || pasta=
    sleep 0.05; i=$((i + 1))
done
isnt "$pasta" "" "while the command runs, pasta is a child of sbx"
kill -KILL $sbx_pid
wait $sbx_pid 2>/dev/null
i=0
while [ $i -lt 100 ] && ps -o stat= -p "${pasta:-0}" 2>/dev/null | grep -qv Z; do sleep 0.05; i=$((i + 1)); done
ps -o stat= -p "${pasta:-0}" 2>/dev/null | grep -qv Z
isnt "$?" 0 "sbx killed with SIGKILL: pasta is gone too (parent-death signal)"
sbx_run -v --outbound -- true
pasta=$(printf '%s\n' "$err" | sed -n 's/.*pasta (pid \([0-9]*\)) attached.*/\1/p')
isnt "$pasta" "" "-v names pasta's pid"
ps -o stat= -p "${pasta:-0}" 2>/dev/null | grep -qv Z
isnt "$?" 0 "after a normal exit pasta is gone (killed and reaped by sbx)"

# --- a world of namespaces: a server beyond the sandbox -----------------
chmod 755 "$tmpdir"
: >"$tmpdir/results"
chmod 666 "$tmpdir/results"
world="$SBX_TOP_SRCDIR/tests/integration/session-world.sh"
if is_root; then
    run_cmd unshare --net --mount --pid --fork --mount-proc \
        env SBX_AS= SBX="$SBX" SBX_TEST_HELPERS="$H" sh "$world" "$tmpdir/results"
else
    run_cmd unshare --user --map-root-user --net --mount --pid --fork --mount-proc \
        env SBX_AS="unshare --user --map-user=$(id -u) --map-group=$(id -g)" \
        SBX="$SBX" SBX_TEST_HELPERS="$H" sh "$world" "$tmpdir/results"
fi
[ "$status" = 0 ] || diag "building the test network failed: $err"
r() { sed -n "s/^$1=//p" "$tmpdir/results" | sed 's/ *$//'; }
is "$(r out_tcp)" "reply server-netns" "outbound on: a server in another network namespace answers (TCP)"
is "$(r out_udp)" "reply server-netns" "outbound on: it answers over UDP (as DNS would)"
is "$(r off_tcp)" "connect: Network is unreachable" "outbound off: the same server is unreachable"
is "$(r lo_tcp)" "connect: Connection refused" "outbound on: the host's loopback service is not reachable"
is "$(r lo_udp)" "recv: Connection refused" "outbound on: nor over UDP (port unreachable on its own lo)"
is "$(r gw_tcp)" "reply gateway-itself" "the gateway address reaches the gateway, not the host's loopback"
is "$(r fwd_tcp)" "reply host-loopback" "forwarded: the host's loopback service answers (TCP)"
is "$(r fwd_udp)" "reply host-loopback" "forwarded: it answers over UDP"
like "$(r bind_any)" "127.0.0.1 ok" "in that world too, the sandbox's own loopback works"

made_by_sbx="# Made by sbx: DNS queries to 169.254.1.1 go through pasta to the host's resolver. nameserver 169.254.1.1"
# DNS: the world's /etc/resolv.conf names a resolver on its own loopback
# (127.0.0.53), then one in the server netns, then is a symlink.
is "$(r dns_lo)" "10.213.7.1      some-name.sbx-test" \
    "DNS: a resolver on the host's loopback (127.0.0.53) answers through pasta"
is "$(r dns_lo_srch)" "10.213.7.1      some-name.sbx-test" "DNS: the host's search list is kept"
is "$(r dns_lo_nx)" "status 2" "DNS: NXDOMAIN comes back as not found (getent status 2)"
is "$(r dns_lo_file)" "$made_by_sbx options edns0 trust-ad search sbx-test" \
    "DNS: the sandbox's resolv.conf names pasta's address, keeps options and search, no other nameserver"
is "$(r dns_lo_ro)" "ro" "DNS: the sandbox's resolv.conf is a read-only mount (the topmost one there)"
is "$(r dns_off)" "status 2" "outbound off: the name does not resolve"
is "$(r dns_off_file)" "nameserver 127.0.0.53 options edns0 trust-ad search sbx-test" \
    "outbound off: /etc/resolv.conf is the host's, untouched"
is "$(r dns_direct)" "recv: Connection refused" \
    "DNS: the host's 127.0.0.53 is still not reachable directly (the sandbox's own lo)"
is "$(r dns_other)" "no reply" "DNS: pasta's DNS address forwards port 53 only, not another port"
is "$(r dns_other_tcp)" "connect: Connection refused" "DNS: nor TCP to the resolver's address"
like "$(r dns_verbose)" "DNS: 169.254.1.1:53 forwarded by pasta to the host's resolver 127.0.0.53:53" \
    "-v names the resolver DNS goes to"
like "$(r dns_report)" "169.254.1.1:53 forwarded by pasta to the host's resolver 127.0.0.53:53" \
    "the run record names it under network.state.dns"
is "$(r dns_s)" "10.213.7.2      some-name.sbx-test" \
    "DNS: a resolver beyond the host (server netns) answers through pasta"
like "$(r dns_v6only)" "the host's /etc/resolv.conf names no IPv4 nameserver: DNS inside the sandbox is not forwarded" \
    "no IPv4 nameserver on the host: a warning says DNS is not forwarded"
like "$(r dns_v6only)" "nameserver ::1 status 0" "and the sandbox sees the host's file, the command runs"
like "$(r dns_huge)" "/etc/resolv.conf to make the sandbox's (DNS through pasta): larger than 1 MiB" \
    "a 2 MB /etc/resolv.conf: the error names the file"
unlike "$(r dns_huge)" "ran" "and the command never started"
like "$(r dns_huge)" "status 125" "exit 125"
is "$(r dns_link)" "10.213.7.1      some-name.sbx-test" \
    "DNS: /etc/resolv.conf a symlink to a file the sandbox cannot see: resolution works"
is "$(r dns_link_file)" "$made_by_sbx" "and /etc/resolv.conf shows the generated file"
like "$(r dns_queries_lo)" "query some-name.sbx-test" "the loopback resolver saw the queries"
like "$(r dns_queries_s)" "query some-name.sbx-test 1" "the server netns resolver saw the A query"
is "$(r dns_queries_s | sed 's/query some-name.sbx-test [0-9]* *//g')" "" \
    "and only the queries of its own run"

done_testing
