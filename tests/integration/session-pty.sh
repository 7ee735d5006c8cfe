#!/bin/sh
# Interactive sessions get a terminal of their own (issue 17, sbx(1)
# TERMINAL): with a terminal on stdin, the command runs on a pty of the
# sandbox's devpts, in a session of its own, and sbx relays. Driven in a
# tmux pane: tty and ttyname work inside, line editing, vi redraws, the
# window size at start and on resize, Ctrl-Z/fg of a plain command with the
# terminal restored while stopped, getpass and ssh-keygen -p prompts read
# from /dev/tty, the terminal restored after SIGKILL of the command and of
# the sandbox's init, and that tcsetpgrp and TIOCSTI from inside cannot act
# on the caller's terminal (each first shown to work outside). Outside
# tmux: a 10 MB binary stream through the relay byte-exact.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
N=39
plan $N

for t in tmux python3 vi ssh-keygen sha256sum stty; do
    if ! command -v $t >/dev/null 2>&1; then
        for i in $(seq $N); do skip "$t is not installed (apt-get install tmux python3 vim-tiny openssh-client coreutils)"; done
        done_testing
    fi
done
make_tmpdir
chmod 755 "$tmpdir"
. "$SBX_TOP_SRCDIR/tests/integration/tmux-lib.sh"
start_pane
pane_tty=$(T display -p -t t '#{pane_tty}')
pane_pid=$(T display -p -t t '#{pane_pid}')
# the outer bash: the pane's process, or its child when tmux's sh -c did not exec
shell_pid=$(pgrep -P "$pane_pid" -x bash || echo "$pane_pid")
clear_pane() { keys -l clear; keys Enter; sleep 0.1; }
# the pane shell's terminal, as stat sees the file behind a descriptor
tty_id() { stat -L -c '%d:%i' "$1" 2>/dev/null; }
# children PID: the pids whose parent is PID
children() { pgrep -P "$1"; }

# --- no terminal, no pty -------------------------------------------------------
sbx_run -- tty
is "$out" "not a tty" "stdin not a terminal: no pty, tty says 'not a tty' (sbx(1) TERMINAL)"

# --- tty and ttyname ----------------------------------------------------------
type_line 'echo "out-tty=$(tty)"'
wait_screen '^out-tty='
like "$(screen)" "out-tty=$pane_tty" "control: outside, tty names the pane's terminal $pane_tty"
clear_pane
type_line "$SBX run -- sh -c 'echo \"in-tty=\$(tty)\"; test -c \"\$(tty)\" && echo in-tty-exists'"
wait_screen '^in-tty-exists$'
st=$?
if [ $st = 0 ] && screen | grep -q '^in-tty=/dev/pts/[0-9]*$'; then
    pass "inside, tty prints a /dev/pts path that exists there"
else
    fail "inside, tty prints a /dev/pts path that exists there"; diag "$(screen)"
fi
clear_pane
type_line "$SBX run -- python3 -c 'import os; print(\"ttyname=\" + \",\".join(os.ttyname(f) for f in (0, 1, 2)))'"
wait_screen '^ttyname='
if screen | grep -q '^ttyname=\(/dev/pts/[0-9]*\),\1,\1$'; then
    pass "os.ttyname() of stdin, stdout and stderr inside: the same /dev/pts/N"
else
    fail "os.ttyname() of stdin, stdout and stderr inside: the same /dev/pts/N"; diag "$(screen)"
fi
clear_pane
type_line "$SBX run -- sh -c 'tty; readlink /proc/self/fd/1' | cat"
wait_screen 'pipe:'
like "$(screen)" "/dev/pts/" "stdout a pipe: stdin still gets the pty, stdout stays the pipe"

# --- the command's session and descriptors -------------------------------------
clear_pane
type_line "$SBX run -- sleep 1011"
wait_running 'sleep 1011'
cmd_pid=$(pgrep -xf 'sleep 1011' | head -1)
init_pid=$(ps -o ppid= -p "$cmd_pid" | tr -d ' ')
sbx_pid=$(ps -o ppid= -p "$init_pid" | tr -d ' ')
sid() { ps -o sid= -p "$1" | tr -d ' '; }
if [ -n "$cmd_pid" ] && [ "$(sid "$cmd_pid")" = "$init_pid" ] && [ "$(sid "$sbx_pid")" != "$init_pid" ]; then
    pass "the command is in a session of its own (led by the sandbox's init), not the caller's"
else
    fail "the command is in a session of its own (led by the sandbox's init), not the caller's"
    diag "command $cmd_pid sid $(sid "$cmd_pid"), init $init_pid, sbx $sbx_pid sid $(sid "$sbx_pid")"
fi
is "$(tty_id /proc/$pane_pid/fd/0)" "$(tty_id "$pane_tty")" \
    "control: the outer shell's stdin is the pane's terminal (the comparison below can match)"
held=""
for p in "$cmd_pid" "$init_pid"; do
    for f in /proc/$p/fd/*; do
        [ "$(tty_id "$f")" = "$(tty_id "$pane_tty")" ] && held="$held $f"
    done
done
is "$held" "" "neither the command nor the sandbox's init holds the caller's terminal"
keys C-c
wait_gone "run -- sleep 1011"
type_line 'echo "sleep-exit=$?"'
wait_screen '^sleep-exit=130$'
ok $? "Ctrl-C through the pty ends the command (status 130)"

# --- tcsetpgrp ------------------------------------------------------------------
tpgid() { ps -o tpgid= -p "$pane_pid" | tr -d ' '; }
clear_pane
type_line "$H/tty-probe"
wait_screen '^tcsetpgrp: '
child=$(screen | sed -n 's/^tcsetpgrp: ok child=\([0-9]*\)$/\1/p')
if [ -n "$child" ] && [ "$(tpgid)" = "$child" ]; then
    pass "control: outside, tcsetpgrp hands the terminal's foreground to another group"
else
    fail "control: outside, tcsetpgrp hands the terminal's foreground to another group"
    diag "foreground $(tpgid), probe said: $(screen)"
fi
kill -USR1 $(children "$shell_pid") 2>/dev/null
wait_screen '^tty-probe: done$' >/dev/null
clear_pane
type_line "$SBX run -- $H/tty-probe"
wait_screen '^tcsetpgrp: '
sbx_pid=$(children "$shell_pid")
like "$(screen)" "tcsetpgrp: ok" "inside, tcsetpgrp succeeds on the sandbox's own pty"
is "$(tpgid)" "$(ps -o pgid= -p "$sbx_pid" | tr -d ' ')" \
    "the caller's terminal still has sbx's job in the foreground"
init_pid=$(children "$sbx_pid")
kill -USR1 $(children "$init_pid") 2>/dev/null
wait_screen '^tty-probe: done$'
wait_gone "run -- $H/tty-probe"
type_line 'echo "probe-exit=$?"'
wait_screen '^probe-exit=0$'
ok $? "the probe exits 0, sbx with it"

# --- TIOCSTI, with the seccomp filter (which refuses it) off --------------------
profile noseccomp <<'EOF'
[security]
seccomp = none
EOF
chmod 644 "$prof"
clear_pane
type_line "$H/tiocsti outside"
wait_screen '^TIOCSTI: '
legacy=yes
if screen | grep -q '^TIOCSTI: pushed$'; then
    wait_screen '^INJECTED-outside$'
    ok $? "control: outside, TIOCSTI injects a command into the shell"
else
    legacy=no
    like "$(screen)" "TIOCSTI: " "control: this kernel refuses TIOCSTI outside too (dev.tty.legacy_tiocsti = 0)"
fi
clear_pane
type_line "$SBX run -p $prof -- sh -c '$H/tiocsti inside; read line; echo \"read-inside:\$line\"'"
wait_screen '^read-inside:'
wait_gone "run -p $prof"
if [ $legacy = yes ]; then
    like "$(screen)" "read-inside:echo INJECTED-inside" \
        "inside without the filter, TIOCSTI pushes into the sandbox's own pty (read back inside)"
else
    like "$(screen)" "TIOCSTI: " "inside, TIOCSTI is refused by this kernel as outside"
fi
type_line 'echo "after-inject"'
wait_screen '^after-inject$'
if screen | grep -qx 'INJECTED-inside'; then
    fail "nothing pushed from inside ran in the outer shell"; diag "$(screen)"
else
    pass "nothing pushed from inside ran in the outer shell"
fi

# --- line editing ---------------------------------------------------------------
clear_pane
type_line "$SBX run -- env PS1='in\$ ' bash --norc --noprofile -i"
wait_screen '^in\$'
keys -l "echo wrld"; keys Left Left Left; keys -l o; keys Enter
wait_screen '^world$'
ok $? "line editing with the arrow keys (escape sequences through the relay)"
type_line "exit 3"
wait_gone "run -- env PS1"
type_line 'echo "bash-exit=$?"'
wait_screen '^bash-exit=3$'
ok $? "the exit status passes through"

# --- window size ----------------------------------------------------------------
clear_pane
T resize-window -t t -x 90 -y 20
type_line "$SBX run -- sh -c 'echo \"size=\$(stty size)\"; while read x; do echo \"size=\$(stty size)\"; done'"
wait_screen '^size=20 90$'
ok $? "the window size at start is the caller's (20 x 90)"
T resize-window -t t -x 100 -y 30
# SIGWINCH reaches sbx asynchronously: ask again until it has been relayed
# (a fixed pause lost the race under load)
_n=0
while [ $_n -lt 20 ] && ! screen | grep -q '^size=30 100$'; do
    keys Enter
    sleep 0.25
    _n=$((_n + 1))
done
wait_screen '^size=30 100$'
st=$?
keys C-d
wait_gone "stty size"
(exit $st)
ok $? "a resize while the command runs is followed (30 x 100)"

# --- vi -------------------------------------------------------------------------
seq -f 'row-%03g' 200 >"$tmpdir/rows"
chmod 644 "$tmpdir/rows"
clear_pane
T resize-window -t t -x 80 -y 10
type_line "$SBX run --ro $tmpdir -- vi -u NONE -i NONE -N -n $tmpdir/rows"
if wait_screen '^row-008$' && ! screen | grep -q '^row-012$'; then
    pass "vi fills a 10-row window and no more"
else
    fail "vi fills a 10-row window and no more"; diag "$(screen)"
fi
T resize-window -t t -x 80 -y 30
wait_screen '^row-028$'
ok $? "after a resize to 30 rows vi redraws the whole window"
type_line ":q"
wait_gone "vi -u NONE -i NONE"
type_line 'echo "vi-exit=$?"'
wait_screen '^vi-exit=0$'
ok $? ":q leaves vi, sbx exits 0"
T resize-window -t t -x 80 -y 24

# --- Ctrl-Z, kill -TSTP and fg of a plain command; the terminal while stopped ----
clear_pane
type_line "stty -g >$tmpdir/stty.before; echo saved-before"
wait_screen '^saved-before$'
# bash puts its own terminal settings back when a job stops, and readline
# sets others at the prompt: that would hide what sbx left. dash does
# neither, so under it the terminal while stopped is what sbx made it.
type_line "PS1='dash\$ ' dash -i"
wait_screen '^dash\$'
dash_pid=$(pgrep -P "$shell_pid" -x dash)
cooked=$(stty -g <"$pane_tty")
# wait_stty_not SETTINGS: up to 5 s for the pane's terminal to differ
wait_stty_not() {
    _n=0
    while [ "$(stty -g <"$pane_tty")" = "$1" ] && [ $_n -lt 100 ]; do sleep 0.05; _n=$((_n + 1)); done
}
type_line "python3 -c 'import tty, time; tty.setraw(0); time.sleep(100)' raw-1051"
wait_stty_not "$cooked"
kill -TSTP $(pgrep -f 'raw-1051$')
wait_screen 'Stopped'
isnt "$(stty -g <"$pane_tty")" "$cooked" \
    "control: under dash, a raw-mode program that stops leaves the terminal raw (the checks below can fail)"
kill -KILL $(pgrep -f 'raw-1051$')
stty "$cooked" <"$pane_tty"
wait_gone 'raw-1051$'
clear_pane
type_line "$SBX run -- sh -c 'while read l; do echo \"got:\$l\"; done'"
type_line "abc"
wait_screen '^got:abc$'
isnt "$(stty -g <"$pane_tty")" "$cooked" "control: while sbx relays, the caller's terminal is in raw mode"
keys C-z
wait_screen 'Stopped'
ok $? "Ctrl-Z stops the command and sbx: the outer shell gets its prompt back"
is "$(stty -g <"$pane_tty")" "$cooked" "while stopped, the caller's terminal has its settings back"
type_line "fg"
wait_stty_not "$cooked"
type_line "def"
wait_screen '^got:def$'
ok $? "fg continues the command, which reads the terminal again"
# SIGTSTP sent to sbx itself (not through the terminal, which is raw)
kill -TSTP "$(pgrep -P "$dash_pid")"
_n=0
while [ "$(screen | grep -c Stopped)" -lt 2 ] && [ $_n -lt 100 ]; do sleep 0.05; _n=$((_n + 1)); done
is "$(stty -g <"$pane_tty")" "$cooked" "kill -TSTP of sbx: sbx stops with the caller's terminal settings restored"
type_line "fg"
wait_stty_not "$cooked"
type_line "ghi"
wait_screen '^got:ghi$'
ok $? "fg again: the relay goes on"
keys C-c
wait_gone "while read l"
type_line 'echo "reader-exit=$?"'
wait_screen '^reader-exit=130$'
ok $? "Ctrl-C then ends it (status 130)"
type_line "exit"
wait_gone "dash -i"

# --- prompts read from /dev/tty ---------------------------------------------------
clear_pane
type_line "$SBX run -- python3 -c 'import getpass; p = getpass.getpass(\"Enter passphrase: \"); print(\"reversed:\" + p[::-1])'"
wait_screen '^Enter passphrase: *$'
type_line "s3cret-1031"
wait_screen '^reversed:1301-terc3s$'
ok $? "getpass reads a passphrase from /dev/tty inside"
unlike "$(screen)" "s3cret-1031" "the passphrase is not echoed"
wait_gone "import getpass"
ssh-keygen -q -t ed25519 -N old-pass -C test -f "$tmpdir/key"
clear_pane
type_line "$SBX run --rw $tmpdir -- ssh-keygen -p -f $tmpdir/key"
wait_screen 'Enter old passphrase:' && type_line "old-pass"
wait_screen 'Enter new passphrase' && type_line "new-pass"
wait_screen 'Enter same passphrase again' && type_line "new-pass"
wait_screen 'saved with the new passphrase'
wait_gone "ssh-keygen -p"
if ssh-keygen -y -P new-pass -f "$tmpdir/key" >/dev/null 2>&1; then
    pass "ssh-keygen -p inside: its three prompts answered, the key has the new passphrase"
else
    fail "ssh-keygen -p inside: its three prompts answered, the key has the new passphrase"; diag "$(screen)"
fi

# --- the terminal restored after SIGKILL --------------------------------------------
clear_pane
type_line "$SBX run -- sleep 1041; echo \"killed-exit=\$?\"; stty -g >$tmpdir/stty.killed; echo saved-killed"
wait_running 'sleep 1041'
kill -KILL $(pgrep -xf 'sleep 1041')
wait_screen '^saved-killed$'
like "$(screen)" "killed-exit=137" "SIGKILL of the command: sbx exits 137"
is "$(cat "$tmpdir/stty.killed")" "$(cat "$tmpdir/stty.before")" \
    "after SIGKILL of the command the caller's terminal settings are as before (stty -g)"
clear_pane
type_line "$SBX run -- sleep 1042; echo \"init-killed-exit=\$?\"; stty -g >$tmpdir/stty.init; echo saved-init"
wait_running 'sleep 1042'
kill -KILL "$(ps -o ppid= -p "$(pgrep -xf 'sleep 1042')" | tr -d ' ')"
wait_screen '^saved-init$'
is "$(cat "$tmpdir/stty.init")" "$(cat "$tmpdir/stty.before")" \
    "after SIGKILL of the sandbox's init the caller's terminal settings are as before"

# --- a binary stream, byte-exact ------------------------------------------------------
# less the three bytes the relay's filter acts on (ESC, the C2 of UTF-8
# C1 controls, ENQ: terminal-filter-test checks what it does with them)
head -c 10485760 /dev/urandom | tr -d '\033\302\005' >"$tmpdir/blob"
chmod 644 "$tmpdir/blob"
"$H/pty-run" -o "$tmpdir/blob.cooked" -- "$SBX" run -q --ro "$tmpdir" -- cat "$tmpdir/blob" 2>/dev/null
isnt "$(sha256sum <"$tmpdir/blob.cooked")" "$(sha256sum <"$tmpdir/blob")" \
    "control: through the sandbox's pty in cooked mode the bytes change (ONLCR: the stream passes a terminal)"
"$H/pty-run" -o "$tmpdir/blob.out" -- "$SBX" run -q --ro "$tmpdir" -- \
    sh -c "stty raw -echo && cat $tmpdir/blob" 2>"$tmpdir/pty-run.err"
st=$?
if [ $st = 0 ] && [ "$(sha256sum <"$tmpdir/blob.out")" = "$(sha256sum <"$tmpdir/blob")" ]; then
    pass "10 MB of random bytes but ESC, C2, ENQ through the relay (the pty raw inside): byte-exact (sha256)"
else
    fail "10 MB of random bytes but ESC, C2, ENQ through the relay (the pty raw inside): byte-exact (sha256)"
    diag "status $st, $(wc -c <"$tmpdir/blob.out") bytes, $(cat "$tmpdir/pty-run.err")"
fi

done_testing
