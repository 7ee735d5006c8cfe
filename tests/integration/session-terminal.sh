#!/bin/sh
# Interactive sessions: a shell and a full-screen program under sbx on a
# real terminal (a tmux pane), driven with send-keys and read back with
# capture-pane. Line editing, job control inside, Ctrl-C, Ctrl-Z and fg
# of sbx itself, window resizes (SIGWINCH) followed, the exit status
# passed through, and TIOCSTI refused inside while it works outside.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 14

if ! command -v tmux >/dev/null 2>&1 || ! command -v less >/dev/null 2>&1; then
    for i in $(seq 14); do skip "tmux or less is not installed (apt-get install tmux less)"; done
    done_testing
fi
make_tmpdir
chmod 755 "$tmpdir"
. "$SBX_TOP_SRCDIR/tests/integration/tmux-lib.sh"
start_pane

# --- a shell inside the sandbox --------------------------------------------
type_line "$SBX run -- env PS1='in\$ ' bash --norc --noprofile -i"
wait_screen '^in\$'
keys -l "echo line-editinx"; keys BSpace; keys -l g; keys Enter
wait_screen '^line-editing$'
ok $? "line editing: a BackSpace typed inside is applied by the shell's readline"
# bash says "no job control in this shell" at start when it cannot own the
# terminal's foreground group; the prompt must be there for this to mean anything.
if screen | grep -q '^in\$'; then
    unlike "$(screen)" "no job control" "the shell inside has job control (owns the terminal's foreground group)"
else
    fail "the shell inside has job control (its prompt never appeared)"
fi

type_line "sleep 1001"
wait_running 'sleep 1001'
keys C-c
type_line 'echo "after-ctrl-c=$?"'
wait_screen '^after-ctrl-c=130$'
ok $? "Ctrl-C ends a sleep inside (status 130) and the shell stays"

type_line "sleep 1002"
wait_running 'sleep 1002'
keys C-z
wait_screen 'Stopped.*sleep 1002'
ok $? "Ctrl-Z stops a sleep inside (job control in the sandbox's shell)"
type_line "kill -KILL %1"

type_line "trap 'echo got-winch \$(stty size)' WINCH; echo trap-set"
# resize only once the trap is in place (a slow shell would miss the signal)
wait_screen '^trap-set$'
T resize-window -t t -x 100 -y 30
type_line "true"
wait_screen 'got-winch 30 100$'
ok $? "a resize reaches the shell inside as SIGWINCH, with the new size"

type_line "$H/tiocsti inside"
wait_screen '^TIOCSTI: '
like "$(screen)" "TIOCSTI: Operation not permitted" "TIOCSTI is refused inside (seccomp)"

type_line "exit 7"
wait_gone "run -- env PS1"
type_line 'echo "sbx-exit=$?"'
wait_screen '^sbx-exit=7$'
st=$?
ok $st "the shell's exit status is sbx's"
# Only meaningful once the outer shell has run a command after sbx ended.
if [ $st -eq 0 ] && ! screen | grep -q '^INJECTED-inside$'; then
    pass "nothing pushed from inside ran in the outer shell"
else
    fail "nothing pushed from inside ran in the outer shell"; diag "$(screen)"
fi

# The control: outside sbx the same helper can inject, so the refusal above
# is sbx's doing (unless the kernel forbids TIOCSTI for everyone).
keys -l clear; keys Enter
type_line "$H/tiocsti outside"
wait_screen '^TIOCSTI: '
if screen | grep -q '^TIOCSTI: pushed$'; then
    wait_screen '^INJECTED-outside$'
    ok $? "control: outside the sandbox TIOCSTI injects a command"
else
    like "$(screen)" "TIOCSTI: " "control: this kernel refuses TIOCSTI outside too (dev.tty.legacy_tiocsti = 0)"
fi

# --- sbx itself under job control --------------------------------------------
keys -l clear; keys Enter
type_line "$SBX run -- sleep 1003"
wait_running 'sleep 1003'
keys C-z
wait_screen 'Stopped.*sbx run -- sleep 1003'
ok $? "Ctrl-Z stops sbx and its command: the outer shell gets its prompt back"
type_line "fg"
sleep 0.3
keys C-c
wait_gone "run -- sleep 1003"
type_line 'echo "after-fg=$?"'
wait_screen '^after-fg=130$'
ok $? "fg resumes it and Ctrl-C then ends it (status 130)"

# --- a full-screen program ---------------------------------------------------
seq -f 'row-%03g' 200 >"$tmpdir/rows"
chmod 644 "$tmpdir/rows"
keys -l clear; keys Enter
T resize-window -t t -x 80 -y 10
type_line "$SBX run --ro $tmpdir -- less $tmpdir/rows"
if wait_screen '^row-009$' && ! screen | grep -q '^row-012$'; then
    pass "less fills a 10-row window and no more"
else
    fail "less fills a 10-row window and no more"; diag "$(screen)"
fi
T resize-window -t t -x 80 -y 30
wait_screen '^row-029$'
ok $? "after a resize to 30 rows less redraws the whole window"
keys q
wait_gone "run --ro $tmpdir -- less"
type_line 'echo "less-exit=$?"'
wait_screen '^less-exit=0$'
ok $? "q leaves less, sbx exits 0"

done_testing
