#!/bin/sh
# Each way a user namespace is refused, produced for real on this machine,
# and the diagnosis `sbx run` (exit 125, nothing run) and `sbx probe` give:
#  - an outer seccomp filter with the namespace rules of Docker's default
#    profile; a filter that does not touch namespaces is no cause;
#  - user.max_user_namespaces = 0 in a user namespace of the test's own;
#  - uid 0 without CAP_SETFCAP (root only; uid 65534 maps itself and runs);
#  - a /proc with an overmounted file, as Docker masks /proc/keys;
#  - AppArmor's restriction: this kernel has no AppArmor, so the refusal is
#    a real one (clone() in a chroot is EPERM) and the sysctl and AppArmor's
#    securityfs are faked (SBX_TEST_PROC_SYS, SBX_TEST_APPARMOR_*).
# Each case first shows that the refusal is real (the same call without
# sbx fails, or the same sbx run works without the refusal).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
make_tmpdir
PATH=$PATH:/usr/sbin:/sbin
witness="$tmpdir/ran"
# The command every refused run is given: any run of it prints RAN, an
# unsandboxed one also leaves the witness (the sandbox's /tmp is private).
cmd() { "$@" -- sh -c 'echo RAN; touch "$1" 2>/dev/null; exit 0' sh "$witness"; }
nothing_ran() { # nothing_ran WHAT
    [ -z "$out" ] && [ ! -e "$witness" ]
    ok $? "$1: the command did not run, sandboxed or not"
    rm -f "$witness"
}
pj() { jq -r "$1" "$tmpdir/p.json"; }
userns_works=false
unshare -U true 2>/dev/null && userns_works=true

# The witness sees a run: without a refusal the same command runs.
run_cmd cmd "$SBX" run
is "$status/$out" 0/RAN "without a refusal, the command runs (and prints RAN)"
rm -f "$witness"

# --- an outer seccomp filter: Docker's namespace rules
run_cmd unshare -U true
is "$status" 0 "docker filter: without it, unshare(CLONE_NEWUSER) works"
run_cmd "$H/deny-userns" --docker unshare -U true
like "$err" "Operation not permitted" "docker filter: under it, unshare(CLONE_NEWUSER) is EPERM"
run_cmd cmd "$H/deny-userns" --docker "$SBX" run
is "$status" 125 "docker filter: sbx run exits 125"
like "$err" "a seccomp filter around sbx refuses CLONE_NEWUSER: it answered for clone/unshare flags the kernel itself rejects with EINVAL" \
    "docker filter: the filter is measured, not presumed"
like "$err" "--security-opt seccomp=unconfined" "docker filter: gives Docker's fix"
like "$err" "Operation not permitted" "docker filter: names the errno"
nothing_ran "docker filter"
"$H/deny-userns" --docker "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
is "$(pj .checks.user_namespace.status)/$(pj .checks.user_namespace.errno)" denied/EPERM \
    "docker filter: probe: user_namespace denied EPERM"
like "$(pj .checks.user_namespace.detail)" "an inherited seccomp filter refuses CLONE_NEWUSER" \
    "docker filter: probe names the measured filter"
is "$(pj .verdict.sandbox.ok)" false "docker filter: probe: sandbox verdict false"

# A filter that refuses sockets only (an agent's network rule) is there
# (Seccomp: 2) but refuses no namespace: sbx runs, and a refusal that does
# happen under it is not blamed on it.
run_cmd cmd "$H/seccomp-deny" --inet -- "$SBX" run
is "$status/$out" 0/RAN "socket filter only: sbx runs under it"
rm -f "$witness"

# --- user.max_user_namespaces = 0, set in a user namespace of our own (the
# limit is per user namespace: the host's stays)
if $userns_works; then
    zero='echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"'
    run_cmd unshare -Ur sh -c "$zero" sh unshare -U true
    like "$err" "No space left on device" "max_user_namespaces = 0: unshare(CLONE_NEWUSER) is ENOSPC there"
    run_cmd cmd unshare -Ur sh -c "$zero" sh "$SBX" run
    is "$status" 125 "max_user_namespaces = 0: sbx run exits 125"
    like "$err" "user namespaces are disabled (user.max_user_namespaces = 0)" "max_user_namespaces = 0: names the sysctl"
    like "$err" "the limit is per user namespace, so it is lifted where it was set to 0" \
        "max_user_namespaces = 0: says where to lift it"
    nothing_ran "max_user_namespaces = 0"
    unshare -Ur sh -c "$zero" sh "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
    is "$(pj .checks.user_namespace.status)/$(pj .checks.user_namespace.errno)" unavailable/ENOSPC \
        "max_user_namespaces = 0: probe: user_namespace ENOSPC"
    like "$(pj .checks.user_namespace.detail)" "user.max_user_namespaces = 0 (sysctl -w user.max_user_namespaces=15000)" \
        "max_user_namespaces = 0: probe gives the fix"
    is "$(pj '.sysctl["user.max_user_namespaces"]')" 0 "max_user_namespaces = 0: probe reads the sysctl"
else
    for i in 1 2 3 4 5 6 7 8; do skip "unshare -U is refused here"; done
fi

# --- CAP_SETFCAP: Linux 5.12 wants it to map uid 0 of the parent
# namespace, which sbx does for a root caller. Root is the host's root, or
# for uid 65534 the root of a user namespace of the test's own (as in a
# container). Not root, sbx maps the caller's own uid: no capability.
nosetfcap="setpriv --bounding-set -setfcap"
if is_root; then asroot=; elif $userns_works; then asroot="unshare -Ur"; else asroot=none; fi
if [ "$asroot" != none ]; then
    run_cmd $asroot $nosetfcap unshare -Ur true
    like "$err" "uid_map" "no CAP_SETFCAP: as uid 0, unshare -Ur cannot write its uid_map"
    run_cmd cmd $asroot $nosetfcap "$SBX" run
    is "$status" 125 "no CAP_SETFCAP: sbx run as uid 0 exits 125"
    like "$err" "cannot map uid 0 into the sandbox's user namespace: since Linux 5.12 that takes CAP_SETFCAP" \
        "no CAP_SETFCAP: names the kernel rule"
    like "$err" "keep CAP_SETFCAP there" "no CAP_SETFCAP: gives the fix"
    nothing_ran "no CAP_SETFCAP"
    $asroot $nosetfcap "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
    is "$(pj .checks.user_namespace.status)" denied "no CAP_SETFCAP: probe: user_namespace denied"
    like "$(pj .checks.user_namespace.detail)" "write /proc/self/uid_map: Operation not permitted; mapping uid 0 of the parent namespace needs CAP_SETFCAP" \
        "no CAP_SETFCAP: probe names the rule"
else
    for i in 1 2 3 4 5 6 7; do skip "unshare -U is refused here: no uid 0 of our own"; done
fi
if ! is_root; then
    run_cmd cmd $nosetfcap "$SBX" run
    is "$status/$out" 0/RAN "no CAP_SETFCAP as uid $(id -u): sbx runs (it maps its own uid)"
    rm -f "$witness"
fi

# --- /proc with a masked file, as Docker leaves it (/dev/null over
# /proc/keys): the kernel refuses a fresh proc mount in a user namespace.
if $userns_works && [ -e /proc/keys ]; then
    if is_root; then ns="unshare -m"; else ns="unshare -Urm"; fi
    mask='mount --bind /dev/null /proc/keys && exec "$@"'
    run_cmd cmd $ns sh -c "$mask" sh "$SBX" run
    is "$status" 125 "masked /proc: sbx run exits 125"
    like "$err" "mounting a fresh /proc for the sandbox's PID namespace failed: the kernel allows a fresh /proc in a user namespace only where the /proc sbx started with is fully visible" \
        "masked /proc: names the kernel rule"
    like "$err" "set proc = no in [filesystem]" "masked /proc: gives the fix"
    nothing_ran "masked /proc"
    profile noproc <<INI
[filesystem]
proc = no
INI
    run_cmd cmd $ns sh -c "$mask" sh "$SBX" run -p "$prof"
    is "$status/$out" 0/RAN "masked /proc: the fix works (proc = no runs)"
    rm -f "$witness"
    $ns sh -c "$mask" sh "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
    is "$(pj .checks.proc_mount.status)/$(pj .checks.proc_mount.errno)" denied/EPERM "masked /proc: probe: proc_mount denied EPERM"
    like "$(pj .checks.proc_mount.detail)" "parts of this /proc are overmounted" "masked /proc: probe says why"
    is "$(pj .checks.user_namespace.status)" ok "masked /proc: probe: the user namespace itself works"
    "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
    is "$(pj .checks.proc_mount.status)" ok "unmasked /proc: probe: proc_mount ok"
    # under a filter that is there but refuses no namespace: still /proc
    run_cmd cmd "$H/seccomp-deny" --inet -- $ns sh -c "$mask" sh "$SBX" run
    like "$err" "fully visible" "masked /proc under a socket filter: the /proc is named, not the filter"
    unlike "$err" "seccomp" "masked /proc under a socket filter: the filter is not blamed"
else
    for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "unshare is refused here, or no /proc/keys to mask"; done
fi

# --- AppArmor's restriction (faked sysctl and securityfs, real refusal).
# A chroot makes clone(CLONE_NEWUSER) fail with EPERM (create_user_ns()),
# as an AppArmor without `userns` for sbx does. sbx and what it links go
# into the chroot; /proc is the real one; the bounding set keeps
# CAP_SYS_CHROOT for chroot(1) and CAP_SETFCAP for uid 0's map, not
# CAP_SYS_ADMIN (AppArmor's restriction spares a process that has it).
root="$tmpdir/root"
mkdir -p "$root/bin" "$root/proc" "$root/tmp" "$root/fake/kernel" "$root/aa"
cp "$SBX" "$root/bin/sbx"
for lib in $(ldd "$SBX" 2>/dev/null | grep -o '/[^ ]*'); do
    mkdir -p "$root${lib%/*}" && cp "$lib" "$root$lib"
done
printf '[filesystem]\nproc = no\n' >"$root/p.ini"
echo 1 >"$root/fake/kernel/apparmor_restrict_unprivileged_userns"
if is_root; then chns="unshare -m"; else chns="unshare -Urm"; fi
pre=
in_chroot() { # in_chroot CAPS ENV... : sbx run in the chroot; sets status/out/err
    caps=$1; shift
    run_cmd $pre $chns sh -c 'mount --rbind /proc "$0/proc" && exec "$@"' "$root" \
        env "$@" setpriv --bounding-set "$caps" chroot "$root" \
        /bin/sbx run -p /p.ini --chdir /tmp -- /bin/sbx --version
}
if $userns_works; then
    dropped=-all,+sys_chroot,+setfcap
    in_chroot "$dropped"
    is "$status" 125 "chroot: clone(CLONE_NEWUSER) is refused for real (exit 125)"
    like "$err" "the kernel or a security module refuses namespace creation here (a chroot" \
        "chroot, no AppArmor: the generic refusal"
    is "$out" "" "chroot: nothing ran"
    # under a filter that is there (Seccomp: 2) but refuses no namespace:
    # measured, it is not blamed for the chroot's EPERM
    pre="$H/seccomp-deny --inet --"
    in_chroot "$dropped"
    pre=
    like "$err" "refuses namespace creation here (a chroot" "chroot under a socket filter: the generic refusal"
    unlike "$err" "seccomp" "chroot under a socket filter: the filter is measured not to refuse, and not blamed"
    in_chroot "$dropped" SBX_TEST_PROC_SYS=/fake
    is "$status" 125 "AppArmor: sbx run exits 125"
    like "$err" "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1) and sbx's AppArmor profile may not be loaded (AppArmor's /sys/kernel/security/apparmor is not visible here)" \
        "AppArmor, no securityfs: says it cannot tell"
    like "$err" "sudo apparmor_parser -r /etc/apparmor.d/sbx" "AppArmor: gives the fix (load sbx's profile)"
    like "$err" "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" "AppArmor: and the other fix"
    is "$out" "" "AppArmor: nothing ran"
    printf 'passt (enforce)\n' >"$root/aa/profiles"
    in_chroot "$dropped" SBX_TEST_PROC_SYS=/fake SBX_TEST_APPARMOR_FS=/aa
    like "$err" "and sbx's AppArmor profile is not loaded; load it with" "AppArmor, profile not loaded: says so"
    printf 'passt (enforce)\nsbx (enforce)\nsbx_command (enforce)\n' >"$root/aa/profiles"
    in_chroot "$dropped" SBX_TEST_PROC_SYS=/fake SBX_TEST_APPARMOR_FS=/aa SBX_TEST_APPARMOR_LABEL=unconfined
    like "$err" "this sbx runs as 'unconfined', not under the sbx profile, which is loaded but attaches to /usr/bin/sbx and /usr/local/bin/sbx only" \
        "AppArmor, loaded but not this sbx's: says which path it attaches to"
    in_chroot "$dropped" SBX_TEST_PROC_SYS=/fake SBX_TEST_APPARMOR_FS=/aa "SBX_TEST_APPARMOR_LABEL=sbx (enforce)"
    like "$err" "AppArmor refuses it although this sbx runs under the sbx profile ('sbx (enforce)')" \
        "AppArmor, confined by sbx's profile: points at the kernel log"
    is "$status/$out" 125/ "AppArmor variants: exit 125, nothing ran"
    in_chroot -all,+sys_chroot,+setfcap,+sys_admin SBX_TEST_PROC_SYS=/fake
    like "$err" "refuses namespace creation here (a chroot" "AppArmor with CAP_SYS_ADMIN: not blamed (the restriction spares it)"
else
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do skip "unshare -U is refused here"; done
fi

# Under sbx's AppArmor profile the command gets no capability (sbx_command):
# `capabilities =` is refused at start, not handed out to fail later.
profile netraw <<INI
[security]
capabilities = cap_net_raw
INI
run_cmd cmd "$SBX" run -p "$prof"
is "$status/$out" 0/RAN "capabilities = cap_net_raw, not under sbx's AppArmor profile: runs"
rm -f "$witness"
run_cmd cmd env "SBX_TEST_APPARMOR_LABEL=sbx (enforce)" "$SBX" run -p "$prof"
is "$status" 125 "capabilities = under sbx's AppArmor profile: exit 125"
like "$err" "capabilities = cannot be honoured here: this sbx runs under AppArmor's sbx profile ('sbx (enforce)'), which denies the command every capability" \
    "capabilities = under sbx's AppArmor profile: says why"
nothing_ran "capabilities = under sbx's AppArmor profile"
run_cmd cmd env "SBX_TEST_APPARMOR_LABEL=sbx (enforce)" "$SBX" run
is "$status/$out" 0/RAN "no capabilities = under sbx's AppArmor profile: runs"
rm -f "$witness"

# probe's apparmor check, on faked facts (it needs no refusal)
mkdir -p "$tmpdir/sys/kernel" "$tmpdir/aa"
echo 1 >"$tmpdir/sys/kernel/apparmor_restrict_unprivileged_userns"
printf 'sbx_command (enforce)\n' >"$tmpdir/aa/profiles"
fake="SBX_TEST_PROC_SYS=$tmpdir/sys SBX_TEST_APPARMOR_FS=$tmpdir/aa"
env $fake SBX_TEST_APPARMOR_LABEL=unconfined "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
is "$(pj '.sysctl["kernel.apparmor_restrict_unprivileged_userns"]')" 1 "probe: reads the (faked) sysctl"
is "$(pj .checks.apparmor.status)/$(pj .checks.apparmor.value)" "denied/sbx profile not loaded" \
    "probe: restricted, sbx's profile not loaded: denied"
like "$(pj .checks.apparmor.detail)" "sbx run here: AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1) and sbx's AppArmor profile is not loaded; load it with \`sudo apparmor_parser -r /etc/apparmor.d/sbx\`" \
    "probe: gives run's diagnosis and the fix"
printf 'sbx (complain)\nsbx_command (complain)\n' >"$tmpdir/aa/profiles"
env $fake "SBX_TEST_APPARMOR_LABEL=sbx (complain)" "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
is "$(pj .checks.apparmor.status)/$(pj .checks.apparmor.value)" "info/sbx profile loaded" \
    "probe: confined by sbx's profile: a fact, not a failure"
like "$(pj .checks.apparmor.detail)" "runs under sbx's profile ('sbx (complain)'), which grants it user namespaces" \
    "probe: says sbx's profile grants it"
echo 0 >"$tmpdir/sys/kernel/apparmor_restrict_unprivileged_userns"
env $fake SBX_TEST_APPARMOR_LABEL=unconfined "$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
is "$(pj .checks.apparmor.status)" info "probe: restriction off: a fact"
like "$(pj .checks.apparmor.detail)" "is 0: user namespaces need no profile; sbx profile loaded (complain)" \
    "probe: restriction off: says the profile is not needed, and its mode"
"$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>/dev/null
if [ -d /sys/kernel/security/apparmor ]; then
    isnt "$(pj .checks.apparmor.value)" absent "probe, unfaked: AppArmor is here"
else
    is "$(pj .checks.apparmor.value)" absent "probe, unfaked: no AppArmor in this kernel"
fi

done_testing
