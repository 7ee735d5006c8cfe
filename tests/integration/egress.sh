#!/bin/sh
# [network] allow: the egress proxy of the supervisor is the only way out
# of the sandbox. Allowed and refused names over HTTP CONNECT, plain HTTP
# and SOCKS5; names resolving to the host's loopback, a private address
# or the host's own address; IP literals; attacks on the request (Host
# header against the URI, user info, bare LF, NUL, UTF-8, long lines,
# pipelining); DNS for refused names reaching no resolver; a tool that
# ignores the proxy variables failing at once and named in the ledger.
# Each attack first works without sbx in the same world.
#
# Nothing here contacts another machine: the world is network namespaces
# the test builds (egress-world.sh). Root builds it with `unshare --net`;
# an unprivileged user inside a user namespace of its own, and runs sbx
# from a nested one mapped back to its uid: the same checks, both ways.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
make_tmpdir
trap 'rm -rf "$tmpdir"' EXIT
command -v curl >/dev/null || { skip "curl is not installed (tests/debian-packages)"; done_testing; exit; }
command -v jq >/dev/null || { skip "jq is not installed (tests/debian-packages)"; done_testing; exit; }

# The profile engine: entries checked at load, with file:line.
profile bad <<EOT
[network]
allow = pkg.test *.ok.test 10.0.0.0/8 @npm
allow = a*.test
allow = @nope
EOT
run_cmd "$SBX" profile show "$prof"
is "$status" 125 "a bad allow entry: exit 125"
like "$err" "bad.ini:5: allow: 'a*.test': '*' is allowed only as a whole first label" \
    "the message names the file, line and entry"
like "$err" "bad.ini:6: allow: '@nope': no such preset" "an unknown preset is refused"
profile both <<EOT
[network]
outbound = yes
allow = pkg.test
EOT
run_cmd "$SBX" run -p "$prof" -- true
is "$status" 125 "allow with outbound = yes: refused"
like "$err" "allow = pkg.test contradicts outbound = yes" "and the message says why"

chmod 755 "$tmpdir"
: >"$tmpdir/results"
chmod 666 "$tmpdir/results"
world="$SBX_TOP_SRCDIR/tests/integration/egress-world.sh"
if is_root; then
    run_cmd unshare --net --mount --pid --fork --mount-proc \
        env SBX_AS= SBX="$SBX" SBX_TOP_SRCDIR="$SBX_TOP_SRCDIR" sh "$world" "$tmpdir/results"
else
    run_cmd unshare --user --map-root-user --net --mount --pid --fork --mount-proc \
        env SBX_AS="unshare --user --map-user=$(id -u) --map-group=$(id -g)" \
        SBX="$SBX" SBX_TOP_SRCDIR="$SBX_TOP_SRCDIR" sh "$world" "$tmpdir/results"
fi
[ "$status" = 0 ] || diag "building the test world failed: $err"
r() { sed -n "s/^$1=//p" "$tmpdir/results" | sed 's/ *$//'; }
S="server GET /whoami host="
H="host GET /whoami host="

is "$(r direct_pkg)" "${S}pkg.test" "the world: pkg.test answers without sbx"
is "$(r http_pkg)" "${S}pkg.test" "allowed over plain HTTP (http_proxy)"
is "$(r connect_pkg)" "${S}pkg.test" "allowed over HTTP CONNECT"
is "$(r socks_pkg)" "${S}pkg.test" "allowed over SOCKS5 with the name"
is "$(r port_8000)" "${S}pkg.test:8000" "an entry with a port opens that port"
is "$(r env_vars)" "ALL_PROXY=socks5h://127.0.0.1:3128 HTTPS_PROXY=http://127.0.0.1:3128 HTTP_PROXY=http://127.0.0.1:3128 NODE_USE_ENV_PROXY=1 NO_PROXY=localhost,127.0.0.1,::1 all_proxy=socks5h://127.0.0.1:3128 http_proxy=http://127.0.0.1:3128 https_proxy=http://127.0.0.1:3128 no_proxy=localhost,127.0.0.1,::1" \
    "the proxy variables, upper and lower case"
like "$(r resolv_file)" "nameserver 127.0.0.1" "resolv.conf names the stub"
is "$(r case_dot)" "${S}PKG.TEST." "upper case and a trailing dot are the same name"

is "$(r direct_evil)" "${S}evil.test" "the world: evil.test answers without sbx"
is "$(r http_evil)" "sbx: not in [network] allow" "refused over plain HTTP, with the reason"
like "$(r connect_evil)" "curl 56" "refused over CONNECT"
like "$(r socks_evil)" "curl 97" "refused over SOCKS5"
is "$(r evil_case)" "sbx: not in [network] allow" "refused in upper case with a trailing dot too"
is "$(r direct_9000)" "${S}pkg.test:9000" "the world: pkg.test:9000 answers without sbx"
like "$(r connect_9000)" "curl 56" "CONNECT to an allowed name on another port: refused"
is "$(r http_9000)" "sbx: allow lists pkg.test, but not on port 9000" "and the reason names the port"

is "$(r direct_loop)" "${H}loop.test" "the world: loop.test leads to the host's loopback service"
is "$(r http_loop)" "sbx: loop.test resolves to 127.0.0.1 (loopback), which no address entry of allow lists on port 80" \
    "a listed name resolving to the host's loopback: refused"
is "$(r direct_priv)" "server GET /whoami host=priv.test" "the world: priv.test (10.99.0.1) answers"
like "$(r http_priv)" "resolves to 10.99.0.1 (private (10.0.0.0/8))" "a listed name resolving to a private address: refused"
is "$(r direct_self)" "${H}self.test" "the world: self.test leads to the host's own address"
like "$(r http_self)" "resolves to 198.19.0.2 (an address of the host)" "a listed name resolving to the host's address: refused"
is "$(r socks_loop)" "reply 2" "the same over SOCKS5: not allowed by ruleset"
is "$(r direct_rebind)" "${H}rebind.test" "the world: rebind.test's loopback address reaches the host"
is "$(r http_rebind)" "${S}rebind.test" "a name with a loopback and a public address: only the public one is used"
is "$(r dns_rebind)" "rcode 0 198.18.0.1" "and the stub hands out only the public one"
is "$(r dns_loop)" "rcode 2" "the stub answers SERVFAIL for a name leading to loopback"

is "$(r direct_lit)" "${S}198.18.0.1" "the world: 198.18.0.1 answers"
is "$(r http_lit)" "sbx: an IP literal, and no address entry of allow lists it on port 80" "an IP literal: refused (HTTP)"
like "$(r connect_lit)" "curl 56" "an IP literal: refused (CONNECT)"
is "$(r socks_lit)" "reply 2" "an IP literal: refused (SOCKS5)"
is "$(r direct_v6)" "${H}[::1]" "the world: [::1] answers"
is "$(r socks_v6)" "reply 2" "an IPv6 literal over SOCKS5: refused"
is "$(r connect_v6)" "HTTP/1.1 403 Forbidden" "an IPv6 literal over CONNECT: refused"
is "$(r shorthand)" "HTTP/1.1 403 Forbidden" "an address as one number (2130706433): refused"
is "$(r lit_listed)" "${S}198.18.0.1" "an address entry opens the literal"
is "$(r lit_loop)" "${H}loop.test" "and an address entry for 127/8 opens a name leading there"

is "$(r direct_host)" "${S}evil.test" "the world: a server acts on the Host header"
is "$(r smuggle_host)" "HTTP/1.1 403 Forbidden" "Host header naming another host than the URI: refused"
is "$(r two_hosts)" "HTTP/1.1 400 Bad Request" "two Host headers: refused"
is "$(r direct_user)" "${S}evil.test" "the world: http://pkg.test@evil.test/ goes to evil.test"
is "$(r userinfo)" "HTTP/1.1 403 Forbidden" "user info in the URI: refused"
is "$(r bare_lf)" "HTTP/1.1 400 Bad Request" "bare LF line endings: refused"
is "$(r utf8_name)" "HTTP/1.1 403 Forbidden" "a UTF-8 name: refused"
is "$(r nul_name)" "HTTP/1.1 400 Bad Request" "a NUL in the name: refused"
is "$(r origin_form)" "HTTP/1.1 400 Bad Request" "a request without an absolute URI: refused"
is "$(r long_line)" "HTTP/1.1 431 Request Header Fields Too Large" "a 20 000-byte request line: refused"
is "$(r after_long)" "${S}pkg.test" "and the proxy still serves the next one"
is "$(r direct_sni)" "sni evil.test" "the world: a TLS server reads which site from the hello"
is "$(r sni_ok)" "sni pkg.test" "CONNECT pkg.test:443 with a hello for pkg.test: through"
is "$(r sni_other)" "(closed)" "CONNECT pkg.test:443 with a hello for evil.test: cut before the server sees it"
is "$(r sni_socks)" "(closed)" "the same over SOCKS5"
is "$(r sni_socks_ok)" "sni PKG.test." "a hello naming the same name in another case: through"
like "$(r sni_summary)" "pkg.test:443 (CONNECT) x1: the TLS hello asks for evil.test, not pkg.test" "and the refusal says why"
is "$(r pipelined)" "HTTP/1.0 200 OK" "a pipelined request for another host rides the first connection only"

is "$(r tunnel80)" "sbx: the request in the tunnel names evil.test, not pkg.test" "a port-80 tunnel: a request for another Host is refused"
is "$(r tunnel80_ok)" "${S}pkg.test" "a port-80 tunnel: a request for the tunnel's host goes through"
is "$(r tunnel_keep)" "hosts pkg.test:8081" "a second request in a tunnel naming another Host never reaches the server"
is "$(r tunnel_two)" "hosts pkg.test:8081 pkg.test:8081" "each request in a tunnel is checked, and the checked ones all go through"
like "$(r tunnel_summary)" "pkg.test:80 (CONNECT) x1: the request in the tunnel names evil.test, not pkg.test" "and the refusal says why"
is "$(r direct_pipe)" "hosts pkg.test:8081 evil.test" "the world: the server reads a pipelined second request"
is "$(r pipe_raw)" "hosts pkg.test:8081" "absolute-form: nothing after the first request reaches the server"
is "$(r clte)" "HTTP/1.1 400 Bad Request" "Content-Length with Transfer-Encoding: refused before anything is sent"
is "$(r body_cl)" "hosts pkg.test:8081" "a Content-Length body is passed as the body, and nothing after it"
is "$(r body_chunked)" "hosts pkg.test:8081" "a chunked body is passed as the body, and nothing after it"
is "$(r te_bad)" "HTTP/1.1 400 Bad Request" "a Transfer-Encoding other than chunked: refused"
is "$(r cl_two)" "HTTP/1.1 400 Bad Request" "two Content-Length headers: refused"
is "$(r post_ok)" "server POST /whoami host=pkg.test" "a POST with a body goes through"
is "$(r hello_nosni)" "(closed)" "a TLS hello naming no server: refused"
is "$(r hello_ech)" "(closed)" "a TLS hello with ECH (the outer name the listed one): refused"
is "$(r hello_esni)" "(closed)" "a TLS hello with ESNI: refused"
is "$(r hello_notls)" "(closed)" "a TLS record that is no handshake: refused"
is "$(r hello_plain)" "sni pkg.test" "the same hand-made hello without them: through"
like "$(r lit_port)" "sbx: loop.test resolves to 127.0.0.1 (loopback), which no address entry of allow lists on port 80" \
    "allow = loop.test 127.0.0.1:9999: loop.test does not reach port 80 of 127.0.0.1"
is "$(r direct_conn)" "server GET /whoami host=conn.test" "the world: conn.test is the host's neighbour on its link"
like "$(r http_conn)" "resolves to 198.19.0.1 (on 198.19.0.0/24, a subnet the host is connected to)" "a listed name leading to a connected subnet: refused"
is "$(r direct_doc)" "server GET /whoami host=doc.test" "the world: doc.test (192.0.2.1) answers"
like "$(r http_doc)" "resolves to 192.0.2.1 (documentation (192.0.2.0/24))" "a listed name leading to a documentation range: refused"
like "$(r flood)" "evil.test:80 (HTTP) x1: not in [network] allow" "200 refused names, then the real target: in the summary"
like "$(r flood)" "201 destinations refused" "and every refusal counted"
is "$(r flood_record)" "[201,1,0]" "and in the record, which keeps every row"
like "$(r flood_ring)" "evil.test:80 (HTTP) x1: not in [network] allow" "1100 refused names, then the real target: in the summary"
like "$(r flood_ring)" "... 1091 more refused destinations (see --report), then:" "and the ones between counted"
is "$(r flood_ring_record)" "[1101,1024,2,77,77]" "the record keeps the first 512 rows and the last 512, and counts the 77 pushed out"
like "$(r dns_nul)" 'pkg\x00x.evil.test (DNS)' "a NUL in a DNS name is shown escaped, not cut"

is "$(r dns_direct_evil)" "rcode 0 198.18.0.1" "the world: the resolver answers evil.test"
is "$(r dns_pkg)" "198.18.0.1      pkg.test" "DNS inside: a listed name resolves"
is "$(r dns_evil)" "status 2" "DNS inside: an unlisted name does not"
is "$(r dns_txt)" "rcode 0" "a TXT query for a listed name: no record (never forwarded)"
is "$(r dns_exfil)" "rcode 3" "a query carrying data in an unlisted name: NXDOMAIN"
is "$(r dns_direct_dot)" "rcode 0 198.18.0.1" "the world: a resolver joining labels reads one label \"pkg.test\" as pkg.test"
is "$(r dns_dotlabel)" "rcode 1" "a name whose one label holds a dot (\"pkg.test\" as one label): FORMERR"
is "$(r dns_log)" "pkg.test 1" "the test resolver saw only the listed name's A query"
is "$(r dns_resolver)" "sbx: the resolver answered NXDOMAIN" "SBX_TEST_RESOLVER: pkg.test is not in the second zone"
is "$(r dns_resolver2)" "${S}only.test" "SBX_TEST_RESOLVER: names come from that resolver"

is "$(r direct_tool)" "connected" "the world: a direct connection works without sbx"
like "$(r tool)" "Network is unreachable" "a tool that ignores the proxy: no route"
unlike "$(r tool)" " ms" "at once, not after a time-out"
like "$(r tool)" "connect(AF_INET 198.18.0.1:80) x1 -> ENETUNREACH" "the ledger records the call"
like "$(r tool)" "no route: this tool ignores HTTP_PROXY" "and says the tool ignored the proxy"
unlike "$(r tool)" "DNS stub gave" "an address the stub never handed out is not named"
like "$(r tool_named)" "connect(AF_INET 198.18.0.1:8000) x1 -> ENETUNREACH" "a tool that resolved a name, then connected directly (not to 80 or 443)"
like "$(r tool_named)" "(the DNS stub gave this address for pkg.test: reach it through the proxy)" \
    "the summary says which name the address was the answer for"
like "$(r tool_v6)" "Network is unreachable" "IPv6 too"
is "$(r tool_lo)" "connected" "the proxy listens before the command starts"
like "$(r tool_none)" "Network is unreachable" "outbound = no: no route either (the baseline)"

is "$(r node_direct)" "${S}pkg.test" "the world: node's fetch reaches pkg.test without sbx"
is "$(r node_fetch)" "${S}pkg.test" "node's fetch without proxy variables: an allowed name, through transparent egress"
is "$(r node_evil)" "error ENOTFOUND" "node's fetch to an unlisted name: no address to connect to"
is "$(r node_addr)" "error ENETUNREACH" "node's fetch to an address the stub never handed out: no route"
like "$(r node_summary)" "${S}pkg.test" "node through transparent egress, sbx summarising"
unlike "$(r node_summary)" "ENETUNREACH" "a transparent connection is no denial"
if command -v java >/dev/null; then
    is "$(r java_fetch)" "${S}pkg.test" "Java's HttpClient without a proxy: an allowed name, through transparent egress"
    is "$(r java_evil)" "error UnresolvedAddressException" "Java's HttpClient to an unlisted name: refused"
else
    skip "java is not installed (tests/debian-packages: openjdk-17-jdk-headless)"
    skip "java is not installed (tests/debian-packages: openjdk-17-jdk-headless)"
fi
is "$(r direct_host_other)" "sbx: not in [network] allow" "transparent HTTP to a handed-out address with another Host: refused"
is "$(r direct_keep)" "${S}pkg.test" "transparent HTTP: the request for the listed name goes through"
is "$(r direct_tls)" "sni pkg.test" "transparent TLS: a hello for the listed name goes through"
is "$(r direct_tls_other)" "(closed)" "transparent TLS: a hello for another name is cut"
like "$(r direct_port)" "connect(AF_INET 198.18.0.1:9000) x1 -> ENETUNREACH" "a handed-out address on another port: still no route"

like "$(r strict_status)" "status 3" "--strict: a refused destination after exit 0 is exit 3"
like "$(r strict_status)" "1 destination refused by [network] allow: evil.test:80 (HTTP) x1: not in [network] allow" \
    "the summary names the destination, the way and why"
like "$(r strict_clean)" "status 0" "--strict: allowed destinations only: exit 0"
is "$(r report_egress)" '{"allowed":1,"refused":1,"rows":[["evil.test",80,"HTTP",1]]}' \
    "the run record: allowed and refused counts and the row"
is "$(r report_verdict)" "false_green_suspected" "a refusal makes exit 0 a suspected false green"
like "$(r report_state)" "proxy on the sandbox's 127.0.0.1:3128" "network.state.allow says where the proxy is"
is "$(r report_env)" "9" "the record lists the proxy variables sbx set (NODE_USE_ENV_PROXY too)"
is "$(r report_denial)" '[["connect","198.18.0.1:443","ENETUNREACH"]]' "the direct connect is a denial in the record"
done_testing
