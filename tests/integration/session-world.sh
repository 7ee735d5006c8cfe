#!/bin/sh
# Run by session-outbound.sh inside a network, mount and PID namespace of
# its own (and, unprivileged, a user namespace): a stand-in for "the
# host" whose only route leads to a second namespace the test owns, so
# that outbound traffic provably leaves the sandbox without any packet
# reaching a machine other than this one.
#
#   host stand-in (this script): lo, sbxt-h 10.213.0.2/30, default via .1
#   server netns: sbxt-s 10.213.0.1/30, net-probe TCP+UDP servers
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
rm -rf "$w"
# Everything started here dies with this PID namespace.
