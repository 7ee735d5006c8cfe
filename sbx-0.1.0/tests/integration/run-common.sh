# Shared by the run-*.sh tests: how to start a sandbox.
# sbx_run ARGS... -- COMMAND...: runs a sandbox with stdin from /dev/null;
# sets $status, $out, $err (see lib.sh's run_cmd).
H="$SBX_TEST_HELPERS"
sbx_run() { run_sbx run "$@"; }

# profile NAME < INI-BODY: writes $tmpdir/NAME.ini, the default profile plus
# the body, and sets $prof to its path (for -p). Needs make_tmpdir.
profile() {
    prof="$tmpdir/$1.ini"
    { printf '[profile]\ninclude = default\n'; cat; } >"$prof"
}

# wait_for_text FILE TEXT: up to 5 s.
wait_for_text() {
    _i=0
    while [ $_i -lt 100 ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
        _i=$((_i + 1))
    done
    return 1
}

# A marker unique to this test run, usable as `sleep $marker` (so digits
# only: sleep refuses anything else and would exit at once), so that looking
# for leftover processes cannot match anyone else's. $1: one more digit.
new_marker() { marker="$(( $$ % 9000 + 1000 )).$(date +%N)$1"; }

# count_marker: how many processes run `sleep $marker`.
count_marker() { ps -eo args= | grep -c "^sleep $marker\$"; }
