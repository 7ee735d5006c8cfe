#!/bin/sh
# ${PROJECT} (issue 17): the shipped profiles make the top of the work tree
# that holds the working directory writable, not the working directory
# alone. A Cargo workspace member tests, git commits from a subdirectory
# (also of a checkout below /tmp and /var/tmp, where the profiles put a
# private tmpfs), from a worktree and from a submodule; and a .git file
# that a sandbox could write does not hand the next sandbox $HOME or /.
# Runs as root and as an unprivileged user.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"

# Where a sandbox sees it (the build tree, else $HOME: the profiles' tmpfs
# hides /tmp and /var/tmp, where a checkout may be), but a work tree of
# its own for each case: the build tree is a git checkout too.
make_visible_tmpdir run-project
tmp_co=$(mktemp -d /tmp/sbx-project.XXXXXX)
vartmp_co=$(mktemp -d /var/tmp/sbx-project.XXXXXX)
trap 'rm -rf "$tmpdir" "$tmp_co" "$vartmp_co"' EXIT
tmpdir=$(cd "$tmpdir" && pwd -P) tmp_co=$(cd "$tmp_co" && pwd -P) vartmp_co=$(cd "$vartmp_co" && pwd -P)
# git as a fresh user has it: no system or global configuration of the host's
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -c user.name=t -c user.email=t@t -c init.defaultBranch=main -c protocol.file.allow=always "$@"; }
commit_inside='git -c user.name=t -c user.email=t@t commit -q --allow-empty -m inside && echo committed'
# rw = ${CWD} instead: what the shipped profiles did before ${PROJECT}
cwd_only=$tmpdir/cwd-only.ini
# no subshells below: TAP's counters live in this shell
at() { cd "$1" || exit 1; }
printf '[profile]\ninclude = qa\n[filesystem]\n-rw = ${PROJECT}\nrw = ${CWD}\n' >"$cwd_only"

# --- a Cargo workspace member -------------------------------------------------
ws=$tmpdir/ws
mkdir -p "$ws/crates/a/src" "$ws/crates/b/src"
printf '[workspace]\nmembers = ["crates/a", "crates/b"]\nresolver = "2"\n' >"$ws/Cargo.toml"
for c in a b; do
    printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n' $c >"$ws/crates/$c/Cargo.toml"
    printf '#[test]\nfn adds() { assert_eq!(2 + 2, 4); }\n' >"$ws/crates/$c/src/lib.rs"
done
g init -q "$ws"
if command -v cargo >/dev/null 2>&1; then
    at "$ws/crates/a"; run_sbx run -p "$cwd_only" -- cargo test --offline
    is "$status" 101 "control: with rw = \${CWD}, cargo test in a member fails (the test can fail)"
    like "$err" "Read-only file system" "at the workspace's Cargo.lock or target/, outside the member"
    at "$ws/crates/a"; run_sbx run -p qa -- cargo test --offline
    is "$status" 0 "cd crates/a && sbx run -p qa -- cargo test: passes"
    like "$out" "test adds ... ok" "the member's test ran"
    [ -f "$ws/Cargo.lock" ] && [ -d "$ws/target" ]
    ok $? "Cargo.lock and target/ were written at the workspace's top"
else
    for i in 1 2 3 4 5; do skip "cargo is not installed"; done
fi
at "$ws/crates/a"; run_sbx run -v -p qa -- true
like "$err" "sbx: project root $ws (git work tree: $ws/.git), working directory $ws/crates/a" \
     "-v says which root and why"
run_sbx profile show qa
like "$out" 'rw = ${PROJECT}' "profile show prints the rule as written"
like "$out" "(= $ws)" "with what it means here"

# --- a git subdirectory, in the build tree, below /tmp, below /var/tmp --------
for top in "$tmpdir/co" "$tmp_co/co" "$vartmp_co/co"; do
    mkdir -p "$top/src/deep"
    g init -q "$top" && g -C "$top" commit -q --allow-empty -m first
    at "$top/src/deep"; run_sbx run -p "$cwd_only" -- sh -c "$commit_inside"
    unlike "$out" "committed" "control ($top): with rw = \${CWD}, git commit from a subdirectory fails"
    at "$top/src/deep"; run_sbx run -p qa -- sh -c \
        "echo x >'$top/at-top' && git status --short && $commit_inside; echo t >/tmp/in-private-tmp"
    is "$status" 0 "$top: git status and commit from src/deep under qa"
    like "$out" "?? ../../at-top" "git status sees the work tree"
    is "$(g -C "$top" log --format=%s -1)" "inside" "$top: the commit is in the host's repository"
    [ -f "$top/at-top" ]; ok $? "$top: a write at the top is the host's directory, not the private tmpfs"
done
[ ! -e /tmp/in-private-tmp ]; ok $? "the rest of /tmp is still the sandbox's own"
# Started in /tmp itself, the project is /tmp, which the later tmpfs rule
# replaces: said, not silent.
at /tmp; run_sbx run -p qa -- true
like "$err" "rw = /tmp is replaced by the later tmpfs = /tmp" "started in /tmp: a warning that writes there are lost"
run_sbx run -p qa --rw /tmp -- true
unlike "$err" "is replaced by the later tmpfs" "not with --rw /tmp, which gives /tmp back"

# --- a worktree --------------------------------------------------------------
main=$tmpdir/main wt=$tmpdir/wt
g init -q "$main" && g -C "$main" commit -q --allow-empty -m first && g -C "$main" worktree add -q "$wt"
mkdir -p "$wt/sub"
at "$wt/sub"; run_sbx run -p "$cwd_only" -- sh -c "$commit_inside"
unlike "$out" "committed" "control: in a worktree with rw = \${CWD}, git commit fails (its git directory is elsewhere)"
at "$wt/sub"; run_sbx run -v -p qa -- sh -c "git status --short && $commit_inside"
is "$status:$out" "0:committed" "a worktree: git status and commit under qa"
like "$err" "git worktree: $wt/.git names $main/.git/worktrees/wt, common directory $main/.git" \
     "-v names its git and common directories"
is "$(g -C "$wt" log --format=%s -1)" "inside" "the worktree's commit is in the repository"
# The repository's configuration, hooks and the worktree's commondir stay
# read-only, and worktrees/ cannot be swapped for a directory of the
# command's (the host's next git would read its commondir).
at "$wt"; run_sbx run -p qa -- sh -c \
    "echo '[core] fsmonitor = x' >>'$main/.git/config' 2>&1; echo x >'$main/.git/hooks/pre-commit' 2>&1;
    echo / >'$main/.git/worktrees/wt/commondir' 2>&1; mv '$main/.git/worktrees' '$main/.git/w2' 2>&1; true"
like "$out$err" "$main/.git/config: Read-only file system" "the common directory's config stays read-only"
like "$out$err" "pre-commit: Read-only file system" "no hook can be added"
like "$out$err" "commondir: Read-only file system" "the worktree's commondir stays read-only"
like "$out$err" "Device or resource busy" "worktrees/ cannot be moved aside (pinned)"
is "$(cat "$main/.git/worktrees/wt/commondir")" "../.." "commondir is unchanged"
[ -d "$main/.git/worktrees/wt" ]; ok $? "worktrees/ is in place"

# --- a submodule --------------------------------------------------------------
lib=$tmpdir/lib super=$tmpdir/super
g init -q "$lib" && g -C "$lib" commit -q --allow-empty -m lib
g init -q "$super" && g -C "$super" submodule -q add "$lib" lib && g -C "$super" commit -q -m with-lib
mkdir "$super/lib/x"
at "$super/lib/x"; run_sbx run -p "$cwd_only" -- sh -c "$commit_inside"
unlike "$out" "committed" "control: in a submodule's subdirectory with rw = \${CWD}, git commit fails"
at "$super/lib"; run_sbx run -v -p qa -- sh -c \
    "git status --short && $commit_inside; echo x >>'$super/.git/modules/lib/config' 2>&1; true"
like "$out" "committed" "a submodule: git status and commit under qa"
like "$out$err" "modules/lib/config: Read-only file system" "its git directory's config stays read-only"
like "$err" "git submodule: $super/lib/.git names $super/.git/modules/lib" "-v names its git directory"
is "$(g -C "$super/lib" log --format=%s -1)" "inside" "the submodule's commit is in its repository"
# From the superproject (or the main checkout), the git directories of its
# submodules and worktrees lie inside its writable .git: what git reads
# there as configuration in the submodule or worktree stays read-only.
git config -f "$super/.git/modules/lib/config" sbx.planted yes
is "$(git -C "$super/lib" config sbx.planted)" "yes" \
    "outside, git in the submodule reads .git/modules/lib/config of the superproject (the attack is real)"
git config -f "$super/.git/modules/lib/config" --unset sbx.planted
at "$super"; run_sbx run -p qa -- sh -c \
    "echo x >>.git/modules/lib/config; echo x >.git/modules/lib/hooks/post-checkout; $commit_inside; true"
like "$err" "modules/lib/config: Read-only file system" "from the superproject: the submodule's config stays read-only"
like "$err" "hooks/post-checkout: Read-only file system" "and its hooks"
like "$out" "committed" "while the superproject commits"
at "$main"; run_sbx run -p qa -- sh -c "echo / >.git/worktrees/wt/commondir; $commit_inside; true"
like "$err" "commondir: Read-only file system" "from the main checkout: a worktree's commondir stays read-only"
like "$out" "committed" "while the main checkout commits"

# --- a .git file a sandbox could write ----------------------------------------
# A fake home that git takes for a git directory (HEAD, objects/, refs/):
# a .git file naming it, in a subdirectory of a project, is what an
# earlier sandbox could have left there for the next run from that place.
home=$tmpdir/home proj=$tmpdir/proj
mkdir -p "$home/objects" "$home/refs" "$proj/crates/a" "$proj/crates/r"
echo 'ref: refs/heads/main' >"$home/HEAD"
g init -q "$proj"
at "$proj"; run_cmd env HOME="$home" "$SBX" run -p qa -- sh -c \
    "printf 'gitdir: %s\n' '$home' >crates/a/.git && printf 'gitdir: /\n' >crates/r/.git && echo planted"
is "$status:$out" "0:planted" "run 1 under qa can write a .git file in a subdirectory of its project"
is "$(cd "$proj/crates/a" && git rev-parse --absolute-git-dir 2>&1)" "$home" \
    "outside, git follows it: \$HOME is that work tree's git directory (the attack is real)"
like "$(cd "$proj/crates/r" && git rev-parse --git-dir 2>&1)" "not a git repository: /" \
    "and git reads 'gitdir: /' as the repository (refused only because / has no HEAD)"
at "$proj/crates/a"; run_cmd env HOME="$home" "$SBX" run -p qa -- sh -c "touch '$home/owned' && echo WRITABLE"
is "$status" 125 "run 2 from there: refused (125)"
like "$err" "$proj/crates/a/.git (gitdir: $home): $home holds your home directory" \
     "the error names the file, what it says and why"
unlike "$out" "WRITABLE" "nothing ran"
[ ! -e "$home/owned" ]; ok $? "\$HOME was not written"
at "$proj/crates/r"; run_cmd env HOME="$home" "$SBX" run -p qa -- sh -c "echo RAN"
is "$status" 125 "gitdir: / is refused (125)"
like "$err" "$proj/crates/r/.git (gitdir: /): / is " "naming the file (/ is no git directory, or not yours)"
rm -f "$proj/crates/a/.git"; ln -s "$home" "$proj/crates/a/.git"
is "$(cd "$proj/crates/a" && git rev-parse --absolute-git-dir 2>&1)" "$home" \
    "a .git symlink to \$HOME: git follows it too"
at "$proj/crates/a"; run_cmd env HOME="$home" "$SBX" run -p qa -- sh -c "touch '$home/owned'; echo RAN"
is "$status" 125 "a .git symlink to \$HOME is refused (125)"
[ ! -e "$home/owned" ]; ok $? "\$HOME was not written"
# Another checkout's .git, named by a planted gitdir file: a git directory
# indeed, but neither this tree's worktree nor its submodule.
rm -f "$proj/crates/a/.git"; printf 'gitdir: %s/.git\n' "$main" >"$proj/crates/a/.git"
at "$proj/crates/a"; run_cmd env HOME="$home" "$SBX" run -p qa -- true
is "$status" 125 "gitdir: another checkout's .git is refused (125)"
like "$err" "neither a worktree's git directory nor a submodule's" "saying why"
# The way out the error gives: the planted file removed, the project is
# the work tree above again.
rm -f "$proj/crates/a/.git"
at "$proj/crates/a"; run_cmd env HOME="$home" "$SBX" run -v -p qa -- sh -c "touch '$home/owned' 2>&1; echo ran"
like "$out" "ran" "the planted file removed, qa runs there"
like "$err" "project root $proj (git work tree: $proj/.git)" "with the project above as its root"
like "$out" "Read-only file system" "and \$HOME stays read-only"

done_testing
