#!/bin/sh
# Run by session-outbound.sh inside a network, mount and PID namespace of
# its own (and, unprivileged, a user namespace): a stand-in for "the
# host" whose only route leads to a second namespace the test owns, so
# that outbound traffic provably leaves the sandbox without any packet
# reaching a machine other than this one.
#
#   host stand-in (this script): lo, sbxt-h 10.213.0.2/30, default via .1
#   server netns: sbxt-s 10.213.0.1/30, net-probe TCP+UDP servers
#   DNS: dns-answer on the stand-in host's 127.0.0.53 (as systemd-resolved)
#   and in the server netns; /etc/resolv.conf is this mount namespace's
#   own, bind-mounted here, never the real machine's file.
#
# Writes NAME=OUTPUT lines to $1 for the outer test to check. $SBX_AS is a
# prefix that runs sbx as the outer test's uid (empty as root).
set -u
results=$1
NP=$SBX_TEST_HELPERS/net-probe
w=$(mktemp -d "${TMPDIR:-/tmp}/sbx-world.XXXXXX")
record() { name=$1; shift; printf '%s=%s\n' "$name" "$("$@" 2>&1 | tr '\n' ' ')" >>"$results"; }

ip link set lo up
unshare --net sleep 1000 &
spid=$!
sleep 0.05
ns() { nsenter --net=/proc/$spid/ns/net "$@"; }
ip link add sbxt-h type veth peer name sbxt-s
ip link set sbxt-s netns $spid
ip addr add 10.213.0.2/30 dev sbxt-h
ip link set sbxt-h up
ip route add default via 10.213.0.1
ns ip link set lo up
ns ip addr add 10.213.0.1/30 dev sbxt-s
ns ip link set sbxt-s up

# A service on the stand-in host's loopback, and one in the server netns.
"$NP" serve 127.0.0.1 0 host-loopback "$w/lo.port" &
ns "$NP" serve 10.213.0.1 0 server-netns "$w/s.port" &
i=0
while { [ ! -s "$w/lo.port" ] || [ ! -s "$w/s.port" ]; } && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
lo=$(cat "$w/lo.port") sp=$(cat "$w/s.port")
# The gateway (10.213.0.1) answers on the loopback service's port too, so
# that a connection remapped to the host's loopback is told apart from one
# that reached the real gateway.
ns "$NP" serve 10.213.0.1 "$lo" gateway-itself "$w/g.port" &
i=0
while [ ! -s "$w/g.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done

printf '[profile]\ninclude = default\n[network]\noutbound = yes\nforward = %s\n' "$lo" >"$w/fwd.ini"
chmod -R a+rX "$w"

record out_tcp   $SBX_AS "$SBX" run --outbound -- "$NP" tcp 10.213.0.1 "$sp"
record out_udp   $SBX_AS "$SBX" run --outbound -- "$NP" udp 10.213.0.1 "$sp"
record off_tcp   $SBX_AS "$SBX" run -- "$NP" tcp 10.213.0.1 "$sp"
record lo_tcp    $SBX_AS "$SBX" run --outbound -- "$NP" tcp 127.0.0.1 "$lo"
record lo_udp    $SBX_AS "$SBX" run --outbound -- "$NP" udp 127.0.0.1 "$lo"
record gw_tcp    $SBX_AS "$SBX" run --outbound -- "$NP" tcp 10.213.0.1 "$lo"
record fwd_tcp   $SBX_AS "$SBX" run -p "$w/fwd.ini" -- "$NP" tcp 127.0.0.1 "$lo"
record fwd_udp   $SBX_AS "$SBX" run -p "$w/fwd.ini" -- "$NP" udp 127.0.0.1 "$lo"
record bind_any  $SBX_AS "$SBX" run --outbound -- "$SBX_TEST_HELPERS/loopback-echo"

# --- DNS ----------------------------------------------------------------
DA=$SBX_TEST_HELPERS/dns-answer
"$DA" 127.0.0.53 53 some-name.sbx-test 10.213.7.1 "$w/dns-lo.ready" >"$w/dns-lo.log" &
ns "$DA" 10.213.0.1 53 some-name.sbx-test 10.213.7.2 "$w/dns-s.ready" >"$w/dns-s.log" &
# Another service on the resolver's loopback address: only port 53 opens.
"$NP" serve 127.0.0.53 0 resolver-other "$w/ro.port" &
i=0
while { [ ! -e "$w/dns-lo.ready" ] || [ ! -e "$w/dns-s.ready" ] || [ ! -s "$w/ro.port" ]; } &&
    [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ro=$(cat "$w/ro.port")
mkdir -m 777 "$w/out"
# resolve NAME [SBX-OPTION...]: getent's answer inside, or its status.
resolve() {
    name=$1
    shift
    $SBX_AS "$SBX" run "$@" -- sh -c 'getent hosts "$1" || echo "status $?"' sh "$name"
}

# (a) the resolver on the host's loopback, as systemd-resolved's stub.
printf 'nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch sbx-test\n' >"$w/resolv-lo"
mount --bind "$w/resolv-lo" /etc/resolv.conf
record dns_lo      resolve some-name.sbx-test --outbound
record dns_lo_srch resolve some-name --outbound
record dns_lo_nx   resolve other.sbx-test --outbound
record dns_lo_file $SBX_AS "$SBX" run --outbound -- cat /etc/resolv.conf
record dns_lo_ro   $SBX_AS "$SBX" run --outbound -- \
    awk '$5 == "/etc/resolv.conf" { split($6, o, ","); top = o[1] } END { print top }' \
    /proc/self/mountinfo
record dns_off     resolve some-name.sbx-test
record dns_off_file $SBX_AS "$SBX" run -- cat /etc/resolv.conf
record dns_direct  $SBX_AS "$SBX" run --outbound -- "$NP" udp 127.0.0.53 "$ro"
record dns_other   $SBX_AS "$SBX" run --outbound -- "$NP" udp 169.254.1.1 "$ro"
record dns_other_tcp $SBX_AS "$SBX" run --outbound -- "$NP" tcp 127.0.0.53 "$ro"
record dns_verbose sh -c "$SBX_AS $SBX run -v --outbound -- true 2>&1 | grep 'DNS'"
$SBX_AS "$SBX" run --outbound --report "$w/out/record.json" -- true
record dns_report  sed -n 's/.*"dns": *"\([^"]*\)".*/\1/p' "$w/out/record.json"
umount /etc/resolv.conf

# (b) a resolver beyond the host, in the server netns.
printf 'nameserver 10.213.0.1\n' >"$w/resolv-s"
mount --bind "$w/resolv-s" /etc/resolv.conf
record dns_s       resolve some-name.sbx-test --outbound
umount /etc/resolv.conf

# No IPv4 nameserver: a warning, the file left as it is; a file too big to
# be a resolv.conf: exit 125 naming it, the command never started.
printf 'nameserver ::1\n' >"$w/resolv-v6"
mount --bind "$w/resolv-v6" /etc/resolv.conf
record dns_v6only sh -c "$SBX_AS $SBX run --outbound -- cat /etc/resolv.conf; echo status \$?"
umount /etc/resolv.conf
head -c 2000000 /dev/zero | tr '\0' '#' >"$w/resolv-huge"
mount --bind "$w/resolv-huge" /etc/resolv.conf
record dns_huge sh -c "$SBX_AS $SBX run --outbound -- echo ran; echo status \$?"
umount /etc/resolv.conf

# (c) /etc/resolv.conf a symlink, as systemd makes it: the link's target
# is in this script's directory, which the sandbox's private /tmp hides.
# /etc is replaced by a copy (unreadable files left out) with the link.
mkdir "$w/etc"
cp -a /etc/. "$w/etc/" 2>/dev/null
rm -f "$w/etc/resolv.conf"
ln -s "$w/stub-resolv.conf" "$w/etc/resolv.conf"
printf 'nameserver 127.0.0.53\n' >"$w/stub-resolv.conf"
chmod a+r "$w/stub-resolv.conf"
mount --bind "$w/etc" /etc
record dns_link    resolve some-name.sbx-test --outbound
record dns_link_file $SBX_AS "$SBX" run --outbound -- cat /etc/resolv.conf
umount /etc
# No query may have reached a resolver other than through pasta.
record dns_queries_lo cat "$w/dns-lo.log"
record dns_queries_s  cat "$w/dns-s.log"
rm -rf "$w"
# Everything started here dies with this PID namespace.
