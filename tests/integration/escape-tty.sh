#!/bin/sh
# Escape suite, terminal (issue 7): TIOCSTI pushes bytes into a terminal's
# input as if typed; a command that can do it on the outer terminal runs
# anything in the caller's shell once sbx exits (CVE-2017-5226 for
# bubblewrap). The default seccomp filter refuses it with EPERM. script(1)
# provides the terminal. With sbx's stdin not a terminal but stdout one,
# the command's stdout is the sandbox's own pty (sbx(1) TERMINAL, issue
# 28), its controlling terminal: the filter refuses TIOCSTI there, and
# without the filter the byte lands in that pty, not in the caller's
# terminal (which it did before: the command shared sbx's session and
# held the outer terminal on stdout). With a terminal on stdin as well
# the same holds (session-pty.sh).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 6
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
    like "$out" "tiocsti 1: EPERM" "inside, stdin not a terminal: TIOCSTI on stdout: EPERM (default seccomp filter)"
    in_pty "$SBX" run -- sh -c "'exec \"$P\" tiocsti 0 </dev/tty'" "</dev/null"
    like "$out" "tiocsti 0: EPERM" "through /dev/tty as well: EPERM"
    in_pty "$SBX" run -- "$P" tiocsti 0
    like "$out" "tiocsti 0: EPERM" "with the sandbox's own pty: EPERM there too"
fi

# Without the filter: what is pushed is read by the next reader of the
# terminal, here a bash after sbx (script's input is /dev/null).
make_tmpdir
profile noseccomp <<'INI'
[security]
seccomp = none
INI
next_reader="bash -c 'read -t 1 -n 1 x; echo \"next-read:\$x.\"'"
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ]; then
    in_pty "$P" tiocsti 1 "</dev/null;" "$next_reader"
    like "$out" "next-read:x." "control: outside, TIOCSTI on stdout reaches the next reader of the terminal"
    in_pty "$SBX" run -q -p "$prof" -- "$P" tiocsti 1 "</dev/null;" "$next_reader"
    # what the next reader gets is not the pushed x: nothing, or the
    # EOF (^D) that script(1) writes into its pty once its own input
    # (/dev/null) ends, which a loaded machine may deliver while it reads
    case $out in
        *next-read:x.*) fail "inside without the filter, stdout the sandbox's pty: nothing reaches the caller's terminal"
                        diag "$out" ;;
        *next-read:*) pass "inside without the filter, stdout the sandbox's pty: nothing reaches the caller's terminal" ;;
        *) fail "inside without the filter: the next reader did not run"; diag "$out" ;;
    esac
else
    # dev.tty.legacy_tiocsti = 0: the kernel refuses it on any terminal
    in_pty "$P" tiocsti 1 "</dev/null"
    like "$out" "tiocsti 1: EIO" "outside, this kernel refuses TIOCSTI on stdout itself"
    in_pty "$SBX" run -q -p "$prof" -- "$P" tiocsti 1 "</dev/null"
    like "$out" "tiocsti 1: EIO" "inside without the filter, the kernel refuses it on the sandbox's pty as well"
fi

done_testing
