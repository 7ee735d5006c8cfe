#!/bin/sh
# Escape suite, private write layers (issue 27): what a sandbox writes in
# a build cache, a toolchain or ~/.config never runs on the host. Each
# attack is first shown working with the path plainly writable (--rw, what
# qa, devbackend and the sessions made of them before), then kept from the
# host by the shipped profiles' cache rules, while a second sandbox run
# still sees the first one's writes. Runs as root and as an unprivileged
# user, on a fake $HOME.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 89

make_visible_tmpdir escape-layers
caller_home=$HOME HOMEDIR=$tmpdir/home proj=$tmpdir/proj
mkdir -p "$proj" "$HOMEDIR/.cache" "$HOMEDIR/.claude" && cd "$proj" || exit 1
home_run() { run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" run "$@"; }
layers=$HOMEDIR/.local/state/sbx/layers

# The host's files, as a host build reads them. Each entry: a path below
# ~, what it holds, the profile whose cache rule covers it.
mod=go/pkg/mod/example.com/dep@v1.0.0/dep.go
crate=.cargo/registry/src/index.crates.io-6f17d22bba15001f/dep-1.0.0/src/lib.rs
npm=.npm/_cacache/content-v2/sha512/ab/cd/0123
pyenv=.pyenv/libexec/pyenv
rustc=.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc
goenv=.config/go/env
tmux=.config/tmux/tmux.conf
gdb=.config/gdb/gdbinit
hgrc=.config/hg/hgrc
for f in $mod $crate $npm $pyenv $rustc $goenv $tmux $gdb $hgrc; do
    mkdir -p "$HOMEDIR/$(dirname "$f")" && echo original >"$HOMEDIR/$f"
done
printf '#!/bin/sh\necho original pyenv\n' >"$HOMEDIR/$pyenv"
printf '#!/bin/sh\necho original rustc\n' >"$HOMEDIR/$rustc"
chmod 755 "$HOMEDIR/$pyenv" "$HOMEDIR/$rustc"
# Go makes its module cache read-only: the layer must take that too.
chmod -R a-w "$HOMEDIR/go/pkg/mod/example.com"

plant() { # plant FILE...: the command run 1 gives the sandbox
    _c=
    for _f in "$@"; do
        _c="$_c chmod -R u+w \"\$(dirname ~/$_f)\" 2>/dev/null; echo PLANTED >~/$_f || exit 1;"
    done
    printf '%s' "$_c"
}
restore() { for _f in "$@"; do chmod u+w "$HOMEDIR/$_f"; echo original >"$HOMEDIR/$_f"; done; }

# --- the attacks, with the paths plainly writable ------------------------------
home_run -p qa --rw "$HOMEDIR/go/pkg/mod" --rw "$HOMEDIR/.cargo/registry" --rw "$HOMEDIR/.npm" \
    -- sh -c "$(plant $mod $crate $npm)"
is "$status" 0 "with rw on the build caches, run 1 rewrites a Go module, a crate source, an npm cache entry"
like "$err" "the host runs code from $HOMEDIR/go/pkg/mod (go builds compile" "and sbx warns of rw = ~/go/pkg/mod"
for f in $mod $crate $npm; do
    is "$(cat "$HOMEDIR/$f")" PLANTED "the host's next build reads the planted ~/$f (the attack is real)"
done
restore $mod $crate $npm
chmod -R a-w "$HOMEDIR/go/pkg/mod/example.com"
home_run -p devbackend --rw "$HOMEDIR/.pyenv" --rw "$HOMEDIR/.rustup" --rw "$HOMEDIR/.config" \
    -- sh -c "$(plant $goenv $tmux $gdb $hgrc)
        printf '#!/bin/sh\necho PLANTED\n' >~/$pyenv && printf '#!/bin/sh\necho PLANTED\n' >~/$rustc"
is "$status" 0 "with rw on ~/.pyenv, ~/.rustup and ~/.config, run 1 plants pyenv, rustc, go/env, tmux.conf, gdbinit, hgrc"
is "$("$HOMEDIR/$pyenv"):$("$HOMEDIR/$rustc")" "PLANTED:PLANTED" "the host's next python3 and cargo run the planted binaries (the attack is real)"
is "$(cat "$HOMEDIR/$goenv" "$HOMEDIR/$hgrc")" "PLANTED
PLANTED" "and the host's go and hg read the planted go/env and hgrc"
printf '#!/bin/sh\necho original pyenv\n' >"$HOMEDIR/$pyenv"
printf '#!/bin/sh\necho original rustc\n' >"$HOMEDIR/$rustc"
restore $goenv $tmux $gdb $hgrc

# --- the shipped profiles: private write layers --------------------------------
home_run -p qa -- sh -c "$(plant $mod $crate $npm) echo new >~/.cache/warm"
is "$status" 0 "under qa, run 1 writes the same files (its caches are writable for it)"
unlike "$err" "the host runs code from" "qa makes no such path plainly rw"
for f in $mod $crate $npm; do
    is "$(cat "$HOMEDIR/$f")" original "the host's ~/$f is unchanged"
done
[ ! -e "$HOMEDIR/.cache/warm" ]; ok $? "nothing new appears in the host's ~/.cache"
[ ! -w "$HOMEDIR/$mod" ] || is_root; ok $? "the read-only module file stays read-only on the host"
home_run -p qa -- sh -c "cat ~/$mod ~/$crate ~/$npm ~/.cache/warm"
is "$out" "PLANTED
PLANTED
PLANTED
new" "run 2 under qa sees run 1's writes: the caches stay warm"
# The host changes its cache between runs: what no sandbox wrote shows the
# host's new content, what one wrote stays the sandbox's own.
echo host-new >"$HOMEDIR/.cache/from-host" && chmod u+w "$HOMEDIR/$npm" && echo host-update >"$HOMEDIR/$npm"
home_run -p qa -- sh -c "cat ~/.cache/from-host ~/$npm"
is "$out" "host-new
PLANTED" "a later run sees the host's new files, and its own version of a file it wrote"
restore $npm
home_run -p devbackend -- sh -c "cat ~/$mod
    printf '#!/bin/sh\necho PLANTED\n' >~/$pyenv && printf '#!/bin/sh\necho PLANTED\n' >~/$rustc && ~/$pyenv"
is "$status:$out" "0:original
PLANTED" "devbackend has its own layers (not qa's): it plants pyenv and runs its own"
is "$("$HOMEDIR/$pyenv"):$("$HOMEDIR/$rustc")" "original pyenv:original rustc" "the host's pyenv and rustc stay the originals"
home_run -p qa-session -- sh -c "$(plant $goenv $tmux $gdb $hgrc) echo s >~/.claude/state"
is "$status" 0 "under qa-session, run 1 writes go/env, tmux.conf, gdbinit, hgrc and the agent's state"
is "$(cat "$HOMEDIR/$goenv" "$HOMEDIR/$tmux" "$HOMEDIR/$gdb" "$HOMEDIR/$hgrc" | sort -u)" original \
    "the host's go/env, tmux.conf, gdbinit and hgrc are unchanged"
is "$(cat "$HOMEDIR/.claude/state" 2>&1)" s "the agent's own state (~/.claude) is shared with the host"

# --- a real Go build, offline: the host's next go run compiles the module cache ---
# A module served by a file:// proxy of this test's, downloaded into the
# fake home's module cache (read-only, as go makes it), and an app using it.
gp=$tmpdir/goproxy/example.com/gdep/@v app=$tmpdir/goapp
chmod -R u+w "$HOMEDIR/go"
mkdir -p "$gp" "$app"
/usr/bin/python3 - "$gp" <<'PY'
import json, sys, zipfile
d = sys.argv[1] + "/"
mod = "module example.com/gdep\n\ngo 1.19\n"
open(d + "list", "w").write("v1.0.0\n")
open(d + "v1.0.0.info", "w").write(json.dumps({"Version": "v1.0.0", "Time": "2024-01-01T00:00:00Z"}))
open(d + "v1.0.0.mod", "w").write(mod)
with zipfile.ZipFile(d + "v1.0.0.zip", "w") as z:
    z.writestr("example.com/gdep@v1.0.0/go.mod", mod)
    z.writestr("example.com/gdep@v1.0.0/gdep.go", 'package gdep\n\nfunc Msg() string { return "original" }\n')
PY
printf 'module example.com/app\n\ngo 1.19\n\nrequire example.com/gdep v1.0.0\n' >"$app/go.mod"
printf 'package main\n\nimport (\n\t"fmt"\n\t"example.com/gdep"\n)\n\nfunc main() { fmt.Println(gdep.Msg()) }\n' >"$app/main.go"
goenv() { env HOME="$HOMEDIR" XDG_CACHE_HOME= GOCACHE="$HOMEDIR/.cache/go-build" GOMODCACHE="$HOMEDIR/go/pkg/mod" \
    GOPATH="$HOMEDIR/go" GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local "$@"; }
gosrc=$HOMEDIR/go/pkg/mod/example.com/gdep@v1.0.0/gdep.go
poison="chmod -R u+w ~/go/pkg/mod/example.com/gdep@v1.0.0 && sed -i s/original/PLANTED/ '$gosrc' && go run ."
cd "$app" || exit 1
run_cmd goenv GOPROXY="file://$tmpdir/goproxy" go run .
if [ "$out" != original ]; then
    for i in 1 2 3 4 5 6; do skip "go cannot build the test's module offline here: $err"; done
else
    pass "outside, go run builds against the module cache (offline, warm)"
    run_cmd goenv GOPROXY=off "$SBX" run -p qa --rw "$HOMEDIR/go/pkg/mod" --rw "$HOMEDIR/.cache" -- sh -c "$poison"
    run_cmd goenv GOPROXY=off go run .
    is "$out" PLANTED "with rw on the module cache, a poisoned module source runs in the host's next go build (the attack is real)"
    chmod -R u+w "$HOMEDIR/go/pkg/mod/example.com/gdep@v1.0.0"
    sed -i s/PLANTED/original/ "$gosrc"
    before=$(cd "$HOMEDIR" && find .cache go | sort)
    run_cmd goenv GOPROXY=off "$SBX" run -p qa -- sh -c "go run . && $poison"
    is "$status:$out" "0:original
PLANTED" "under qa, a warm build inside works, and the poisoned module builds in the sandbox"
    is "$(cd "$HOMEDIR" && find .cache go | sort)" "$before" "the host's build and module caches got no new file"
    run_cmd goenv GOPROXY=off go run .
    is "$out" original "the host's next go build compiles the original module"
    run_cmd goenv GOPROXY=off "$SBX" run -p qa -- go run .
    is "$out" PLANTED "a second qa run builds what the first one wrote"
fi
chmod -R u+w "$HOMEDIR/go"

# --- a real cargo build, offline: cargo compiles what ~/.cargo/registry/src holds ---
# A crate of a local registry of the test's (a source replacement for
# crates.io), unpacked by cargo into the fake home's registry/src; every
# host build starts from a fresh target directory, as a new project or a
# cargo clean does (cargo does not look at a registry source it built).
reg=$tmpdir/cargoreg capp=$tmpdir/cargoapp
mkdir -p "$reg/index/gd/ep" "$capp/src" "$HOMEDIR/.cargo"
/usr/bin/python3 - "$reg" <<'PY'
import hashlib, io, json, sys, tarfile
def add(t, name, data):
    b = data.encode(); i = tarfile.TarInfo(name); i.size = len(b); i.mtime = 1700000000
    t.addfile(i, io.BytesIO(b))
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    add(t, "gdep-1.0.0/Cargo.toml", '[package]\nname = "gdep"\nversion = "1.0.0"\nedition = "2021"\n')
    add(t, "gdep-1.0.0/src/lib.rs", 'pub fn msg() -> &\'static str { "original" }\n')
data = buf.getvalue()
open(sys.argv[1] + "/gdep-1.0.0.crate", "wb").write(data)
open(sys.argv[1] + "/index/gd/ep/gdep", "w").write(json.dumps({"name": "gdep", "vers": "1.0.0",
    "deps": [], "cksum": hashlib.sha256(data).hexdigest(), "features": {}, "yanked": False}) + "\n")
PY
printf '[source.crates-io]\nreplace-with = "localreg"\n[source.localreg]\nlocal-registry = "%s"\n' "$reg" \
    >"$HOMEDIR/.cargo/config.toml"
printf '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n[dependencies]\ngdep = "1.0.0"\n' >"$capp/Cargo.toml"
printf 'fn main() { println!("{}", gdep::msg()); }\n' >"$capp/src/main.rs"
rustup_home=
[ -d "$caller_home/.rustup" ] && rustup_home=$caller_home/.rustup
n=0
cargoenv() { n=$((n + 1)); env HOME="$HOMEDIR" CARGO_HOME="$HOMEDIR/.cargo" ${rustup_home:+RUSTUP_HOME="$rustup_home"} \
    CARGO_TARGET_DIR="$capp/target$n" "$@"; }
cd "$capp" || exit 1
run_cmd cargoenv cargo run --offline -q
cratesrc=$(ls -d "$HOMEDIR"/.cargo/registry/src/*/gdep-1.0.0/src/lib.rs 2>/dev/null)
cpoison="sed -i s/original/PLANTED/ '$cratesrc' && cargo run --offline -q"
if [ "$out" != original ] || [ -z "$cratesrc" ]; then
    for i in 1 2 3 4 5; do skip "cargo cannot build the test's crate offline here (apt-get install cargo): $err"; done
else
    pass "outside, cargo run builds against the crate unpacked in ~/.cargo/registry/src (offline)"
    run_cmd cargoenv "$SBX" run -p qa --rw "$HOMEDIR/.cargo/registry" -- sh -c "$cpoison"
    run_cmd cargoenv cargo run --offline -q
    is "$out" PLANTED "with rw on the registry, a poisoned crate source runs in the host's next cargo build (the attack is real)"
    sed -i s/PLANTED/original/ "$cratesrc"
    run_cmd cargoenv "$SBX" run -p qa -- sh -c "$cpoison"
    is "$status:$out" "0:PLANTED" "under qa, the poisoned crate builds in the sandbox"
    run_cmd cargoenv cargo run --offline -q
    is "$out" original "the host's next cargo build compiles the original crate"
    run_cmd cargoenv "$SBX" run -p qa -- cargo run --offline -q
    is "$out" PLANTED "a second qa run builds what the first one wrote"
fi
cd "$proj" || exit 1

# --- the layers themselves -------------------------------------------------------
# A profile of the caller's may make ~/.local/state writable (the
# sessions did): the layers below stay read-only, their parents pinned.
home_run -p qa-session --rw "$HOMEDIR/.local/state" -- sh -c "
    for d in '$layers' '$layers/qa' \"\$(ls -d '$layers'/qa/*mod)/upper\"; do
        touch \"\$d/x\" 2>&1 || true
    done
    echo w >'$HOMEDIR/.local/state/other' && echo state-writable
    rm -rf '$layers/qa' 2>&1; mv '$HOMEDIR/.local/state/sbx' '$HOMEDIR/.local/state/sbx2' 2>&1; true"
like "$out" "state-writable" "with ~/.local/state writable,"
like "$out" "$layers/x': Read-only file system" "the layers are read-only inside"
unlike "$out" "No such file" "and present: not hidden by accident"
like "$out" "Device or resource busy" "the directory holding them cannot be renamed away (pinned)"
[ -d "$layers/qa" ] && [ ! -e "$HOMEDIR/.local/state/sbx2" ]; ok $? "nor can they be removed or renamed away"
mode=$(stat -c %a "$layers/qa")
is "$mode" 700 "a profile's layers are private to the caller (0700)"
run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" cache list
like "$out" "qa " "sbx cache list shows qa's layers"
like "$out" "$HOMEDIR/go/pkg/mod  $layers/qa/" "with the path and where its layer is"

# --- two runs at once ---------------------------------------------------------------
# overlayfs allows a directory to be the upper of one mount only: while a
# run holds qa's layers (a lock that dies with it), a second run gets
# layers of its own that it drops, and sbx cache clear leaves them alone.
reg=$HOMEDIR/.cargo/registry
reglayer=$(ls -d "$layers"/qa/*.cargo%2Fregistry)
echo host >"$reg/hostfile"
home_run -p qa -- rm "$reg/hostfile"
rm -f "$proj/ready" "$proj/go"
env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" run -p qa -- sh -c "echo first >'$reg/concurrent' &&
    touch ready && while [ ! -e go ]; do sleep 0.05; done" </dev/null >/dev/null 2>"$tmpdir/run1.err" &
run1=$!
waited=0
while [ ! -e "$proj/ready" ] && [ $waited -lt 200 ]; do sleep 0.05; waited=$((waited + 1)); done
[ -e "$proj/ready" ]; ok $? "run 1 of qa is running" || cat "$tmpdir/run1.err"
flock -n "$reglayer" true; isnt "$?" 0 "it holds a lock on each of its layers"
home_run -p qa -- sh -c "echo second >'$reg/second' && cat '$reg/concurrent' &&
    { test -e '$reg/hostfile' || echo whiteout-kept; } &&
    grep ' $reg ' /proc/self/mountinfo | grep -c 'lowerdir=[^,]*:[^,]*,upperdir'"
is "$status" 0 "a second run of qa meanwhile works"
like "$err" "cache = $reg: in use by another run of qa: this run's writes there last for this run only" \
    "and says its writes there last for this run only"
is "$out" "first
whiteout-kept
1" "it sees the layer's writes and deletions, through a snapshot of it as a second lower (its upper in use is neither its upper nor a lower)"
run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" cache clear qa
is "$status" 125 "sbx cache clear qa meanwhile fails (125)"
like "$err" "$reglayer: the layer of cache = $reg is in use by a run of qa now" "naming the layer in use"
[ -d "$reglayer/upper" ]; ok $? "and leaves it in place"
touch "$proj/go" && wait $run1
is "$?" 0 "run 1 ends"
home_run -p qa -- sh -c "cat '$reg/concurrent' '$reg/second' 2>&1"
like "$out" first "run 1's writes persist in its layer"
like "$out" "$reg/second: No such file" "the second run's are gone"
[ ! -e "$reg/concurrent" ] && [ ! -e "$reg/second" ] && [ -e "$reg/hostfile" ]; ok $? "and the host's directory has neither, and its own file still"
[ -z "$(ls "$reglayer" | grep snap-)" ]; ok $? "the snapshot of an ended run is removed by the next one"
flock -n "$reglayer" true; ok $? "the lock went with run 1"
# A SIGKILLed sbx leaves no lock behind: it was on its descriptor
rm -f "$proj/ready"
marker=30.$$
env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" run -p qa -- sh -c "touch ready; exec sleep $marker" </dev/null >/dev/null 2>&1 &
run1=$!
waited=0
while [ ! -e "$proj/ready" ] && [ $waited -lt 200 ]; do sleep 0.05; waited=$((waited + 1)); done
kill -KILL $run1; wait $run1 2>/dev/null
# The kernel tears the killed sandbox's mounts down after its processes
# are gone, a moment after the lock went with sbx (sbx-profile(5)): the
# next run waits for that, not to meet them.
waited=0
while pgrep -f "sleep $marker" >/dev/null && [ $waited -lt 100 ]; do sleep 0.05; waited=$((waited + 1)); done
sleep 0.2
home_run -p qa -- cat "$reg/concurrent"
is "$status:$out" "0:first" "after sbx is SIGKILLed, the next run has the layer again"
unlike "$err" "in use" "with no stale lock"
rm -f "$proj/ready" "$proj/go"
# A profile given by a file that is gone leaves layers no run uses: list
# marks them, clear --stale drops them (and only them).
printf '[profile]\ninclude = default\n[filesystem]\ncache = %s\n' "$HOMEDIR/.cache" >"$tmpdir/gone.ini"
home_run -p "$tmpdir/gone.ini" -- true
is "$status" 0 "a run of a profile file with a cache rule"
rm "$tmpdir/gone.ini"
run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" cache list
like "$out" "(stale: the profile file $tmpdir/gone.ini is gone; sbx cache clear --stale)" \
    "once the file is gone, sbx cache list marks its layers stale"
run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" cache clear --stale
like "$status:$out" "0:removed the layers of" "sbx cache clear --stale removes them"
[ -z "$(ls "$layers" | grep gone.ini)" ] && [ -d "$layers/qa" ]; ok $? "and keeps qa's"

# A link planted in an upper directory (as a profile that made the layers
# writable could) must not make clear remove anything outside them.
upper=$(ls -d "$layers"/qa/*go%2Fpkg%2Fmod)/upper
mkdir -p "$tmpdir/victim" && echo keep >"$tmpdir/victim/file"
ln -s "$tmpdir/victim" "$upper/link" && ln -s "$tmpdir/victim/file" "$upper/filelink"
run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" cache clear qa
is "$status" 0 "sbx cache clear qa succeeds (read-only module directories included)"
[ ! -e "$layers/qa" ] && [ -d "$layers/devbackend" ]; ok $? "qa's layers are gone, devbackend's kept"
is "$(cat "$tmpdir/victim/file" 2>&1)" keep "a link planted in the layer removed nothing outside it"
home_run -p qa -- cat "$HOMEDIR/$mod"
is "$out" original "after clear, qa sees the host's module again"
# A layer directory replaced by a symlink (to the host's cache itself)
# would make the overlay's upper directory the host's: refused.
rm -rf "$layers/qa"/*go%2Fpkg%2Fmod
ln -s "$HOMEDIR/go/pkg/mod" "$layers/qa/$(printf '%s' "${HOMEDIR#/}/go/pkg/mod" | sed 's,/,%2F,g')"
home_run -p qa -- true
is "$status" 125 "a symlink in place of a layer directory stops the run (125)"
like "$err" "a symlink or file where sbx keeps its layers" "naming it"
rm -f "$layers"/qa/*go%2Fpkg%2Fmod

# --- rule errors -----------------------------------------------------------------
printf '[profile]\ninclude = default\n[filesystem]\ncache = %s\n' "$HOMEDIR/.local/state" >"$tmpdir/self.ini"
home_run -p "$tmpdir/self.ini" -- true
is "$status" 125 "a cache holding the layers root is refused (125)"
like "$err" "self.ini:4: cache = $HOMEDIR/.local/state holds sbx's write layers" "naming the line"
printf '[profile]\ninclude = default\n[filesystem]\ncache = %s\n' "$HOMEDIR/$pyenv" >"$tmpdir/file.ini"
home_run -p "$tmpdir/file.ini" -- true
like "$status:$err" "file.ini:4: cache path $HOMEDIR/$pyenv ($HOMEDIR/$pyenv) is not a directory" \
    "a cache on a file is refused, naming the line"
run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" cache clear
is "$status" 0 "sbx cache clear drops every profile's layers"
run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX" cache list
like "$out" "no layers" "and list says there are none"
chmod -R u+w "$HOMEDIR/go"

# --- hg and jj metadata, in both tiers ------------------------------------------
repo=$tmpdir/vcs
mkdir -p "$repo/.hg" "$repo/.jj/repo/store" && echo dotencode >"$repo/.hg/requires"
echo "$tmpdir/other/.git" >"$repo/.jj/repo/store/git_target"
cd "$repo" || exit 1
plant_vcs="printf '[hooks]\\npre-status = touch $tmpdir/pwned\\n' >.hg/hgrc 2>&1;
    printf '[ui]\\npager = \"touch $tmpdir/pwned\"\\n' >.jj/repo/config.toml 2>&1;
    echo share >>.hg/requires 2>&1; echo /elsewhere >.jj/repo/store/git_target 2>&1; echo x >work && echo project-writable"
printf '[profile]\ninclude = qa\n[filesystem]\nunprotect = %s/.hg/hgrc\nunprotect = %s/.jj/repo/config.toml\n' \
    "$repo" "$repo" >"$tmpdir/unprotected.ini"
home_run -p "$tmpdir/unprotected.ini" -- sh -c "$plant_vcs"
like "$(cat "$repo/.hg/hgrc" "$repo/.jj/repo/config.toml" 2>&1)" "pre-status = touch" \
    "unprotected, run 1 plants a hook in .hg/hgrc and a pager in .jj/repo/config.toml (the attack is real)"
rm -f "$repo/.hg/hgrc" "$repo/.jj/repo/config.toml" work
for tier in namespaces landlock; do
    if [ $tier = landlock ]; then
        printf '[profile]\ninclude = qa\n[filesystem]\n-tmpfs = *\n' >"$tmpdir/ll.ini"
        home_run -p "$tmpdir/ll.ini" --fallback landlock -- true
        [ "$status" = 0 ] || { for i in 1 2 3 4 5 6; do skip "no Landlock tier here ($err)"; done; continue; }
        run_cmd env HOME="$HOMEDIR" XDG_STATE_HOME= "$SBX_TEST_HELPERS/deny-userns" "$SBX" run \
            -p "$tmpdir/ll.ini" --fallback landlock -- sh -c "$plant_vcs"
        # Landlock cannot take write access back below a writable
        # directory: the tier grants the project entry by entry, the
        # protected names (missing ones too) left read-only, and says so
        isnt "$status" 125 "landlock tier: the hg/jj project starts"
        like "$err" "holds protected paths (" "and says which paths it keeps read-only:"
        like "$err" "$repo/.hg/hgrc, $repo/.hg/requires, $repo/.jj/repo/config.toml," "  .hg/hgrc and .jj/repo/config.toml, missing as they are"
        like "$out$err" ".hg/hgrc: Permission denied" "landlock tier: .hg/hgrc cannot be made"
        like "$err" "cache = $HOMEDIR/.cache is read-only in the Landlock tier" \
            "landlock tier: a cache is read-only there, and said (no mount namespace for a layer)"
    else
        home_run -p qa -- sh -c "$plant_vcs"
        like "$out" "project-writable" "$tier tier: the hg/jj work tree itself is writable"
        like "$out$err" ".hg/hgrc: Read-only file system" "but not .hg/hgrc"
        like "$out$err" ".jj/repo/config.toml: Read-only file system" "nor .jj/repo/config.toml"
    fi
    is "$(cat "$repo/.hg/hgrc" "$repo/.jj/repo/config.toml" 2>/dev/null):$(cat "$repo/.hg/requires" "$repo/.jj/repo/store/git_target")" \
        ":dotencode
$tmpdir/other/.git" "$tier tier: .hg/hgrc, .jj/repo/config.toml, .hg/requires, git_target stay unwritten"
    rm -f work
done
[ ! -e "$tmpdir/pwned" ]; ok $? "nothing ran"

# --- a fake worktree planted in the project ---------------------------------------
git init -q "$tmpdir/other" && p=$tmpdir/p && mkdir -p "$p/sub" && git init -q "$p"
cd "$p" || exit 1
home_run -p qa -- sh -c "mkdir fakewt && echo ref: refs/heads/x >fakewt/HEAD &&
    echo '$tmpdir/other/.git' >fakewt/commondir && echo '$p/sub/.git' >fakewt/gitdir &&
    echo 'gitdir: ../fakewt' >sub/.git && ln -s ../fakewt lnk.git && mkdir lnk && mv lnk.git lnk/.git"
is "$status" 0 "run 1 plants P/fakewt (commondir -> another repository), P/sub/.git and a symlinked P/lnk/.git"
cd "$p/sub" && home_run -p qa -- sh -c "echo pwned >>'$tmpdir/other/.git/config'"
is "$status" 125 "the next run started in P/sub is refused (125)"
like "$err" "$p/fakewt is not in the worktrees/ of the repository its commondir names" "naming the planted directory"
cd "$p/lnk" && home_run -p qa -- true
like "$status:$err" "125:" "started in P/lnk (a symlinked .git to it): refused too"
unlike "$(cat "$tmpdir/other/.git/config")" pwned "the other repository's .git was never writable"
done_testing
