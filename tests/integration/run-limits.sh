#!/bin/sh
# Limits: nofile = max lifts the soft limit to the hard one (as root with
# CAP_SYS_RESOURCE: to fs.nr_open); a number above what can be had is an
# error naming the limit, never a clamp.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 17
make_tmpdir

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

# The other rlimits of SPEC, each set to soft = hard = the value.
profile others <<INI
[limits]
core = 0
nproc = 4000
fsize = 1M
cpu = 600
stack = 4M
memlock = 64K
sigpending = 1000
INI
sbx_run -p "$prof" -- cat /proc/self/limits
row() { printf '%-26s%-21s%-21s' "$1" "$2" "$2"; }
like "$out" "$(row 'Max core file size' 0)" "core = 0"
like "$out" "$(row 'Max processes' 4000)" "nproc = 4000"
like "$out" "$(row 'Max file size' 1048576)" "fsize = 1M is 1048576 bytes"
like "$out" "$(row 'Max cpu time' 600)" "cpu = 600 seconds"
like "$out" "$(row 'Max stack size' 4194304)" "stack = 4M"
like "$out" "$(row 'Max locked memory' 65536)" "memlock = 64K"
like "$out" "$(row 'Max pending signals' 1000)" "sigpending = 1000"

# fsize is enforced: a 2K write stops at 1K (SIGXFSZ ignored: EFBIG).
profile fsize <<INI
[limits]
fsize = 1K
INI
sbx_run -p "$prof" -- sh -c 'trap "" XFSZ; f=$(mktemp) || exit 9; head -c 2048 /dev/zero >"$f"; echo "rc=$? size=$(wc -c <"$f")"; rm -f "$f"'
is "$out" "rc=1 size=1024" "fsize = 1K: a 2K write stops at 1024 bytes"

done_testing
