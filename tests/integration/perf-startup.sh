#!/bin/sh
# What sbx does not do at start-up any more must stay correct
# (docs/performance.md): ${USER} without $USER still comes from the password
# database, but a profile that does not use ${USER} never reads it.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 4
make_tmpdir

printf '[profile]\ninclude = default\n[environment]\nset = WHO=${USER}\n' >"$tmpdir/who.ini"
me=$(id -un)

run_cmd env -u USER "$SBX" run -p "$tmpdir/who.ini" -- sh -c 'echo "$WHO"'
is "$status $out" "0 $me" "\${USER} without \$USER: the name from the password database"
run_cmd env USER=someone-else "$SBX" run -p "$tmpdir/who.ini" -- sh -c 'echo "$WHO"'
is "$status $out" "0 someone-else" "\${USER} with \$USER: the variable"

if command -v strace >/dev/null; then
    # LeakSanitizer cannot run under ptrace (sanitizer builds): leaks are
    # checked by every other test, not this one.
    # From a directory no work tree holds: in a package build (debhelper's
    # $HOME inside the tree) the walk rightly asks who the account is.
    mkdir -p "$tmpdir/plain"
    run_cmd env -u USER ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        sh -c 'cd "$1" && shift && exec "$@"' sh "$tmpdir/plain" \
        strace -f -o "$tmpdir/trace" -e trace=openat,connect "$SBX" run -- true
    is "$status" 0 "default profile without \$USER runs (under strace)"
    [ "$status" = 0 ] || diag "$err"
    is "$(grep -c -e /etc/passwd -e nsswitch.conf -e nscd "$tmpdir/trace")" 0 \
        "and reads neither /etc/passwd nor nsswitch.conf nor asks nscd"
else
    skip "strace is not installed (apt-get install strace)"
    skip "strace is not installed (apt-get install strace)"
fi

done_testing
