# Shared by the session-*.sh tests that drive a real terminal: a tmux
# server of the test's own, a pane `t` running an outer interactive bash
# (prompt "out$ "), keys typed with send-keys, the screen read back with
# capture-pane. Needs make_tmpdir; start_pane also sets the EXIT trap.
sock="$tmpdir/tmux.sock"
# tmux runs a pane's command with its default-shell: $SHELL, or else the
# passwd entry's shell, which for nobody is /usr/sbin/nologin (the pane
# dies at once). Pin it, so the test does not depend on the caller's $SHELL.
T() { SHELL=/bin/sh tmux -S "$sock" "$@"; }

# screen: the visible pane, trailing blank lines dropped; -J joins lines
# the terminal wrapped (a long $SBX path wraps at 80 or 100 columns).
screen() { T capture-pane -p -J -t t | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
# wait_screen TEXT: up to 5 s for TEXT to appear in the pane.
wait_screen() {
    _i=0
    while [ $_i -lt 100 ]; do
        screen | grep -q -- "$1" && return 0
        sleep 0.05
        _i=$((_i + 1))
    done
    diag "waited 5 s for '$1'; the pane holds:"
    diag "$(screen)"
    return 1
}
keys() { T send-keys -t t "$@"; }
type_line() { keys -l "$1"; keys Enter; }

# A key sent before the program runs would reach the wrong process: under
# load a sandbox may still be setting up. (The host sees the sandbox's pids.)
wait_running() {
    _n=0
    while ! pgrep -f "^$1\$" >/dev/null && [ $_n -lt 100 ]; do sleep 0.1; _n=$((_n + 1)); done
}

# wait_gone PATTERN: up to 5 s for no process to match PATTERN (pgrep -f).
# With a terminal, sbx relays (sbx(1) TERMINAL): keys typed before it has
# exited go to the sandbox's pty and are lost with it, as with any relay
# (ssh -t), so the next command line waits for sbx to be gone.
wait_gone() {
    _n=0
    while pgrep -f "$1" >/dev/null && [ $_n -lt 100 ]; do sleep 0.05; _n=$((_n + 1)); done
}

# start_pane: the outer shell in an 80x24 pane; bails out if it does not start.
# (No history file: bash writing it as the server dies raced the rm of $tmpdir.)
start_pane() {
    trap 'T kill-server 2>/dev/null; rm -rf "$tmpdir"' EXIT
    T -f /dev/null new-session -d -s t -x 80 -y 24 "env -i PATH=$PATH HOME=$tmpdir HISTFILE=/dev/null TERM=screen PS1='out\$ ' bash --norc --noprofile -i"
    if ! wait_screen 'out\$'; then
        echo "Bail out! the outer shell in tmux did not start: $(T list-panes -a -F '#{pane_dead} #{pane_pid}' 2>&1)"
        exit 1
    fi
}
