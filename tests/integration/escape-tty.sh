#!/bin/sh
# Escape suite, terminal (issue 7): TIOCSTI pushes bytes into a terminal's
# input as if typed; a command that can do it on the outer terminal runs
# anything in the caller's shell once sbx exits (CVE-2017-5226 for
# bubblewrap). The default seccomp filter refuses it with EPERM. script(1)
# provides the terminal. With sbx's stdin not a terminal there is no pty
# (sbx(1) TERMINAL): the command shares sbx's session and holds the outer
# terminal on stdout, its controlling terminal, so only the filter stands
# in the way; with a terminal on stdin the command has a pty of its own
# (session-pty.sh), on which the filter refuses TIOCSTI as well.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 4
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
    skip "no seccomp filter"
else
    in_pty "$SBX" run -- "$P" tiocsti 1 "</dev/null"
    like "$out" "tiocsti 1: EPERM" "inside, no pty: TIOCSTI on the outer terminal: EPERM (default seccomp filter)"
    in_pty "$SBX" run -- sh -c "'exec \"$P\" tiocsti 0 </dev/tty'" "</dev/null"
    like "$out" "tiocsti 0: EPERM" "through /dev/tty as well: EPERM"
    in_pty "$SBX" run -- "$P" tiocsti 0
    like "$out" "tiocsti 0: EPERM" "with the sandbox's own pty: EPERM there too"
fi

done_testing
