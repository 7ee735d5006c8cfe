#!/bin/sh
# Escape suite, persistence (issue 14, items 1-4 and 12): nothing a sandbox
# writes may configure a later run or run later outside it. Each attack is
# first shown to work (outside sbx, or through a tool that follows the
# path), then blocked. Runs as root and as an unprivileged user; the files
# the shipped profiles make writable are those of a fake $HOME.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 58

make_visible_tmpdir escape-persist
HOMEDIR=$tmpdir/home proj=$tmpdir/proj data=$tmpdir/data
mkdir -p "$HOMEDIR/.cache" "$HOMEDIR/.config" "$proj" "$data"
# $proj is a work tree of its own: else the build tree (a checkout that
# holds this scratch $HOME, which is not the account's home) would be the
# project, and the fake home writable with it.
git init -q "$proj" || exit 1
cd "$proj" || exit 1
home_run() { run_cmd env HOME="$HOMEDIR" "$SBX" run "$@"; }
# The shipped profiles make ~/.cache and ~/.config private write layers
# (escape-layers.sh); a profile of the caller's may still make them rw, as
# they were, and the rules below are what then keeps the host safe.
oldqa=$tmpdir/oldqa.ini olddev=$tmpdir/olddev.ini oldsession=$tmpdir/oldsession.ini
printf '[profile]\ninclude = qa\n[filesystem]\nrw? = ${HOME}/.cache\n' >"$oldqa"
printf '[profile]\ninclude = devbackend\n[filesystem]\nrw? = ${HOME}/.cache/pip\n' >"$olddev"
printf '[profile]\ninclude = qa-session\n[filesystem]\nrw? = ${HOME}/.config\n' >"$oldsession"

# --- 1. a symlink planted in a writable place -----------------------------------
home_run -p "$oldqa" -- ln -s "$HOMEDIR" "$HOMEDIR/.cache/pip"
[ "$status" = 0 ] && [ -L "$HOMEDIR/.cache/pip" ]
ok $? "run 1 under qa plants ~/.cache/pip -> ~ (qa makes ~/.cache writable)"
# What a resolver that follows the link does with devbackend's rw? rule
# (sbx before this check): the bind's source is ~ itself, writable on the
# canonical path over a read-only host.
run_cmd bwrap --ro-bind / / --bind "$HOMEDIR/.cache/pip" "$(realpath "$HOMEDIR/.cache/pip")" \
    touch "$HOMEDIR/pwned-by-bwrap"
[ -e "$HOMEDIR/pwned-by-bwrap" ]; ok $? "bound by a tool that follows it, the link makes ~ writable (the attack is real)"
rm -f "$HOMEDIR/pwned-by-bwrap"
home_run -p "$olddev" -- sh -c "touch '$HOMEDIR/planted' 2>&1"
like "$out$err" "Read-only file system" "run 2 under devbackend: ~ stays read-only"
[ ! -e "$HOMEDIR/planted" ]; ok $? "nothing was written in ~"
like "$err" "goes through the symlink $HOMEDIR/.cache/pip -> $HOMEDIR, which a sandbox could have made" \
    "the warning names the link"
like "$err" "this rule is skipped" "an optional rule through it is dropped"
home_run -p qa --rw "$HOMEDIR/.cache/pip" -- true
is "$status" 125 "a required rw rule through it stops the run (125)"
like "$err" "--rw: rw path $HOMEDIR/.cache/pip goes through the symlink" "naming the option and the link"
# A link of the caller's where no sandbox writes is followed (~/.cargo -> /data).
ln -s "$data" "$HOMEDIR/datalink"
home_run -p qa --rw "$HOMEDIR/datalink" -- sh -c "echo ok >'$data/w' && cat '$data/w'"
is "$status:$out" "0:ok" "a link of yours outside every writable place is followed"
# A system link (root's, outside every writable place) is followed too,
# also for a root caller, for whom it is a link of its own uid.
home_run -p qa -v --rw /var/run -- true
is "$status" 0 "rw = /var/run (-> /run) is followed"
like "$err" "rw-bind /run " "and bound on its target"

# --- 2, 3. sbx's own configuration ------------------------------------------------
mkdir -p "$HOMEDIR/.config/sbx/profiles"
printf '[profile]\ndescription = PLANTED\n' >"$HOMEDIR/.config/sbx/profiles/qa.ini"
run_cmd env HOME="$HOMEDIR" "$SBX" profile show qa
like "$out$err" "PLANTED" "a qa.ini in ~/.config/sbx/profiles is what the next 'sbx run -p qa' applies (the attack is real)"
rm -rf "$HOMEDIR/.config/sbx"
home_run -p "$oldsession" -- sh -c \
    "mkdir -p ~/.config/sbx/profiles 2>&1; printf '[profile]\ndescription = PLANTED\n' >~/.config/sbx/profiles/qa.ini 2>&1; true"
like "$out$err" "Read-only file system" "under qa-session (~/.config writable) ~/.config/sbx cannot be written"
[ ! -e "$HOMEDIR/.config/sbx" ]
ok $? "though it did not exist (sbx made it to keep it read-only, and removed it after the run)"
run_cmd env HOME="$HOMEDIR" "$SBX" profile show qa
unlike "$out" "PLANTED" "the next run applies the shipped qa"
# $SBX_PROFILE_PATH inside the writable working directory
mkdir -p "$proj/profiles"
printf '[profile]\ninclude = default\ndescription = mine\n' >"$proj/profiles/mine.ini"
run_cmd env HOME="$HOMEDIR" SBX_PROFILE_PATH="$proj/profiles" "$SBX" run -p mine -- sh -c \
    "echo '[profile]' >'$proj/profiles/mine.ini' 2>&1; echo x >'$proj/profiles/new.ini' 2>&1; echo w >'$proj/w' && echo proj-writable"
like "$out$err" "Read-only file system" "a \$SBX_PROFILE_PATH directory in the working directory stays read-only"
like "$out$err" "proj-writable" "while the rest of the working directory is writable"
like "$(cat "$proj/profiles/mine.ini")" "description = mine" "the profile is unchanged"
# The build tree, as README's quick start runs it: profiles/ and src/sbx.
if [ -w "$SBX_TOP_BUILDDIR/src/sbx" ]; then pass "outside, the build tree's src/sbx is writable (the attack is real)"
else fail "src/sbx is not writable outside: the test cannot show anything"; fi
(cd "$SBX_TOP_BUILDDIR" && env HOME=/nonexistent "$SBX" run -p qa -- sh -c \
    "mv src/sbx src/sbx.moved 2>&1; mv src src.moved 2>&1; echo x >>'$SBX_TOP_SRCDIR/profiles/default.ini' 2>&1; echo x >escape-persist.w && echo tree-writable; rm -f escape-persist.w") \
    >"$tmpdir/tree.out" 2>&1
tree=$(cat "$tmpdir/tree.out")
like "$tree" "cannot move 'src/sbx' to 'src/sbx.moved': Device or resource busy" "from the build tree, src/sbx cannot be replaced (a mount point)"
like "$tree" "Device or resource busy" "nor src/ moved away (it is pinned)"
if [ "$(cd "$SBX_TOP_SRCDIR" && pwd -P)" = "$(cd "$SBX_TOP_BUILDDIR" && pwd -P)" ]; then
    like "$tree" "default.ini: Read-only file system" "nor the shipped default.ini"
else  # distcheck: the source tree lies outside the writable build tree
    like "$tree" "profiles/default.ini: " "nor the shipped default.ini (outside the build tree here)"
fi
like "$tree" "tree-writable" "the rest of the build tree is writable"

# --- 4. files the host executes later ----------------------------------------------
git init -q "$proj" && git -C "$proj" -c user.name=t -c user.email=t@t commit -q --allow-empty -m first
# The attack, outside: git runs core.fsmonitor on `git status`.
printf '#!/bin/sh\ntouch "%s/fsmonitor-ran"\n' "$tmpdir" >"$tmpdir/payload" && chmod +x "$tmpdir/payload"
git -C "$proj" config core.fsmonitor "$tmpdir/payload" && git -C "$proj" status >/dev/null 2>&1
[ -e "$tmpdir/fsmonitor-ran" ]; ok $? "outside, core.fsmonitor in .git/config runs on git status (the attack is real)"
git -C "$proj" config --unset core.fsmonitor; rm -f "$tmpdir/fsmonitor-ran"
home_run -p qa -- sh -c "git config core.fsmonitor '$tmpdir/payload' 2>&1; echo x >.git/hooks/pre-commit 2>&1; mv .git .git2 2>&1; git -c user.name=t -c user.email=t@t commit -q --allow-empty -m inside && echo committed"
like "$out$err" "could not write config file .git/config" "inside qa, .git/config cannot be changed"
like "$out$err" "hooks/pre-commit: Read-only file system" "nor a hook added"
like "$out$err" "Device or resource busy" "nor .git moved aside (pinned)"
like "$out$err" "committed" "git inside still commits"
git -C "$proj" status >/dev/null 2>&1
[ ! -e "$tmpdir/fsmonitor-ran" ]; ok $? "git status outside runs nothing of the command's"
is "$(git -C "$proj" log --format=%s -1)" "inside" "the commit made inside is there"
# ~/.config/git under qa-session (~/.config writable), missing at first
home_run -p "$oldsession" -- sh -c "mkdir -p ~/.config/git 2>&1; echo '[core] fsmonitor = x' >~/.config/git/config 2>&1; echo x >~/.config/autostart/x.desktop 2>&1; echo ok >~/.config/other && echo config-writable"
like "$out$err" "config/git/config: Read-only file system" "qa-session: ~/.config/git stays read-only"
like "$out$err" "x.desktop: Read-only file system" "and ~/.config/autostart"
like "$out$err" "config-writable" "while the rest of ~/.config is writable"
# With the whole home writable on purpose (--rw ~ from a project).
echo 'echo user-rc' >"$HOMEDIR/.bashrc"
mkdir -p "$HOMEDIR/.local/bin"
run_cmd env LC_ALL=C HOME="$HOMEDIR" PATH="$HOMEDIR/.local/bin:$HOMEDIR/tools:$PATH" "$SBX" run -p qa --rw "$HOMEDIR" -- sh -c \
    "echo evil >>~/.bashrc 2>&1; echo evil >~/.zshrc 2>&1; echo evil >~/.local/bin/ls 2>&1; mkdir ~/tools/x 2>&1; echo n >~/notes && echo home-writable"
like "$out$err" ".bashrc: Read-only file system" "--rw ~: ~/.bashrc stays read-only"
like "$out$err" ".zshrc: Read-only file system" "a missing ~/.zshrc cannot be created either"
like "$out$err" "local/bin/ls: Read-only file system" "nor a program put in ~/.local/bin"
like "$out$err" "tools/x': Read-only file system" "nor in a missing directory of \$PATH below ~ (~/tools)"
like "$out$err" "home-writable" "the rest of ~ is writable"
is "$(cat "$HOMEDIR/.bashrc")" "echo user-rc" "~/.bashrc is unchanged"
[ ! -e "$HOMEDIR/.zshrc" ]; ok $? "the empty ~/.zshrc sbx made in its place is gone after the run"
echo 'echo user-profile' >"$HOMEDIR/.profile"
run_cmd env LC_ALL=C HOME="$HOMEDIR" "$SBX" run -p qa --rw "$HOMEDIR" -- bash -c '. ~/.bash_profile; echo done'
is "$out" "user-profile
done" "the ~/.bash_profile sbx made does what a missing one does: bash goes on to ~/.profile"
# An rw rule on a protected path itself is overridden, and said so.
home_run -p qa --rw "$HOMEDIR/.local/bin" -- sh -c "echo x >'$HOMEDIR/.local/bin/tool' 2>&1; true"
like "$out$err" "tool: Read-only file system" "--rw ~/.local/bin (a protected path) stays read-only"
like "$err" "--rw: rw = $HOMEDIR/.local/bin is a protected path" "with a warning naming the option"
# Opting out of one entry:
printf '[profile]\ninclude = qa\n[filesystem]\nunprotect = ${HOME}/.bashrc\nunprotect = ${HOME}/.config/sbx\n' >"$tmpdir/optout.ini"
home_run -p "$tmpdir/optout.ini" --rw "$HOMEDIR" -- sh -c "echo mine >>~/.bashrc && echo rc-writable; mkdir -p ~/.config/sbx/x 2>&1"
like "$out$err" "rc-writable" "unprotect = ~/.bashrc leaves it writable"
like "$out$err" "Read-only file system" "but sbx's own configuration cannot be unprotected"
# A symlink at a protected path (planted before sbx protected it) is covered.
rm -rf "$HOMEDIR/.config/git"; ln -s "$data" "$HOMEDIR/.config/git"
home_run -p "$oldsession" -- sh -c "echo x >~/.config/git/config 2>&1; true"
like "$err" "$HOMEDIR/.config/git is a symlink to $data" "qa-session warns about a symlink at ~/.config/git"
[ ! -e "$data/config" ]; ok $? "and nothing is written where it points"

# --- 12. the whole tree from / or ~ ----------------------------------------------
(cd "$HOMEDIR" && env HOME="$HOMEDIR" "$SBX" run -p qa -- true) >"$tmpdir/o" 2>"$tmpdir/e"; st=$?
is "$st" 125 "started in \$HOME, qa refuses (125)"
like "$(cat "$tmpdir/e")" "would make your whole home directory writable" "saying why"
like "$(cat "$tmpdir/e")" "--chdir DIR" "and how to start in the project"
(cd / && env HOME="$HOMEDIR" "$SBX" run -p qa -- true) >"$tmpdir/o" 2>"$tmpdir/e"; st=$?
is "$st:$(cat "$tmpdir/e")" "125:$(sed -n 1p "$tmpdir/e")" "started in /, it refuses too"
like "$(cat "$tmpdir/e")" "the whole host" "naming the whole host"
(cd "$HOMEDIR" && env HOME="$HOMEDIR" "$SBX" run -p qa -C "$proj" -- sh -c \
    "echo x >'$proj/w2' && echo proj-ok; touch '$HOMEDIR/w2' 2>&1") >"$tmpdir/o" 2>&1; st=$?
like "$(cat "$tmpdir/o")" "proj-ok" "with --chdir to the project, \${CWD} is the project: it runs and is writable"
like "$(cat "$tmpdir/o")" "Read-only file system" "and ~ is not"
# A package build: debhelper sets HOME inside the work tree
# (debian/.debhelper/generated/_source/home). That $HOME is not the
# account's home, so the work tree holding it is still the project.
pkg=$tmpdir/pkg bhome=$tmpdir/pkg/debian/.debhelper/generated/_source/home
mkdir -p "$pkg/tests" "$bhome" && git init -q "$pkg"
(cd "$pkg/tests" && env HOME="$bhome" "$SBX" run -p qa -- sh -c \
    "echo x >'$pkg/built' && echo pkg-ok; touch '$tmpdir/w3' 2>&1; true") >"$tmpdir/o" 2>&1; st=$?
is "$st" 0 "a work tree holding a build's \$HOME (debhelper's) is no reason to refuse"
like "$(cat "$tmpdir/o")" "pkg-ok" "the work tree is the project: writable from its tests/ directory"
like "$(cat "$tmpdir/o")" "Read-only file system" "and what holds it is not"
(cd "$bhome" && env HOME="$bhome" "$SBX" run -p qa -- true) >"$tmpdir/o" 2>"$tmpdir/e"; st=$?
is "$st" 125 "started in that \$HOME itself, qa still refuses"

done_testing
