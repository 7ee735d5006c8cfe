#!/bin/bash
# [network] allow against outbound = yes (pasta) on the same test network,
# run by bench.sh (BENCH_PARTS=egress) inside namespaces of its own: a
# server namespace at 198.18.0.1 and .3 behind a veth pair and a gateway,
# as in the tests (tests/integration/egress-net.sh), with the tests' DNS
# server naming them big.test and small.test. Nothing leaves the machine.
#   - throughput: one download of BENCH_EGRESS_MB MiB (default 1024) with
#     curl through sbx's proxy, through transparent egress (curl ignoring
#     the proxy variables) and through pasta (target: each >= 80 % of
#     pasta);
#   - connection latency: the median time to the first byte of a tiny
#     response over BENCH_EGRESS_CONNS fresh connections, made by one curl
#     inside one sandbox, through each (target: proxy and transparent <=
#     pasta + 1 ms);
#   - start-up: `sbx run -- true` with allow and with outbound = no
#     (target: allow <= outbound = no + 2 ms).
set -u
export LC_ALL=C
MB=${BENCH_EGRESS_MB:-1024}
CONNS=${BENCH_EGRESS_CONNS:-200}
w=$(mktemp -d /tmp/sbx-bench-egress.XXXXXX)
chmod 755 "$w"
ip link set lo up
unshare --net sleep 1000 &
spid=$!
while [ "$(readlink /proc/$spid/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.02; done
ns() { nsenter --net=/proc/$spid/ns/net "$@"; }
ip link add sbxb-h type veth peer name sbxb-s
ip link set sbxb-s netns $spid
ip addr add 198.19.0.2/24 dev sbxb-h
ip link set sbxb-h up
ip route add default via 198.19.0.1
ns ip link set lo up
ns ip addr add 198.19.0.1/24 dev sbxb-s
ns ip addr add 198.18.0.1/32 dev sbxb-s
ns ip addr add 198.18.0.3/32 dev sbxb-s
ns ip link set sbxb-s up
# the tests' DNS server and the range they count as public (sbx-profile(5))
T=$(dirname "$0")/../tests/integration
printf 'big.test 198.18.0.1\nsmall.test 198.18.0.3\n' >"$w/zone"
python3 "$T/egress-dns.py" 127.0.0.1 53 "$w/zone" /dev/null "$w/dns.ready" &
dpid=$!
printf 'nameserver 127.0.0.1\n' >"$w/resolv.conf"
mount --bind "$w/resolv.conf" /etc/resolv.conf
export SBX_TEST_PUBLIC=198.18.0.0/15
bytes=$((MB * 1024 * 1024))
printf '#!/bin/sh\nprintf "HTTP/1.0 200 OK\\r\\nContent-Length: %s\\r\\n\\r\\n"\nexec head -c %s /dev/zero\n' \
    $bytes $bytes >"$w/big.sh"
printf '#!/bin/sh\nprintf "HTTP/1.0 200 OK\\r\\nContent-Length: 2\\r\\n\\r\\nok"\n' >"$w/small.sh"
ns socat TCP-LISTEN:80,bind=198.18.0.1,fork,reuseaddr,backlog=512 EXEC:"sh $w/big.sh" 2>/dev/null &
ns socat TCP-LISTEN:81,fork,reuseaddr,backlog=512 EXEC:"sh $w/small.sh" 2>/dev/null &
ns socat TCP-LISTEN:80,bind=198.18.0.3,fork,reuseaddr,backlog=512 EXEC:"sh $w/small.sh" 2>/dev/null &
sleep 0.5
printf '[network]\nallow = 198.18.0.1:80 198.18.0.1:81\n' >"$w/allow.ini"
printf '[network]\nallow = big.test small.test\n' >"$w/names.ini"
printf '[network]\noutbound = yes\n' >"$w/pasta.ini"
printf '[network]\noutbound = no\n' >"$w/none.ini"
chmod a+r "$w"/*.ini

speed() { # PROFILE CURL-OPTIONS...: MB/s of the download
    "$SBX" run -q -p "$w/$1.ini" -- curl -s -o /dev/null -w '%{speed_download}\n' "${@:2}" \
        http://198.18.0.1/ | awk '{ printf "%.0f", $1 / 1048576 }'
}
echo "== [network] allow: throughput, one $MB MiB download (target: proxy >= 80 % of pasta)"
p1=$(speed allow) ; q1=$(speed pasta --noproxy '*'); p2=$(speed allow); q2=$(speed pasta --noproxy '*')
proxy=$(( (p1 + p2) / 2 )) pasta=$(( (q1 + q2) / 2 ))
# by name: the proxy, and transparent egress (curl ignoring the variables
# resolves big.test through the stub and connects to its address)
named() { # CURL-OPTIONS...: MB/s of the download of http://big.test/
    "$SBX" run -q -p "$w/names.ini" -- curl -s -o /dev/null -w '%{speed_download}\n' "$@" \
        http://big.test/ | awk '{ printf "%.0f", $1 / 1048576 }'
}
n1=$(named); t1=$(named --noproxy '*'); n2=$(named); t2=$(named --noproxy '*')
byname=$(( (n1 + n2) / 2 )) direct=$(( (t1 + t2) / 2 ))
echo "  through the proxy  $proxy MiB/s ($p1, $p2)"
echo "  proxy, by name     $byname MiB/s ($n1, $n2)"
echo "  transparent        $direct MiB/s ($t1, $t2)"
echo "  through pasta      $pasta MiB/s ($q1, $q2)"
echo "  proxy / pasta      $(awk -v a=$proxy -v b=$pasta 'BEGIN { printf "%.0f %%", 100 * a / b }')"
echo "  transparent / pasta $(awk -v a=$direct -v b=$pasta 'BEGIN { printf "%.0f %%", 100 * a / b }')"

ttfb() { # PROFILE URL CURL-OPTIONS...: median ms to the first byte, CONNS fresh connections
    local prof=$1 url=$2 urls="" i=0
    shift 2
    while [ $i -lt "$CONNS" ]; do urls="$urls $url"; i=$((i + 1)); done
    "$SBX" run -q -p "$w/$prof.ini" -- sh -c "for u in $urls; do curl -s -o /dev/null -w '%{time_starttransfer}\n' $* \$u; done" |
        sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] * 1000 }'
}
echo "== [network] allow: connection latency, median time to the first byte of $CONNS connections (target: proxy <= pasta + 1 ms)"
lp=$(ttfb allow http://198.18.0.1:81/) lq=$(ttfb pasta http://198.18.0.1:81/ --noproxy "'*'")
ln=$(ttfb names http://small.test/) lt=$(ttfb names http://small.test/ --noproxy "'*'")
ld=$(for i in $(seq "$CONNS"); do curl -s -o /dev/null -w '%{time_starttransfer}\n' http://198.18.0.1:81/; done |
    sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] * 1000 }')
echo "  through the proxy  $lp ms"
echo "  proxy, by name     $ln ms"
echo "  transparent        $lt ms"
echo "  through pasta      $lq ms"
echo "  without sbx        $ld ms"
echo "  added by the proxy over pasta: $(awk -v a=$lp -v b=$lq 'BEGIN { printf "%.3f", a - b }') ms"
echo "  added by transparent egress over the proxy by name: $(awk -v a=$lt -v b=$ln 'BEGIN { printf "%.3f", a - b }') ms"
# the same as ratios, which bench/ratios.sh compares with the recorded ones
# (the differences in ms are absolute times: not comparable across loads)
echo "  ratio proxy/pasta latency: $(awk -v a=$lp -v b=$lq 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')"

echo "== [network] allow: start-up, sbx run -- true (target: allow <= outbound = no + 2 ms)"
hyperfine -N -w 10 -r "${BENCH_RUNS:-200}" --export-json "$w/start.json" \
    "$SBX run -q -p $w/allow.ini -- true" "$SBX run -q -p $w/none.ini -- true" \
    "$SBX run -q -p $w/pasta.ini -- true" >/dev/null 2>&1
jq -r '.results[] | "  \(.median * 1000 | . * 100 | round / 100) ms  \(.command | sub(".*/"; "") | sub(".ini.*"; ""))"' \
    "$w/start.json" | sed 's/  allow$/  allow (proxy and DNS stub)/; s/  none$/  outbound = no/; s/  pasta$/  outbound = yes (pasta)/'
jq -r '[.results[] | {key: (.command | sub(".*/"; "") | sub(".ini.*"; "")), value: .median}] | from_entries
    | "  ratio allow/outbound = no start-up: \(.allow / .none * 1000 | round / 1000)"' "$w/start.json"
kill $spid $dpid 2>/dev/null
rm -rf "$w"
