#!/bin/sh
# Namespaces: every kind differs from the caller's; uid, PID and hostname
# inside are those the profile asks for. Run as root and as uid 65534.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 14
make_tmpdir

for ns in user mnt net pid ipc uts; do
    host=$(readlink /proc/self/ns/$ns)
    sbx_run -- readlink /proc/self/ns/$ns
    if [ "$status" = 0 ] && [ -n "$out" ] && [ "$out" != "$host" ]; then
        pass "$ns namespace differs from the host's ($out vs $host)"
    else
        fail "$ns namespace differs from the host's"; diag "status $status, inside '$out', host '$host', err: $err"
    fi
done

sbx_run -- id -u
is "$out" "$(id -u)" "uid inside is the caller's (uid = current)"
sbx_run -- id -g
is "$out" "$(id -g)" "gid inside is the caller's"
profile root <<INI
[namespaces]
uid = 0
gid = 0
INI
sbx_run -p "$prof" -- sh -c 'id -u; id -g'
is "$(echo $out)" "0 0" "uid = 0 and gid = 0 map the caller to root inside"
sbx_run -- sh -c 'cat /proc/self/uid_map'
is "$(echo $out)" "$(id -u) $(id -u) 1" "uid_map maps exactly one uid, the caller's"

# PID 1 is the sandbox's init, the command is its first child.
sbx_run -- sh -c 'echo $$'
is "$out" 2 "the command is PID 2 in its own PID namespace"
sbx_run -- sh -c 'cat /proc/1/cmdline | tr "\0" " "; echo; ls /proc | grep -c "^[0-9]"'
like "$out" "$SBX run" "PID 1 inside is sbx's init"

profile host <<INI
[namespaces]
hostname = sbx-test-host
INI
sbx_run -p "$prof" -- hostname
is "$out" "sbx-test-host" "hostname is set in the new UTS namespace"
sbx_run -- cat /proc/self/setgroups
is "$out" "deny" "setgroups is denied"

done_testing
