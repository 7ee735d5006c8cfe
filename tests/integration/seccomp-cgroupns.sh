#!/bin/sh
# Issue 14, item 6: a command must not create a cgroup namespace, from
# which a root caller's command mounts a fresh cgroupfs and kills or
# freezes the host's processes (cgroup.kill, cgroup.freeze, v1
# freezer.state of the cgroup sbx runs in). The attack runs first with
# seccomp = none, where it works, then under qa.
#
# SAFETY: this machine's session runs in the root cgroup of most
# hierarchies. The attack is only ever run from a cgroup this test creates
# (sbx-test-PID in the v2 and the v1 freezer hierarchies), so its
# cgroupns root is that cgroup, and it only names victims below it. The
# shell that starts sbx checks it is there before exec'ing sbx.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
if is_root; then plan 16; else plan 6; fi

tmpdir=$(mktemp -d "$PWD/cgroupns.XXXXXX")
cg2= cg1= victims=
cleanup() {
    for d in "$cg1/freeze"; do [ -d "$d" ] && echo THAWED >"$d/freezer.state" 2>/dev/null; done
    for d in "$cg2/freeze"; do [ -d "$d" ] && echo 0 >"$d/cgroup.freeze" 2>/dev/null; done
    for v in $victims; do kill -9 "$v" 2>/dev/null; wait "$v" 2>/dev/null; done
    for d in "$cg2/kill" "$cg2/freeze" "$cg2" "$cg1/freeze" "$cg1"; do
        [ -n "${d%/*}" ] && [ -d "$d" ] && rmdir "$d" 2>/dev/null
    done
    rm -rf "$tmpdir"
}
trap cleanup EXIT
cd "$tmpdir" || exit 1
cp "$H/cgroup-escape" ./
E=$tmpdir/cgroup-escape
printf '[profile]\ninclude = qa\n[security]\nseccomp = none\n' >"$tmpdir/none.ini"
none=$tmpdir/none.ini

# --- every caller: no cgroup namespace -----------------------------------
run_sbx run -p "$none" -- "$E" unshare-cgroup
is "$out" "unshare-cgroup=ok" "seccomp = none: unshare(NEWUSER|NEWNS|NEWCGROUP) works (the test can fail)"
run_sbx run -p qa -- sh -c "'$E' unshare-cgroup; '$E' clone-cgroup; '$E' clone3-cgroup"
is "$out" "unshare-cgroup=EPERM
clone-cgroup=EPERM
clone3-cgroup=ENOSYS" "qa: unshare and clone of a cgroup namespace EPERM, clone3 ENOSYS (uid $(id -u))"
run_sbx run -p "$none" -- sh -c "'$E' clone-cgroup; '$E' clone3-cgroup"
is "$out" "clone-cgroup=ok
clone3-cgroup=ok" "seccomp = none: clone and clone3 of one work (the test can fail)"
# setns needs CAP_SYS_ADMIN over the target cgroupns's owner: the one the
# command starts in belongs to a user namespace above its own. The kernel's
# answer, with or without the filter: why seccomp.c has no setns rule.
run_sbx run -p "$none" -- "$E" setns-cgroup
like "$out" "unshare-user=ok
setns-cgroup=EPERM" "setns into the sandbox's cgroup namespace is the kernel's EPERM even without the filter"

# --- nested bwrap --------------------------------------------------------
# bwrap asks for a cgroup namespace with --unshare-cgroup(-try), which
# --unshare-all implies: that now fails; everything else still nests. As
# root the nested bwrap needs a non-root uid inside (CAP_SETFCAP rule).
if is_root; then
    printf '[profile]\ninclude = qa\n[namespaces]\nuid = 1000\ngid = 1000\n' >"$tmpdir/q1000.ini"
    bprof=$tmpdir/q1000.ini
else
    bprof=qa
fi
if ! command -v bwrap >/dev/null 2>&1; then
    skip "bubblewrap is not installed (apt-get install bubblewrap)"
else
    run_sbx run -p "$bprof" -- bwrap --unshare-user --unshare-pid --unshare-net --unshare-ipc \
        --unshare-uts --ro-bind / / --dev /dev -- true
    is "$status" 0 "a nested bwrap with every namespace but cgroup runs under qa"
fi

# --- root: the kill and the freeze ----------------------------------------
if ! is_root; then
    # The files of a fresh cgroupfs are root's: the namespace was refused
    # above already (unshare-cgroup=EPERM), which is the whole rule.
    run_sbx run -p qa -- "$E" v2 cgroup.kill 1
    is "$out" "unshare=EPERM" "not root: the attack stops at unshare under qa (the kill and freeze need a root caller: root only)"
    done_testing
fi

if [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" != cgroup2fs ] ||
   ! grep -q ' /sys/fs/cgroup/freezer cgroup .*freezer' /proc/mounts; then
    for i in 1 2 3 4 5 6 7 8 9 10 11; do
        skip "needs the hybrid layout: cgroup2 on /sys/fs/cgroup/unified, v1 freezer on /sys/fs/cgroup/freezer"
    done
    done_testing
fi
cg2=/sys/fs/cgroup/unified/sbx-test-$$ cg1=/sys/fs/cgroup/freezer/sbx-test-$$
mkdir "$cg2" "$cg2/kill" "$cg2/freeze" "$cg1" "$cg1/freeze" || exit 1

# victim CGROUP-DIR: a sleep moved into it; sets $victim.
victim() {
    sleep 600 &
    victim=$!
    victims="$victims $victim"
    echo "$victim" >"$1/cgroup.procs"
}
# alive PID: running and not a zombie (a killed child stays one until waited for).
alive() { [ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat")" != Z ]; }
frozen_v2() { grep -q '^frozen 1$' "$cg2/freeze/cgroup.events"; }
freezer_state() { cat "$cg1/freeze/freezer.state"; }

# attack PROFILE: sbx, started from the test cgroups, runs the three writes.
attack() {
    run_cmd sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" &&
        grep -qx "0::/sbx-test-$3" /proc/self/cgroup &&
        grep -qx "[0-9]*:freezer:/sbx-test-$3" /proc/self/cgroup || exit 99
        shift 3; exec "$@"' sh "$cg2" "$cg1" $$ \
        "$SBX" run -p "$1" -- sh -c "'$E' v2 kill/cgroup.kill 1; '$E' v2 freeze/cgroup.freeze 1;
            '$E' v1 freeze/freezer.state FROZEN"
    sleep 0.3   # a kill and a v1 freeze are asynchronous
}

victim "$cg2/kill"; k1=$victim
victim "$cg2/freeze"; f2=$victim
victim "$cg1/freeze"; f1=$victim
alive "$k1" && ! frozen_v2 && [ "$(freezer_state)" = THAWED ]
ok $? "three victims run in the test's cgroups"

attack "$none"
isnt "$status" 99 "sbx ran from the test's own cgroups (never from the host's root)"
like "$out" "mount=ok
write=ok" "seccomp = none: a fresh cgroupfs mounts and its files are writable"
alive "$k1"; ok $((! $?)) "seccomp = none: cgroup.kill killed the victim (the attack works)"
frozen_v2; ok $? "seccomp = none: cgroup.freeze froze the v2 victim"
is "$(freezer_state)" FROZEN "seccomp = none: freezer.state froze the v1 victim"

echo 0 >"$cg2/freeze/cgroup.freeze"; echo THAWED >"$cg1/freeze/freezer.state"
victim "$cg2/kill"; k1=$victim
attack qa
is "$out" "unshare=EPERM
unshare=EPERM
unshare=EPERM" "qa: each attack stops at the cgroup namespace"
alive "$k1"; ok $? "qa: the victim of cgroup.kill is alive"
frozen_v2; ok $((! $?)) "qa: the v2 victim is not frozen"
is "$(freezer_state)" THAWED "qa: the v1 victim is not frozen"
alive "$f1" && alive "$f2"; ok $? "qa: the frozen-then-thawed victims are alive"
done_testing
