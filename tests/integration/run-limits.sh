#!/bin/sh
# Limits: nofile = max lifts the soft limit to the hard one (as root with
# CAP_SYS_RESOURCE: to fs.nr_open); a number above what can be had is an
# error naming the limit, never a clamp.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 9

hard=$(ulimit -Hn)
nr_open=$(cat /proc/sys/fs/nr_open)
# Whether this process may raise its hard limit: CAP_SYS_RESOURCE is bit 24.
capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
if [ $(( (0x$capeff >> 24) & 1 )) = 1 ]; then expect_max=$nr_open; else expect_max=$hard; fi

# The caller's soft limit is 1024, as on most systems.
run_cmd sh -c "ulimit -Sn 1024 && exec \"$SBX\" run --nofile max -- sh -c 'ulimit -Sn; ulimit -Hn'"
is "$(echo $out)" "$expect_max $expect_max" "nofile = max: soft = hard = $expect_max inside (caller's soft 1024)"

run_cmd sh -c "ulimit -Sn 1024 && exec \"$SBX\" run --nofile max -- cat /proc/self/limits"
like "$out" "$(printf 'Max open files            %-21s%-21s' $expect_max $expect_max)" \
    "/proc/self/limits shows the raised limit"

if [ "$expect_max" -ge 10050 ]; then
    run_cmd sh -c "ulimit -Sn 1024 && exec \"$SBX\" run --nofile max -- \"$H/open-fds\" 10000"
    is "$out" "opened 10000" "10000 descriptors open inside when the caller's soft limit is 1024"
    run_cmd sh -c "ulimit -Sn 1024 && exec \"$SBX\" run -- \"$H/open-fds\" 10000"
    like "$out" "failed after 10" "without nofile the caller's 1024 holds (the test can fail)"
else
    skip "hard RLIMIT_NOFILE $expect_max < 10050 here: cannot show 10000 fds"
    skip "hard RLIMIT_NOFILE $expect_max < 10050 here"
fi

sbx_run --nofile 4096 -- sh -c 'ulimit -Sn; ulimit -Hn'
is "$(echo $out)" "4096 4096" "nofile = 4096 sets soft and hard"

over=$((hard + 1))
if [ "$expect_max" = "$nr_open" ]; then over=$((nr_open + 1)); fi
sbx_run --nofile $over -- true
is "$status" 125 "nofile above what can be had exits 125"
like "$err" "limit nofile = $over is above" "the error names the limit and the value"
if [ "$expect_max" = "$nr_open" ]; then
    like "$err" "fs.nr_open" "the error names fs.nr_open and how to raise it"
else
    like "$err" "hard limit $hard" "the error names the hard limit and how to raise it"
fi
unlike "$out" "x" "nothing ran"

done_testing
