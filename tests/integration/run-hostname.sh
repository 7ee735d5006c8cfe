#!/bin/sh
# The sandbox's hostname resolves inside, to its own loopback, as a host's
# does (issue 17): /etc/hosts inside is the host's with a line for it in
# front, a read-only file made by sbx (hosts.h). The host's file is left
# as it was.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 10
make_tmpdir
host_sum=$(cksum </etc/hosts)
name=sbxhost$$
run_cmd getent hosts $name
is "$status" 2 "outside, '$name' does not resolve (getent: not found)"
printf '[profile]\ninclude = default\n[namespaces]\nhostname = %s\n' $name >"$tmpdir/named.ini"
sbx_run -p "$tmpdir/named.ini" -- getent hosts $name
is "$out" "127.0.1.1       $name" "inside, getent hosts $name: 127.0.1.1"
sbx_run -- /usr/bin/python3 -c 'import socket; n = socket.gethostname(); print(n, socket.gethostbyname(n), socket.gethostbyaddr("127.0.1.1")[0])'
is "$out" "sbx 127.0.1.1 sbx" "inside, gethostbyname(gethostname()) and the reverse lookup agree"
sbx_run -- getent hosts localhost
like "$out" "localhost" "localhost still resolves (the host's lines follow)"
sbx_run -- sh -c 'tail -n +3 /etc/hosts'
is "$out" "$(cat /etc/hosts)" "inside, the rest of /etc/hosts is the host's file"
sbx_run -- sh -c 'echo x >>/etc/hosts'
isnt "$status" 0 "inside, /etc/hosts is read-only"
is "$(cksum </etc/hosts)" "$host_sum" "the host's /etc/hosts is unchanged"
sbx_run -v -- true
like "$err" "mount: /etc/hosts will be a file made by sbx" "-v names the file"
printf '[profile]\ninclude = default\n[namespaces]\nuts = no\n' >"$tmpdir/nouts.ini"
sbx_run -p "$tmpdir/nouts.ini" -- cat /etc/hosts
is "$out" "$(cat /etc/hosts)" "uts = no: the hostname is the host's, and so is /etc/hosts"
sbx_run -p "$tmpdir/named.ini" --hide /etc/hosts -- cat /etc/hosts
is "$out" "" "a profile's rule on /etc/hosts wins (--hide: empty)"
done_testing
