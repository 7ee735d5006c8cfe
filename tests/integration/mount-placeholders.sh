#!/bin/sh
# What sbx makes on the host to keep a protected path read-only is gone
# after the run (issue 29: "one qa-session run leaves 7 empty directories
# in ~/.config", when qa-session had rw? = ~/.config: git, systemd,
# autostart, environment.d, fish, nvim, sbx/profiles). In a fresh HOME of
# its own: the placeholders exist and are read-only while the command
# runs, and nothing is left after it but what the profile asks for
# (create =) and sbx's own state. Then the attacks on the removal: a
# placeholder replaced by a symlink or by another directory while the
# command runs, a placeholder file written to on the host, and a second
# run that still has the placeholders bound when the first ends (an rmdir
# on the host would detach its mounts: its command could then create
# ~/.config/git/config).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 17

make_build_tmpdir placeholders
home=$tmpdir/home
mkdir -p "$home/.config" "$home/proj"
cfg=$tmpdir/cfg.ini
printf '[profile]\ninclude = qa-session\n[filesystem]\nrw = ${HOME}/.config\n' >"$cfg"

# The tree of HOME, sbx's own layers and compiled seccomp filters left out.
tree() { (cd "$home" && find . -path ./.local/state/sbx -prune -o -path ./.cache/sbx -prune -o -print | LC_ALL=C sort); }
# in_home CMD...: sbx run from the project, with HOME the fresh one
in_home() { (cd "$home/proj" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME="$home" "$SBX" run -p "$cfg" -- "$@") </dev/null; }
# wait_for FILE: what a command in the background made (10 s at most)
wait_for() {
    _i=0
    while [ ! -e "$1" ] && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
    [ -e "$1" ]
}

out=$(in_home sh -c 'ls ~/.config | tr "\n" " "; mkdir ~/.config/git/x 2>&1 || echo refused' 2>/dev/null)
like "$out" "autostart environment.d fish git nvim sbx systemd" "inside: the placeholders of ~/.config's protected paths exist"
like "$out" "refused" "and are read-only"
is "$(ls -A "$home/.config")" "" "after the run: ~/.config is as empty as it was"
want=". ./.cache ./.cargo ./.cargo/git ./.cargo/registry ./.config ./.local ./.local/state ./.npm ./proj"
is "$(tree | tr '\n' ' ')" "$want " "nothing else left in HOME than the profile's create = and sbx's state"

# Files too: ~/.ssh writable makes config, rc (a script that does what a
# missing one does) and authorized_keys.
mkdir -m 700 "$home/.ssh"
printf '[profile]\ninclude = default\n[filesystem]\nrw = ${HOME}/.ssh\n' >"$tmpdir/ssh.ini"
out=$( (cd "$home/proj" && HOME=$home "$SBX" run -p "$tmpdir/ssh.ini" -- sh -c 'ls ~/.ssh | tr "\n" " "; head -c 20 ~/.ssh/rc') </dev/null 2>/dev/null)
like "$out" "authorized_keys config rc # made by sbx" "inside: placeholder files in ~/.ssh"
is "$(ls -A "$home/.ssh")" "" "after the run: ~/.ssh is empty again"

# A placeholder file written on the host while the run lasts is the user's.
(cd "$home/proj" && HOME=$home "$SBX" run -p "$tmpdir/ssh.ini" -- sh -c 'touch started; while [ ! -e stop ]; do sleep 0.05; done') \
    </dev/null >/dev/null 2>&1 &
run=$!
wait_for "$home/proj/started" && echo "Host example" >>"$home/.ssh/config"
touch "$home/proj/stop"
wait $run
rm -f "$home/proj/started" "$home/proj/stop"
is "$(cat "$home/.ssh/config" 2>/dev/null)" "Host example" "a placeholder the host wrote to stays, as written"
[ ! -e "$home/.ssh/rc" ] && [ ! -e "$home/.ssh/authorized_keys" ]
ok $? "the unchanged ones are gone"
rm -f "$home/.ssh/config"

# While the command runs, the host replaces ~/.config/git by a symlink to
# an empty directory of its own, and ~/.config/fish by another directory:
# neither is sbx's any more, and nothing is removed through the link.
victim=$tmpdir/victim
mkdir "$victim"
in_home sh -c 'touch started; while [ ! -e stop ]; do sleep 0.05; done' >/dev/null 2>&1 &
run=$!
if wait_for "$home/proj/started"; then
    mv "$home/.config/git" "$home/.config/git.moved" && ln -s "$victim" "$home/.config/git"
    rmdir "$home/.config/fish" && mkdir "$home/.config/fish"
fi
touch "$home/proj/stop"
wait $run
rm -f "$home/proj/started" "$home/proj/stop"
[ -d "$victim" ] && [ -L "$home/.config/git" ]
ok $? "a placeholder replaced by a symlink: the link and its target stay"
[ -d "$home/.config/fish" ]
ok $? "a placeholder replaced by another directory: that directory stays"
[ -d "$home/.config/git.moved" ]
ok $? "the placeholder under another name is not looked for"
[ ! -e "$home/.config/systemd" ] && [ ! -e "$home/.config/nvim" ]
ok $? "the others are gone"
rm -rf "$home/.config/git" "$home/.config/git.moved" "$home/.config/fish"
is "$(ls -A "$home/.config")" "" "(~/.config empty again)"

# Two runs at once: A makes the placeholders, B binds them; A ends first.
in_home sh -c 'touch started.A; while [ ! -e stop.A ]; do sleep 0.05; done' >/dev/null 2>&1 &
a=$!
wait_for "$home/proj/started.A"
in_home sh -c 'touch started.B; while [ ! -e stop.B ]; do sleep 0.05; done
    mkdir -p ~/.config/git/x 2>/dev/null && echo B-wrote || echo B-refused' >"$tmpdir/b.out" 2>/dev/null &
b=$!
wait_for "$home/proj/started.B"
touch "$home/proj/stop.A"
wait $a
[ -d "$home/.config/git" ]
ok $? "the first run to end leaves the placeholders the other still has bound"
touch "$home/proj/stop.B"
wait $b
is "$(cat "$tmpdir/b.out")" "B-refused" "so the other run's ~/.config/git stays read-only"
[ ! -e "$home/.config/git/x" ]
ok $? "and nothing was created in it on the host"
if python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.sbx.probe", b"1")' "$home/proj" 2>/dev/null; then
    is "$(ls -A "$home/.config")" "" "the last run to end removes them (marked as sbx's)"
else
    skip "the file system of $home has no user extended attributes: sbx cannot mark its placeholders, and the last run leaves them"
fi

done_testing
