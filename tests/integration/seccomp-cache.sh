#!/bin/sh
# Issue 30: the compiled seccomp filter kept across runs
# (src/seccomp_cache.h). A second run loads the first one's program; the
# filter the command gets is the same (Seccomp_filters, a denied call);
# SBX_SECCOMP_CACHE=0 compiles and writes nothing; a file damaged from
# outside is not trusted and is rewritten. The attack: HOME inside the
# project (writable with --rw), where a command could otherwise rewrite
# the next run's filter, replace the directory or its parent: each
# attempt fails (the directory is on every run's protect list) and the
# next run loads the entry unchanged. Without that protect entry the
# command's write succeeds (checked when the defence was written).
# Root and unprivileged alike: everything is the caller's own.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 14

make_build_tmpdir seccomp-cache
proj=$tmpdir/proj
mkdir -p "$proj/home" && cd "$proj" || exit 1
export HOME="$proj/home"
unset XDG_CACHE_HOME SBX_SECCOMP_CACHE
cache=$HOME/.cache/sbx

origin() { # ARGS...: the -v line's word on where the filter came from
    "$SBX" run -v "$@" -- true 2>&1 >/dev/null | sed -n 's/.*seccomp filter compiled: .*beside the plan; \(.*\))$/\1/p'
}

# --- a cold run keeps it, the next one loads it -----------------------------
is "$(origin --rw "$proj")" "compiled, and cached" "a cold cache: compiled and kept"
is "$(origin --rw "$proj")" "from the cache" "the next run loads the kept program"
is "$(stat -c %a "$cache")" 700 "the cache directory is 0700"
entry=$(ls "$cache"/filter-* 2>/dev/null | head -1)
is "$(stat -c '%a %u' "$entry")" "600 $(id -u)" "the entry is the caller's, 0600"

# --- the filter the command gets is the same --------------------------------
filters() { "$SBX" run --rw "$proj" -- sed -n 's/^Seccomp_filters:\t//p' /proc/self/status; }
cached=$(filters)
uncached=$(SBX_SECCOMP_CACHE=0 filters)
is "$cached" "$uncached" "as many filters with the cache as without ($cached)"
run_sbx run --rw "$proj" -- unshare -C true
isnt "$status" 0 "under the cached filter a new cgroup namespace is still denied"

# --- SBX_SECCOMP_CACHE=0 ------------------------------------------------------
rm -rf "$cache"
is "$(SBX_SECCOMP_CACHE=0 origin --rw "$proj")" "compiled" "SBX_SECCOMP_CACHE=0: compiled"
is "$(ls -A "$cache" 2>/dev/null)" "" "... and nothing written"

# --- damaged from outside: not trusted, rewritten ---------------------------
origin --rw "$proj" >/dev/null
entry=$(ls "$cache"/filter-* | head -1)
cp "$entry" "$tmpdir/good"
size=$(stat -c %s "$entry")
printf '\377' | dd of="$entry" bs=1 seek=$((size - 2)) conv=notrunc 2>/dev/null
is "$(origin --rw "$proj")" "compiled: the cached one (does not verify) was rewritten" "a flipped byte: not trusted"
cmp -s "$entry" "$tmpdir/good"
ok $? "... and the entry rewritten as it was"

# --- the command cannot plant the next run's filter --------------------------
# HOME is inside the project, writable with --rw: everything else in it is
# the command's to write.
run_sbx run --rw "$proj" -- sh -c "
    : >$HOME/planted-elsewhere
    printf x >$entry && echo wrote-entry
    mv $cache $cache.old && echo moved-dir
    mv $HOME/.cache $HOME/.cache.old && echo moved-parent
    ln -s /dev/null $cache/filter-0000000000000000 && echo planted-link"
is "$out" "" "inside: the entry, the directory and its parent cannot be written, moved or added to"
test -e "$HOME/planted-elsewhere"
ok $? "... while the rest of HOME is writable (the attack's premise)"
cmp -s "$entry" "$tmpdir/good"
ok $? "... the entry is unchanged outside"
is "$(origin --rw "$proj")" "from the cache" "... and the next run loads it"

done_testing
