#!/bin/sh
# `sbx probe` in environments the test builds, without sbx's sandbox:
#  - a network namespace whose lo is down: bind works, connect fails
#    (ENETUNREACH), so network tests cannot be validated (exit 1);
#  - seccomp filters like an agent sandbox's: socket() or bind() denied with
#    EPERM, user namespaces denied, unshare killing the process;
#  - a low RLIMIT_NOFILE.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir

deny="$SBX_TEST_HELPERS/seccomp-deny"
j() { jq -r "$1" "$tmpdir/p.json"; }
probe_json() { # probe_json [WRAPPER...]: runs "$@" $SBX probe --json into p.json, sets status
    "$@" "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>"$tmpdir/err"
    status=$?
    jq -e . "$tmpdir/p.json" >/dev/null 2>&1 || { diag "not JSON:"; diag "$(cat "$tmpdir/p.json" "$tmpdir/err")"; }
}

# --- lo down: a new user+net namespace (unshare(1) maps us to root there,
# so this works as root and unprivileged).
if unshare --user --map-root-user --net true 2>/dev/null; then
    probe_json unshare --user --map-root-user --net
    is "$status" 1 "lo down: exit 1 (network tests cannot be validated)"
    is "$(j .checks.loopback_ipv4_bind.status)" ok "lo down: bind on 127.0.0.1 still succeeds"
    is "$(j .checks.loopback_ipv4_connect.status)/$(j .checks.loopback_ipv4_connect.errno)" \
        unavailable/ENETUNREACH "lo down: connect fails with ENETUNREACH"
    like "$(j .checks.loopback_ipv4_connect.detail)" "loopback interface is down" "lo down: detail says lo is down"
    is "$(j .checks.loopback_ipv6_bind.status)/$(j .checks.loopback_ipv6_bind.errno)" \
        unavailable/EADDRNOTAVAIL "lo down: ::1 is not even bindable (EADDRNOTAVAIL)"
    is "$(j .checks.unix_connect.status)" ok "lo down: AF_UNIX still works"
    is "$(j .verdict.network_tests.ok)" false "lo down: network verdict false"
    like "$(j .verdict.network_tests.reason)" "loopback_ipv4_connect unavailable (ENETUNREACH)" \
        "lo down: the verdict names the failing check"
    unshare --user --map-root-user --net "$SBX" probe --tap </dev/null >"$tmpdir/p.tap" 2>/dev/null
    grep -q '^not ok 5 - loopback_ipv4_connect: unavailable ENETUNREACH' "$tmpdir/p.tap"
    ok $? "lo down: --tap says not ok for loopback_ipv4_connect"
    grep -q '^ok 4 - loopback_ipv4_bind: ok' "$tmpdir/p.tap"
    ok $? "lo down: --tap says ok for loopback_ipv4_bind"
    is "$(j .checks.user_namespace.status)" ok "lo down: a nested user namespace still works"
else
    for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
        skip "unshare --user --net is refused here: cannot make a netns with lo down"
    done
fi

# --- socket(AF_INET*) denied with EPERM, as agent sandboxes do
probe_json "$deny" --inet --
is "$status" 1 "socket denied: exit 1"
for c in loopback_ipv4_bind loopback_ipv4_connect loopback_ipv6_bind loopback_ipv6_connect; do
    is "$(j .checks.$c.status)/$(j .checks.$c.errno)/$(j .checks.$c.pass)" denied/EPERM/false \
        "socket denied: $c denied with EPERM"
done
like "$(j .checks.loopback_ipv4_bind.detail)" "socket(AF_INET, SOCK_STREAM): Operation not permitted" \
    "socket denied: detail names the call"
is "$(j .checks.unix_bind.status)" ok "socket denied: AF_UNIX unaffected"
is "$(j .checks.seccomp.value)" filter "socket denied: the inherited filter is seen"
is "$(j .checks.no_new_privs.value)" 1 "socket denied: no_new_privs is seen"
is "$(j .verdict.network_tests.ok)" false "socket denied: network verdict false"
like "$(j .verdict.network_tests.reason)" "proves nothing" "socket denied: warns that an EPERM skip proves nothing"

# --- bind denied (sockets allowed): the denial shows on bind, and the
# connect that depends on it is reported denied, not ok.
probe_json "$deny" --bind --
is "$status" 1 "bind denied: exit 1"
is "$(j .checks.loopback_ipv4_bind.status)/$(j .checks.loopback_ipv4_bind.errno)" denied/EPERM \
    "bind denied: loopback_ipv4_bind denied EPERM"
like "$(j .checks.loopback_ipv4_bind.detail)" "bind(127.0.0.1:0)" "bind denied: detail names bind and the address"
is "$(j .checks.loopback_ipv4_connect.status)" denied "bind denied: connect not reported ok"
is "$(j .checks.unix_bind.status)/$(j .checks.unix_bind.errno)" denied/EPERM "bind denied: AF_UNIX bind denied too"

# --- user namespaces denied by seccomp: the sandbox verdict fails and the
# detail blames the filter; network tests are still fine (exit 0).
probe_json "$deny" --userns --
is "$status" 0 "userns denied: exit 0 (network tests can still be validated)"
is "$(j .checks.user_namespace.status)/$(j .checks.user_namespace.errno)" denied/EPERM \
    "userns denied: user_namespace denied EPERM"
like "$(j .checks.user_namespace.detail)" "seccomp filter" "userns denied: detail names the seccomp filter"
is "$(j .checks.net_namespace.status)" denied "userns denied: net_namespace denied too"
like "$(j .checks.net_namespace.detail)" "not tried" "userns denied: net_namespace says it was not tried"
is "$(j .verdict.sandbox.ok)" false "userns denied: sandbox verdict false"

# --- unshare kills: the probe survives its child and says so
probe_json "$deny" --kill-unshare --
is "$status" 0 "unshare kills: the probe survives (exit 0)"
is "$(j .checks.user_namespace.status)" denied "unshare kills: user_namespace denied"
like "$(j .checks.user_namespace.detail)" "(Bad system call) while creating namespaces" "unshare kills: detail names SIGSYS"

# --- descriptors
probe_json prlimit --nofile=256:256
is "$(j .checks.nofile_soft.value)/$(j .checks.nofile_soft.status)" 256/low "nofile 256: soft low"
is "$(j .checks.nofile_hard.value)/$(j .checks.nofile_hard.status)" 256/low "nofile 256: hard low"
is "$(j .verdict.descriptors.ok)" false "nofile 256: descriptors verdict false"
like "$(j .verdict.descriptors.reason)" "will NOT get enough" "nofile 256: says it will not"
is "$status" 0 "nofile 256: the exit status is the network verdict's alone"
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
    probe_json prlimit --nofile=1024:"$hard"
    is "$(j .checks.nofile_soft.status)/$(j .checks.nofile_hard.status)" low/ok "soft 1024: soft low, hard ok"
    like "$(j .verdict.descriptors.reason)" "--nofile max" "soft 1024: points at --nofile max"
else
    probe_json true
    is "$(j .checks.nofile_hard.status)" low "hard limit $hard here: nofile_hard low"
    like "$(j .verdict.descriptors.reason)" "only root" "hard limit $hard: says only root can raise it"
fi

done_testing
