# Sourced by egress-world.sh and egress-clients-world.sh: the world's
# network (the layout egress-world.sh describes), its DNS servers and HTTP
# servers, with $w, $T and $PY set. EGRESS_HTTP_ROOT, when set, is what the
# server namespace's HTTP server serves.
ip link set lo up
unshare --net sleep 1000 &
spid=$!
i=0
while [ "$(readlink /proc/$spid/ns/net)" = "$(readlink /proc/self/ns/net)" ] && [ $i -lt 100 ]; do
    sleep 0.02; i=$((i + 1)); done
ns() { nsenter --net=/proc/$spid/ns/net "$@"; }
ip link add sbxe-h type veth peer name sbxe-s
ip link set sbxe-s netns $spid
# the host stand-in's link: a connected subnet, local to sbx
ip addr add 198.19.0.2/24 dev sbxe-h
ip link set sbxe-h up
ip route add default via 198.19.0.1
ns ip link set lo up
ns ip addr add 198.19.0.1/24 dev sbxe-s
# "the internet": beyond the gateway, on no subnet of the host stand-in
ns ip addr add 198.18.0.1/32 dev sbxe-s
ns ip addr add 10.99.0.1/32 dev sbxe-s
ns ip addr add 192.0.2.1/32 dev sbxe-s
ns ip link set sbxe-s up
# For the test suite only (sbx-profile(5)): the benchmarking range these
# namespaces use counts as the internet at large; the host stand-in's own
# and connected addresses stay local all the same.
export SBX_TEST_PUBLIC=198.18.0.0/15

cat >"$w/zone" <<EOT
pkg.test 198.18.0.1
evil.test 198.18.0.1
loop.test 127.0.0.1
priv.test 10.99.0.1
self.test 198.19.0.2
conn.test 198.19.0.1
doc.test 192.0.2.1
rebind.test 127.0.0.1
rebind.test 198.18.0.1
EOT
printf 'only.test 198.18.0.1\n' >"$w/zone2"
$PY "$T/egress-dns.py" 127.0.0.1 53 "$w/zone" "$w/dns.log" "$w/dns.ready" &
$PY "$T/egress-dns.py" 127.0.0.1 5353 "$w/zone2" "$w/dns2.log" "$w/dns2.ready" &
ns $PY "$T/egress-http.py" server "$w/s.ready" 198.18.0.1:80 198.18.0.1:8000 198.18.0.1:9000 \
    10.99.0.1:80 198.19.0.1:80 192.0.2.1:80 &
$PY "$T/egress-http.py" host "$w/h.ready" 127.0.0.1:80 198.19.0.2:80 '[::1]:80' &
ns $PY "$T/egress-client.py" sniserve 198.18.0.1 443 "$w/tls.ready" &
ns $PY "$T/egress-client.py" rawserve 198.18.0.1 8081 "$w/raw.ready" &
i=0
while { [ ! -e "$w/tls.ready" ] || [ ! -e "$w/dns.ready" ] || [ ! -e "$w/dns2.ready" ] || [ ! -e "$w/s.ready" ] ||
        [ ! -e "$w/h.ready" ] || [ ! -e "$w/raw.ready" ]; } && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
printf 'nameserver 127.0.0.1\n' >"$w/resolv.conf"
mount --bind "$w/resolv.conf" /etc/resolv.conf
