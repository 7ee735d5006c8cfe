#!/bin/sh
# The Landlock tier's network beyond TCP (issue 26, sbx(1) TIERS): where
# the user namespace is refused (deny-userns, as Docker's default seccomp
# profile), the command shares the host's network, and Landlock restricts
# TCP only. UDP datagrams (sendto, sendmsg, sendmmsg) and ICMP echoes
# through ping sockets to an address off the loopback are refused and
# counted; the supervisor checks the address it read and sends the
# datagram itself, so a thread that rewrites the address meanwhile gains
# nothing. [network] allow works there through sbx's proxy on the host's
# loopback, named by the proxy variables, and a tool that goes around it
# is refused and counted. Each attack first works without sbx.
#
# Nothing here contacts another machine: the world is egress-world.sh's
# network namespaces (egress-net.sh), built by landlock-net-world.sh.
# Root builds it with `unshare --net`; an unprivileged user inside a user
# namespace of its own, and runs sbx from a nested one mapped back to its
# uid: the same checks, both ways.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 43
NOUSERNS="$SBX_TEST_HELPERS/deny-userns"
export ASAN_OPTIONS=detect_leaks=0
make_tmpdir
trap 'rm -rf "$tmpdir"' EXIT
skip_all() { i=0; while [ $i -lt 43 ]; do skip "$1"; i=$((i + 1)); done; done_testing; exit 0; }
command -v curl >/dev/null || skip_all "curl is not installed (tests/debian-packages)"
command -v python3 >/dev/null || skip_all "python3 is not installed"
abi=$("$SBX" probe --tap 2>/dev/null | sed -n 's/^ok [0-9]* - landlock: ok \([0-9]*\) .*/\1/p')
if [ -z "$abi" ] || [ "$abi" -lt 6 ]; then
    skip_all "no Landlock ABI 6 here (sbx probe: '${abi:-none}')"
fi

chmod 755 "$tmpdir"
: >"$tmpdir/results"
chmod 666 "$tmpdir/results"
world="$SBX_TOP_SRCDIR/tests/integration/landlock-net-world.sh"
if is_root; then
    run_cmd unshare --net --mount --pid --fork --mount-proc \
        env SBX_AS= SBX="$SBX" NOUSERNS="$NOUSERNS" SBX_TOP_SRCDIR="$SBX_TOP_SRCDIR" \
        sh "$world" "$tmpdir/results"
else
    run_cmd unshare --user --map-root-user --net --mount --pid --fork --mount-proc \
        env SBX_AS="unshare --user --map-user=$(id -u) --map-group=$(id -g)" \
        SBX="$SBX" NOUSERNS="$NOUSERNS" SBX_TOP_SRCDIR="$SBX_TOP_SRCDIR" sh "$world" "$tmpdir/results"
fi
[ "$status" = 0 ] || diag "building the test world failed: $err"
r() { sed -n "s/^$1=//p" "$tmpdir/results" | sed 's/ *$//'; }

# --- UDP and ICMP off the loopback ------------------------------------------
is "$(r udp_direct)" sent "without sbx, a UDP datagram to 198.18.0.1:9053 is sent (the test can fail)"
like "$(r udp_log)" "udp-direct" "... and the server there received it"
is "$(r udp_sendto)" EACCES "Landlock tier: sendto() to 198.18.0.1 is refused"
like "$(r udp_ledger)" "denied: sendto(AF_INET 198.18.0.1:9053) x1 -> EACCES" "... and counted in the ledger"
unlike "$(r udp_ledger)" "fix: \[security\] -deny" "... with no fix that would lift sbx's own rule"
is "$(r udp_sendmsg)" EACCES "Landlock tier: sendmsg() to 198.18.0.1 is refused"
like "$(r udp_sendmmsg_direct)" sent "without sbx, sendmmsg() to 198.18.0.1 is sent"
is "$(r udp_sendmmsg)" EACCES "Landlock tier: sendmmsg() to 198.18.0.1 is refused"
is "$(r udp_v6mapped)" EACCES "Landlock tier: an IPv6 socket to ::ffff:198.18.0.1 is refused"
is "$(r udp_loopback)" "one two three" "Landlock tier: UDP on the loopback works (sendto, sendmsg, connected send)"
like "$(r udp_dns)" "pkg.test" "Landlock tier: names resolve through a resolver on the loopback (the host's)"
like "$(r udp_race)" "sent " "the race ran (3000 sendto() while a thread flips the address)"
is "$(r ping_direct)" reply "without sbx, a ping socket reaches 198.18.0.1 (the test can fail)"
is "$(r ping_sbx)" EACCES "Landlock tier: an ICMP echo to 198.18.0.1 is refused"
like "$(r ping_ledger)" "denied: sendto(AF_INET 198.18.0.1:0) x1 -> EACCES" "... and counted in the ledger"
is "$(r ping_lo)" reply "Landlock tier: ping on the loopback works"
# The dup2 race: a send checked on a TCP socket (continued: the kernel
# ignores a stream socket's address) while another thread dup2()s a UDP
# socket over that descriptor; the kernel then sends on whatever the
# number names. Every UDP socket of the tier is the supervisor's, bound to
# lo (landlock_net.h), so whatever the race gives the kernel stays on the
# loopback.
like "$(r dup2_race)" "tried 3000 refused" "the dup2 race ran (3000 sendto() while a thread dup2()s a UDP socket over the TCP one)"
unlike "$(r dup2_race)" "refused 0" "... and the supervisor saw the UDP socket at times (refused), the TCP one at others"
log=$(r udp_log)
like "$log" "dup2-direct" "without sbx, the dup2 race's datagrams reach 198.18.0.1 (the test can fail)"
unlike "$log" "dup2-in-sbx" "not one of the dup2 race's datagrams from the Landlock tier reached 198.18.0.1"
like "$(r dup2u_race)" "tried 5000" "the race over a unix socket ran (the address flipped between a unix and an inet one too)"
like "$log" "dup2u-direct" "... without sbx, its datagrams reach 198.18.0.1 (the test can fail)"
unlike "$log" "dup2u-in-sbx" "... and not one of them from the Landlock tier (a call checked on a unix socket)"
unlike "$log" "in-sbx" "not one datagram from the Landlock tier reached 198.18.0.1 (the race's included)"
like "$log" "mmsg-direct" "... while sendmmsg's from outside did"

# --- [network] allow through the proxy on the host's loopback ---------------
is "$(r allow_http)" "server GET /whoami host=pkg.test" "Landlock tier: an allowed name over plain HTTP, through the proxy"
is "$(r allow_connect)" "server GET /whoami host=pkg.test" "... and over HTTP CONNECT"
is "$(r allow_evil)" "sbx: not in [network] allow" "... a name not allowed is refused by the proxy, with the reason"
env_line=$(r allow_env)
like "$env_line" "HTTP_PROXY=http://127.0.0.1:" "the proxy variables name the host's loopback"
port=$(printf '%s\n' "$env_line" | sed -n 's/^HTTPS_PROXY=http:\/\/127.0.0.1:\([0-9]*\) .*/\1/p')
isnt "$port" 3128 "... on a port of the run's, not a fixed one another program may hold"
like "$(r allow_around)" "curl 7" "a tool that ignores the proxy variables cannot reach 198.18.0.1 directly"
said=$(r allow_said)
like "$said" "denied: connect(AF_INET 198.18.0.1:80) x1 -> EACCES" "... refused and counted in the ledger"
like "$said" "evil.test:80" "... and what the proxy refused is listed"
like "$said" "sbx's proxy listens on the host's loopback" "the run says the proxy is on the host's loopback"
like "$said" "other processes of the host can connect to that port, and are refused" "... and what that exposes"
# the namespace tier's decisions for allow never reach this tier: its
# no-route rule (ENETUNREACH) and its stub's resolv.conf
unlike "$said" "ENETUNREACH" "no namespace tier's no-route rule in the Landlock tier"
unlike "$said" "resolv.conf" "... nor its DNS stub's resolv.conf"
is "$(r allow_serve)" "one two three" "[network] allow: the loopback still works"
outsider=$(r allow_outsider)
# closed unanswered: an empty reply (52), or a reset when curl's request
# was still unread (56)
case $outsider in
    *"curl 52" | *"curl 56") pass "another process of the host gets nothing from the proxy on the shared loopback" ;;
    *) fail "another process of the host gets nothing from the proxy on the shared loopback"; diag "$outsider" ;;
esac
unlike "$outsider" "server GET" "... not even an allowed name"
like "$(r allow_outsider_said)" "a client of the host's loopback that is not the sandbox's command" "... refused and listed"
show=$(r allow_show)
like "$show" "allow = pkg.test...: the Landlock tier has no network namespace" "profile show --tier landlock says what allow does there"
unlike "$show" "refused:" "... and refuses nothing"

done_testing
