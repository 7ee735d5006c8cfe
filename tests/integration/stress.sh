#!/bin/sh
# Stress (issue 7): SBX_STRESS_COUNT sandboxes (48 in make check, 500 in
# `make stress`), 8 at a time, all succeed, and afterwards no process, no
# mount and no network namespace of theirs is left. Then hostile callers:
# a soft nofile of 16, RLIMIT_NPROC exhausted, the largest environment the
# kernel passes, /tmp full. Each gets a working sandbox or a clear exit 125
# naming the problem, never a crash.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
count=${SBX_STRESS_COUNT:-48}
plan 19
tmpdir=$(mktemp -d "$PWD/stress.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT

# --- many sandboxes ------------------------------------------------------------
new_marker 9
mounts_before=$(cat /proc/self/mountinfo)
procs_before=$(ps -e --no-headers | wc -l)
existing=$(ls /proc | grep -E '^[0-9]+$')
# Each leaves a daemon behind (it must be killed with its sandbox) and
# prints its network namespace (which must be gone afterwards).
start=$(date +%s)
seq 1 $count | xargs -P 8 -I @@ sh -c \
    '"$1" run -- sh -c "sleep $2 </dev/null >/dev/null 2>&1 & readlink /proc/self/ns/net" >"$3/@@.out" 2>"$3/@@.err"; echo $? >"$3/@@.status"' \
    sh "$SBX" "$marker" "$tmpdir"
secs=$(( $(date +%s) - start ))
ok_runs=$(cat "$tmpdir"/*.status | grep -cx 0)
is "$ok_runs" "$count" "$count sandboxes, 8 at a time: all exit 0 ($secs s)"
[ "$ok_runs" = "$count" ] || diag "$(cat "$tmpdir"/*.err | sort | uniq -c | head -5)"
host_net=$(readlink /proc/self/ns/net)
is "$(grep -c "^net:" "$tmpdir"/*.out | grep -c ':1$')" "$count" "each reported a network namespace"
is "$(cat "$tmpdir"/*.out | grep -cxF "$host_net")" 0 "none of them is the host's"
sleep 0.3
is "$(count_marker)" 0 "no process of theirs is left (each left a daemon)"
is "$(cat /proc/self/mountinfo)" "$mounts_before" "the caller's mount table is unchanged"
# A namespace number is reused at once by the next namespace created (the
# next sandbox, another test): a leftover is one still held by a process
# that existed before the run, or by a process of the run still alive.
left=
for holder in $(find /proc/[0-9]*/ns/net -printf '%l %h\n' 2>/dev/null |
                grep -F "$(cat "$tmpdir"/*.out)" | sed 's|.* /proc/\([0-9]*\)/ns|\1|' | sort -u); do
    printf '%s\n' "$existing" | grep -qx "$holder" && left="$left $holder"
done
is "$left" "" "none of their $count network namespaces is held by a process from before"
procs_after=$(ps -e --no-headers | wc -l)
diag "processes on the machine: $procs_before before, $procs_after after"
rm -f "$tmpdir"/*.out "$tmpdir"/*.err "$tmpdir"/*.status

# --- a soft nofile of 16 ---------------------------------------------------------
# sbx raises its own soft limit for setup; the command gets the caller's.
run_cmd sh -c "ulimit -Sn 16 && exec \"$SBX\" run -- sh -c 'ulimit -Sn'"
is "$status:$out" "0:16" "soft nofile 16: the sandbox runs, the command keeps the caller's 16"
run_cmd sh -c "ulimit -Sn 16 && exec \"$SBX\" run --nofile max -- sh -c 'ulimit -Sn'"
is "$status:$out" "0:$(ulimit -Hn)" "soft nofile 16 and --nofile max: the command gets the hard limit"
# No leak check: LeakSanitizer (the ASan build) needs a descriptor of its
# own at exit to list the threads, and every one is taken here on purpose.
run_cmd sh -c "ulimit -n 16 && exec env ASAN_OPTIONS=detect_leaks=0 \"$SBX\" run -- true"
is "$status" 125 "hard nofile 16: exit 125"
like "$err" "Too many open files" "naming EMFILE and what it was opening"

# --- RLIMIT_NPROC exhausted ---------------------------------------------------------
# The limit counts the processes of the caller's real uid; root is exempt
# (CAP_SYS_RESOURCE), so as root the test runs as uid 65534 from a
# directory it may use.
# (the directory is saved by name: $OLDPWD may come from the caller's env)
here=$(pwd)
# Not from / (nor with HOME=/): sbx refuses to make the whole host writable.
if is_root; then
    nproc_dir=$(mktemp -d /var/tmp/sbx-nproc.XXXXXX) && chmod 755 "$nproc_dir"
    copy_sbx_for_others "$nproc_dir/copy" || exit 1
    nproc_sbx=$sbx_copy
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent SBX_PROFILE_PATH=$sbx_copy_profiles"
    cd "$nproc_dir"
else as_user=env nproc_sbx=$SBX; fi
# 1: the caller itself is already one process of its uid. No leak check:
# LeakSanitizer (the ASan build) needs a new thread at exit, refused too.
# The shipped profiles set nproc = 4096 (above a hard limit of 1: refused
# up front, checked below); a profile that inherits the caller's limit
# reaches the fork.
inherit_dir=$(mktemp -d /tmp/sbx-stress-nproc.XXXXXX)
chmod 755 "$inherit_dir"
printf '[profile]\ninclude = default\n[limits]\nnproc = inherit\n' >"$inherit_dir/inherit.ini"
chmod 644 "$inherit_dir/inherit.ini"
run_cmd $as_user prlimit --nproc=1 env ASAN_OPTIONS=detect_leaks=0 "$nproc_sbx" run \
    -p "$inherit_dir/inherit.ini" -- true
is "$status" 125 "RLIMIT_NPROC exhausted: exit 125"
like "$err" "RLIMIT_NPROC" "naming RLIMIT_NPROC and the fix"
unlike "$err" "unexpected error" "not an unexplained error"
run_cmd $as_user prlimit --nproc=1 env ASAN_OPTIONS=detect_leaks=0 "$nproc_sbx" run -- true
cd "$here" || exit 1
rm -rf "$inherit_dir"
[ -n "${nproc_dir:-}" ] && rm -rf "$nproc_dir"
like "$status:$err" "125:sbx: limit nproc = 4096 is above the hard limit 1: " \
    "hard RLIMIT_NPROC 1 and the default profile's nproc = 4096: 125, naming both"

# --- the largest environment ----------------------------------------------------------
# execve() takes at most 3/4 of 8 MB of arguments and environment (fs/exec.c,
# _STK_LIM), whatever the stack limit: 100 MB cannot even reach sbx. 4.8 MB
# in 120 KB strings (below MAX_ARG_STRLEN, 128 KB) leaves room for make's.
big=$(head -c 120000 /dev/zero | tr '\0' x)
with_env() { # with_env N [PAD-BYTES] COMMAND...: COMMAND with N variables of 120 KB
    (
        ulimit -s unlimited || exit 99
        i=0
        while [ $i -lt "$1" ]; do export "SBX_BIG$i=$big"; i=$((i + 1)); done
        [ "$2" -gt 0 ] && export "SBX_PAD=$(head -c "$2" /dev/zero | tr '\0' y)"
        shift 2
        exec "$@"
    ) </dev/null >"$tmpdir/env.out" 2>"$tmpdir/env.err"
    status=$?
    out=$(cat "$tmpdir/env.out") err=$(cat "$tmpdir/env.err")
}
with_env 40 0 "$SBX" run -- sh -c 'env | grep -c ^SBX_BIG'
is "$status:$out" "0:40" "a 4.8 MB environment reaches the command whole"
# Just under the kernel's limit for sbx itself: the command's environment,
# a few bytes larger (container=sbx, SBX_PROFILE), may no longer fit.
rest=$(( 6291456 - 51 * 120016 - $(env | wc -c) - 2000 ))
with_env 51 $rest "$SBX" run -- true
case $status in
0) pass "an environment at the kernel's limit: the command still runs" ;;
126) like "$err" "Argument list too long" "an environment at the kernel's limit: exit 126, E2BIG named" ;;
*) fail "an environment at the kernel's limit: status $status"; diag "$err" ;;
esac

# --- /tmp full -------------------------------------------------------------------------------
# A full /tmp (a small tmpfs, in a mount namespace of the test's own) does
# not concern the sandbox, whose /tmp is its own; a run record written there
# fails with ENOSPC, named, exit 125. A checkout under /tmp would vanish
# under that tmpfs (sbx, its profiles, the working directory): the old /tmp
# is kept on /mnt and the top directories of those bound back in place
# before /tmp is filled.
if is_root; then ns="unshare -m"; else ns="unshare -Urm"; fi
keep=
for p in "$SBX" "$SBX_TOP_SRCDIR" "$PWD"; do
    case $p in /tmp/?*) top=${p#/tmp/}; keep="$keep ${top%%/*}" ;; esac
done
run_cmd $ns sh -c '
    sbx=$1 keep=$2
    if [ -n "$keep" ]; then mount --rbind /tmp /mnt || exit 99; fi
    mount -t tmpfs -o size=64k sbx-full /tmp || exit 99
    for d in $keep; do
        [ -d "/tmp/$d" ] || mkdir "/tmp/$d" && mount --rbind "/mnt/$d" "/tmp/$d" || exit 99
    done
    cd "$PWD" || exit 99
    { dd if=/dev/zero of=/tmp/fill bs=4k 2>/dev/null; true; } &&
    df -k /tmp | awk "NR==2 { print \$4 }" &&
    "$sbx" run -- sh -c "echo x >/tmp/x && cat /tmp/x" && echo run-ok &&
    "$sbx" run --report /tmp/record.json -- true; echo "report=$?"' sh "$SBX" "$keep"
[ "$status" != 99 ] || diag "making the full /tmp failed: $err"
like "$out" "run-ok" "/tmp full: the sandbox's own /tmp is empty and writable"
like "$out" "report=125" "--report into a full /tmp: exit 125"
like "$err" "No space left on device" "naming ENOSPC"

done_testing
