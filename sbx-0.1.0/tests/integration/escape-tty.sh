#!/bin/sh
# Escape suite, terminal (issue 7): TIOCSTI pushes bytes into a terminal's
# input as if typed; a command that can do it on the outer terminal runs
# anything in the caller's shell once sbx exits (CVE-2017-5226 for
# bubblewrap). The default seccomp filter refuses it with EPERM. script(1)
# provides the terminal, which is then the controlling terminal of sbx and
# of the command (sbx does not start a new session).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 3
P="$H/escape-probe"

in_pty() { # in_pty COMMAND...: its output through a pty
    out=$(script -qfec "$*" /dev/null </dev/null 2>&1 | tr -d '\r')
}

in_pty "$P" tiocsti 0
case $(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1) in
1) like "$out" "tiocsti 0: ok" "outside, TIOCSTI on the controlling terminal works (the test can fail)" ;;
*) like "$out" "tiocsti 0: EIO" "outside, this kernel refuses TIOCSTI itself (dev.tty.legacy_tiocsti = 0)" ;;
esac

sbx_run -- grep '^Seccomp:' /proc/self/status
if [ "$(echo $out)" = "Seccomp: 0" ]; then
    skip "the default seccomp filter is not installed by sbx run in this build (src/command.c integration point)"
    skip "no seccomp filter"
else
    in_pty "$SBX" run -- "$P" tiocsti 0
    like "$out" "tiocsti 0: EPERM" "inside, TIOCSTI on the outer terminal: EPERM (default seccomp filter)"
    in_pty "$SBX" run -- sh -c "'exec \"$P\" tiocsti 1 </dev/tty'"
    like "$out" "tiocsti 1: EPERM" "through /dev/tty as well: EPERM"
fi

done_testing
