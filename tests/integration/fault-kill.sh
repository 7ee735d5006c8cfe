#!/bin/sh
# Faults (issue 7): the supervisor SIGKILLed at each phase of setup and
# during the run leaves nothing behind: no process, no namespace, no mount.
# SBX_TEST_HOLD_AT (src/fault_hook.h) holds whichever process reaches the
# named step; the test kills the supervisor while it is held there.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
phases="load-profile prepare create-namespaces write-uid/gid-maps mounts bring-up-lo start-the-command command: running"
plan 28
tmpdir=$(mktemp -d "$PWD/fault-kill.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
mounts_before=$(cat /proc/self/mountinfo)

descendants() { # PID: every process below it
    ps -eo pid=,ppid= | awk -v root="$1" '
        { parent[$1] = $2 } END {
            for (p in parent) { q = p; while (q in parent && q != root && q > 1) q = parent[q]; if (q == root) print p } }'
}

for phase in $phases; do
    hold=$(echo "$phase" | tr - ' ')
    new_marker 4
    : >"$tmpdir/err"
    if [ "$phase" = running ]; then
        env "$SBX" run -- sh -c "echo ready >&2; exec sleep $marker" </dev/null >/dev/null 2>"$tmpdir/err" &
        sup=$!
        wait_for_text "$tmpdir/err" ready
    else
        SBX_TEST_HOLD_AT="$hold" "$SBX" run -- sleep $marker </dev/null >/dev/null 2>"$tmpdir/err" &
        sup=$!
        wait_for_text "$tmpdir/err" "test hook: holding at"
    fi
    held=$?
    sleep 0.05
    procs="$(descendants $sup)"
    nss=
    for p in $procs; do
        for t in net mnt pid user ipc uts; do
            nss="$nss $(readlink /proc/$p/ns/$t 2>/dev/null)"
        done
    done
    nss=$(printf '%s\n' $nss | sort -u | grep -vxF "$(for t in net mnt pid user ipc uts; do readlink /proc/self/ns/$t; done)")
    # Namespace numbers are reused at once by other sandboxes (make -j):
    # only a process that existed before the kill can be pinning ours.
    existing=$(ls /proc | grep -E '^[0-9]+$')
    kill -KILL $sup
    wait $sup 2>/dev/null
    left=x i=0
    while [ $i -lt 60 ]; do
        left=
        for p in $procs; do kill -0 $p 2>/dev/null && left="$left $p"; done
        [ -z "$left" ] && break
        sleep 0.05; i=$((i + 1))
    done
    if [ $held = 0 ]; then
        is "$left" "" "killed at '$hold' ($(echo $procs | wc -w) process(es) of the run, sbx included): none survives"
    else
        fail "sbx reached '$hold'"; diag "$(cat "$tmpdir/err")"
    fi
    # A namespace outlives its processes only if something pins it.
    pinned=
    if [ -n "$nss" ]; then
        for holder in $(find /proc/[0-9]*/ns/ -type l -printf '%l %h\n' 2>/dev/null |
                        grep -F "$nss" | sed 's|.* /proc/\([0-9]*\)/ns.*|\1|' | sort -u); do
            printf '%s\n' "$existing" | grep -qx "$holder" && pinned="$pinned $holder"
        done
    fi
    is "$pinned" "" "killed at '$hold': none of its $(echo $nss | wc -w) namespace(s) is held by a process"
    is "$(count_marker)" 0 "killed at '$hold': the command never runs afterwards"
done

is "$(cat /proc/self/mountinfo)" "$mounts_before" "the caller's mount table is unchanged after all of it"

done_testing
