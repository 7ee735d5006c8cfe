#!/bin/sh
# sbx profile learn: the lines over a base profile under which a command
# passes, each answering a refusal, and none of them removable: checked
# here by running the command under the learned profile, then under it
# with each line taken out in turn. Sample suites: network tests (denied
# calls, seen by sbx), a cache write (refused by a read-only mount, seen
# by sbx's write observer) and a descriptor-hungry test (refused by the
# kernel alone: learned from the permissive profile's lines, each proven
# needed). A failure no line answers is said, never guessed at.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null 2>&1 ||
    { skip "python3 is not installed (apt-get install python3): the sample suites are Python"; done_testing; }
make_build_tmpdir profile-learn
work=$tmpdir
cd "$work" || exit 1
TMPDIR=$work
export TMPDIR

cp "$SBX_TOP_SRCDIR/tests/integration/sample-net-test.py" net_test.py
cat >bind_test.py <<'EOF'
import socket
socket.socket().bind(("127.0.0.1", 0))
print("bind test passed")
EOF
cat >fd_test.py <<'EOF'
import os
fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(1000)]
print("descriptor test passed")
EOF

cat >cache_test.py <<'EOF'
import os, pathlib
p = pathlib.Path(os.environ["HOME"], ".cache", "sbx-learn-test")
p.write_text("cached")
p.unlink()
print("cache test passed")
EOF

# learn NAME SCRIPT [BASE]: learn, then check the profile both ways.
learn() {
    "$SBX" profile learn --base "${3:-deny-network}" -- python3 "$2" >"$1.ini" 2>"$1.err"
    is "$?" 0 "$1: sbx profile learn finds a profile" || { diag "$(cat "$1.err")"; return; }
    run_sbx run -p "./$1.ini" -- python3 "$2"
    is "$status" 0 "$1: the command passes under the learned profile"
    unlike "$err" "denied" "$1: with no denial left"
    grep -v '^;\|^\[\|^include = ' "$1.ini" >"$1.lines"
    [ -s "$1.lines" ]
    ok $? "$1: learned at least one line"
    while IFS= read -r line; do
        grep -vxF -- "$line" "$1.ini" >"$1-without.ini"
        "$SBX" run -q -p "./$1-without.ini" -- python3 "$2" >/dev/null 2>&1
        st=$?
        [ "$st" != 0 ]
        ok $? "$1: without '$line' the command fails again (exit $st)"
    done <"$1.lines"
    awk '!/^;|^\[|^include = / { if (prev !~ /^; answers /) bad = 1 } { prev = $0 } END { exit bad }' "$1.ini"
    ok $? "$1: each line says the refusal it answers"
}

learn net net_test.py
is "$(grep -c '^-deny = ' net.ini)" 4 "net: bind, listen, connect and sendto: four lines"
like "$(cat net.ini)" "; answers bind(AF_INET 127.0.0.1:0) -> EPERM (safe)" "net: the bind line names the refused bind"

learn bind bind_test.py
is "$(grep '^-deny = ' bind.ini)" "-deny = bind:inet,inet6 EPERM" "bind: only the bind line, the smallest profile"

# Under low-nofile, EMFILE is the kernel's answer, which sbx does not see:
# qa's nofile line is tried, and kept because the test needs it.
learn fd fd_test.py low-nofile
is "$(grep -v '^;' fd.ini | grep -c '=')" 2 "fd: include and one line"
like "$(cat fd.ini)" "[limits]
; answers a failure with no refusal sbx saw" "fd: the line says no refusal was seen"
like "$(cat fd.ini)" "nofile = max" "fd: nofile = max"

# A cache write under default (no writable caches): the refused write,
# seen by sbx's write observer, answered by a cache line (sbx(1) REFUSED
# WRITES).
# (HOME beside the project, not around it: sbx refuses to make a home
# directory writable as the working directory.)
mkdir -p "$work/home/.cache" "$work/proj"
cp cache_test.py "$work/proj/"
cd "$work/proj" || exit 1
HOME=$work/home learn cache cache_test.py default
# Where the sandbox sees the home (not below a tmpfs /tmp or /var/tmp,
# as a build tree there is), the write is refused read-only and learned
# from that refusal; else it fails with ENOENT and qa's line is learned.
if HOME=$work/home "$SBX" run -q -- test -d "$work/home/.cache" </dev/null 2>/dev/null; then
    like "$(cat cache.ini)" "; answers openat $work/home/.cache/sbx-learn-test -> EROFS (safe)
cache = \${HOME}/.cache" "cache: the refused write's line, a private layer for the cache directory"
else
    like "$(cat cache.ini)" "cache? = \${HOME}/.cache" "cache: the cache directory, writable (through qa's private layer)"
fi
cd "$work" || exit 1

# A failure no line of qa answers: said, and no profile printed.
"$SBX" profile learn -- python3 -c 'import os, sys; sys.exit(os.environ["SBX_PROFILE"] != "qa")' >none.ini 2>none.err
is "$?" 1 "a failure no line answers: exit 1"
like "$(cat none.err)" "no other line to try" "and says why"
[ ! -s none.ini ]
ok $? "and proposes no profile it did not prove"

"$SBX" profile learn -- python3 -c 'raise SystemExit(2)' >/dev/null 2>err.txt
is "$?" 1 "a command that fails under qa: nothing to learn (exit 1)"
like "$(cat err.txt)" "nothing to learn" "and says so"
"$SBX" profile learn >/dev/null 2>&1
is "$?" 125 "no command: a usage error"

done_testing
