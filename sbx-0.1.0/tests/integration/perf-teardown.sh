#!/bin/sh
# sbx returns as soon as init reports the command's status, without waiting
# for the kernel to dismantle the namespaces (docs/performance.md). That is
# only right if init reports it after everything else inside is dead: these
# checks look for leftovers the moment sbx returns, with no grace period.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 8
make_tmpdir

# Daemons left behind, one of them ignoring SIGTERM and SIGINT.
new_marker 1
sbx_run -- sh -c "sleep $marker </dev/null >/dev/null 2>&1 &
    (trap '' TERM INT HUP; exec sleep $marker) </dev/null >/dev/null 2>&1 & exit 3"
is "$status" 3 "the command's own status comes back"
is "$(count_marker)" 0 "no daemon of the sandbox runs when sbx returns"

# A leftover that takes a while to die after SIGKILL (the kernel frees its
# 1 GB): it must be gone, not merely killed, when sbx returns. Its name is
# unique to this run (a symlink), so its comm is what ps shows even while
# it exits.
new_marker 4
hog="h$(echo "$marker" | tr -d .)"
ln -s "$H/memory-hog" "$tmpdir/$hog"
comm=$(printf '%.15s' "$hog")
"$SBX" run --ro "$tmpdir" -- sh -c "\"$tmpdir/$hog\" 1024 >/tmp/hog.out &
    while ! grep -q ready /tmp/hog.out; do sleep 0.01; done; exit 0" </dev/null
status=$?
left=$(ps -eo comm= | grep -c "^$comm\$")
is "$status" 0 "the command exits 0 once the 1 GB leftover is ready"
is "$left" 0 "the leftover is gone, not dying, when sbx returns"

# A command that keeps forking while it exits: every round of kill(-1)
# must catch the children born while the previous one was delivered.
new_marker 2
sbx_run -- sh -c "(while :; do sleep $marker </dev/null >/dev/null 2>&1 & sleep 0.01; done) &
    sleep 0.2; exit 0"
is "$status" 0 "a command that left a fork loop running exits 0"
is "$(count_marker)" 0 "nothing the fork loop started runs when sbx returns"

# Without a PID namespace init kills the orphans it inherited as subreaper.
new_marker 3
profile nopid <<INI
[namespaces]
pid = no
INI
sbx_run -p "$prof" -- sh -c "sleep $marker </dev/null >/dev/null 2>&1 & exit 0"
is "$status" 0 "pid = no: exit 0"
is "$(count_marker)" 0 "pid = no: no daemon runs when sbx returns"

done_testing
