#!/bin/sh
# When the kernel or an outer sandbox refuses a step, sbx exits 125 naming
# the step, the errno, the likely cause and the fix, and never runs the
# command unsandboxed. Each refusal is produced for real, locally.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 23
make_tmpdir
witness="$tmpdir/ran"

# An outer seccomp filter refusing user namespaces (another agent's sandbox).
run_cmd "$H/deny-userns" "$SBX" run -- touch "$witness"
is "$status" 125 "seccomp-blocked clone: exit 125"
like "$err" "clone CLONE_NEWUSER" "names the step"
like "$err" "seccomp filter around sbx" "names the likely cause"
like "$err" "Operation not permitted" "names the errno"
[ ! -e "$witness" ]; ok $? "the command did not run unsandboxed"

# user.max_user_namespaces = 0: set in a user namespace of our own (the
# limit is per namespace), so the host is untouched.
if unshare -U --map-root-user true 2>/dev/null; then
    run_cmd unshare -U --map-root-user sh -c \
        'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" run -- touch "$1"' "$SBX" "$witness"
    is "$status" 125 "max_user_namespaces = 0: exit 125"
    like "$err" "user.max_user_namespaces = 0" "names the sysctl"
    like "$err" "sysctl -w user.max_user_namespaces=" "gives the fix"
    like "$err" "No space left on device" "names the errno (ENOSPC)"
    [ ! -e "$witness" ]; ok $? "the command did not run unsandboxed"

    # /proc not mountable: an overmounted /proc (as container runtimes
    # leave it) makes the kernel refuse a new proc mount in a user ns.
    run_cmd unshare -Urm sh -c \
        'mount -t tmpfs none /proc/sys && exec "$0" run -- touch "$1"' "$SBX" "$witness"
    is "$status" 125 "/proc not mountable: exit 125"
    like "$err" "/proc" "names /proc"
    like "$err" "Operation not permitted" "names the errno"
    like "$err" "fully visible" "names the likely cause"
    [ ! -e "$witness" ]; ok $? "the command did not run unsandboxed"
else
    for i in 1 2 3 4 5 6 7 8 9 10; do skip "unshare(1) cannot create a user namespace here"; done
fi

# user = no: other namespaces need CAP_SYS_ADMIN of the caller. Root with
# it gets them (and the command still no capability); anyone else is
# refused with the fix.
profile nouser <<INI
[namespaces]
user = no
[filesystem]
rw = $tmpdir
INI
capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
sbx_run -p "$prof" -- sh -c 'grep ^CapEff: /proc/self/status; readlink /proc/self/ns/user; touch "$1"' sh "$witness"
if [ $(( (0x$capeff >> 21) & 1 )) = 1 ]; then
    is "$status" 0 "user = no with CAP_SYS_ADMIN: runs"
    like "$out" "CapEff:	0000000000000000" "... without capabilities"
    like "$out" "$(readlink /proc/self/ns/user)" "... in the host's user namespace, as asked"
    rm -f "$witness"
else
    is "$status" 125 "user = no without CAP_SYS_ADMIN: exit 125"
    like "$err" "set user = yes" "gives the fix"
    [ ! -e "$witness" ]; ok $? "the command did not run"
fi

# sbx inside sbx. The inner sbx maps the outer command's uid; when that is
# uid 0, Linux >= 5.12 wants CAP_SETFCAP for it, which the outer command
# has only if its profile keeps it.
sbx_run -- "$SBX" run -p default -- echo nested
if [ "$(id -u)" = 0 ]; then
    is "$status" 125 "nested as root without CAP_SETFCAP: exit 125"
    like "$err" "since Linux 5.12 that takes CAP_SETFCAP" "names the kernel rule"
    is "$out" "" "the inner command did not run"
    profile setfcap <<INI
[security]
capabilities = cap_setfcap
INI
    # As root the outer /proc has /proc/sys and the like covered read-only
    # (mount.c: global uid 0 writes sysctls by file mode alone), which the
    # kernel counts as not fully visible: no fresh /proc nested inside.
    sbx_run -p "$prof" -- "$SBX" run -p default -- true
    like "$err" "set proc = no" "nested as root: a fresh /proc is refused, and the error gives the fix"
    inner=$(mktemp "$PWD/inner.XXXXXX.ini")
    printf '[profile]\ninclude = default\n[filesystem]\nproc = no\n' >"$inner"
    sbx_run -p "$prof" -- "$SBX" run -p "$inner" -- sh -c 'echo nested $$'
    rm -f "$inner"
    is "$status $out" "0 nested 2" "nested as root with cap_setfcap kept outside and proc = no inside: runs"
else
    is "$status $out" "0 nested" "nested as uid $(id -u): runs"
    sbx_run -- sh -c 'readlink /proc/self/ns/user; "$0" run -p default -- readlink /proc/self/ns/user' "$SBX"
    n=$(printf '%s\n' "$out" | grep -c '^user:') u=$(printf '%s\n' "$out" | sort -u | wc -l)
    is "$n $u" "2 2" "the inner sandbox has a user namespace of its own"
    sbx_run -- "$SBX" run -p default -- cat /proc/self/uid_map
    is "$(echo $out)" "$(id -u) $(id -u) 1" "the inner sandbox maps the same uid"
    sbx_run -- "$SBX" run -p default -- sh -c 'echo $$'
    is "$out" 2 "the inner command has its own PID namespace"
    # Only a root caller gets /proc/sys covered (the mode bits refuse
    # anyone else), which would deny a nested sandbox its fresh /proc.
    sbx_run -- sh -c 'grep -c " /proc/sys " /proc/self/mountinfo'
    is "$out" 0 "as uid $(id -u), /proc/sys is not covered: nested sandboxes get a fresh /proc"
fi

done_testing
