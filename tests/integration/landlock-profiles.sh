#!/bin/sh
# Every shipped profile starts in the Landlock tier (issue 26): under a
# refused user namespace (deny-userns, as Docker's default seccomp
# profile) and --fallback landlock, each profiles/*.ini runs, refuses
# nothing in `sbx profile show --tier landlock`, and loopback-fds says in
# that tier what it says in the namespaces (qa's promise, and every other
# profile's own). Then what needed a refusal before: hide and ro rules
# below an rw path. A build's $HOME inside the project (debhelper's) with
# its credential stores hidden, and a read-only directory inside the
# writable project: Landlock cannot take rights back below a directory, so
# the tier grants the rw directory entry by entry around them. Each attack
# (read, hard link, rename of the secret or of a directory holding it,
# writing the read-only file) first works without sbx. Runs as root and as
# an unprivileged user.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
NOUSERNS="$SBX_TEST_HELPERS/deny-userns"
LFDS="$SBX_TEST_HELPERS/loopback-fds"
export ASAN_OPTIONS=detect_leaks=0
abi=$("$SBX" probe --tap 2>/dev/null | sed -n 's/^ok [0-9]* - landlock: ok \([0-9]*\) .*/\1/p')
if [ -z "$abi" ] || [ "$abi" -lt 6 ]; then
    skip "no Landlock ABI 6 here (sbx probe: '${abi:-none}')"
    done_testing
fi
make_visible_tmpdir landlock-profiles
# a tree under /tmp (CI's root clone) is not visible in the namespace tier
cp "$LFDS" "$tmpdir/loopback-fds" && LFDS=$tmpdir/loopback-fds
home=$tmpdir/home
mkdir -p "$home" "$tmpdir/work"
cd "$tmpdir/work" || exit 1
norm() { printf '%s\n' "$1" | sed 's/port [0-9]*/port N/g'; }

# --- every shipped profile, in both tiers --------------------------------------
for prof in "$SBX_TOP_SRCDIR"/profiles/*.ini; do
    name=$(basename "$prof" .ini)
    run_cmd env HOME="$home" "$SBX" profile show --tier landlock "$name"
    is "$status" 0 "$name: profile show --tier landlock: exit 0"
    case $out in
        *"; refused: "*) fail "$name: ... nothing refused"; diag "$(printf '%s\n' "$out" | grep '; refused: ')" ;;
        *) pass "$name: ... nothing refused" ;;
    esac
    run_cmd env HOME="$home" "$SBX" run -q -p "$name" -- "$LFDS"
    ns_out=$out
    run_cmd env HOME="$home" "$NOUSERNS" "$SBX" run --fallback landlock -p "$name" -- "$LFDS"
    like "$err" "sbx[landlock]: the Landlock tier (Landlock ABI $abi) has no namespaces" \
        "$name: starts in the Landlock tier, saying what differs"
    is "$(norm "$out")" "$(norm "$ns_out")" "$name: loopback-fds says the same in both tiers"
done

# --- a build's $HOME inside the project, its credential stores hidden ----------
# a repository, as a package's source tree usually is: a $HOME inside a
# bare working directory is refused in both tiers (project.h)
project=$tmpdir/work
git init -q "$project" || fail "git init"
dh=$project/debian/.debhelper/home
mkdir -p "$dh/.ssh" "$project/build"
echo NETRC-SECRET-4711 >"$dh/.netrc"
echo KEY-SECRET-0815 >"$dh/.ssh/id_ed25519"
echo old >"$project/existing"
ll() { HOME=$dh run_cmd "$NOUSERNS" "$SBX" run -q -p qa -- sh -c "$1"; }

is "$(cat "$dh/.netrc")" NETRC-SECRET-4711 "without sbx, the build's ~/.netrc is readable (the test can fail)"
ln "$dh/.netrc" "$project/build/link" && rm "$project/build/link"
ok $? "without sbx, it can be hard-linked into the project's build directory"
mv "$dh/.netrc" "$project/build/moved" && mv "$project/build/moved" "$dh/.netrc"
ok $? "without sbx, it can be renamed there"

HOME=$dh run_cmd "$NOUSERNS" "$SBX" run -p qa -- cat "$dh/.netrc" "$dh/.ssh/id_ed25519"
is "$status" 1 "Landlock tier: qa starts with the build's HOME inside the project, and cat fails"
unlike "$out" SECRET "... neither ~/.netrc nor ~/.ssh/id_ed25519 is read"
like "$err" "hide = $dh/.netrc at $SBX_TOP_SRCDIR/profiles/default.ini:" "... the hidden paths inside rw named at start, by file:line"
like "$err" "no entry can be made, removed or renamed directly in it" "... with what it costs"
ll "ln '$dh/.netrc' '$project/build/link' || echo refused"
like "$out" refused "Landlock tier: the hidden ~/.netrc cannot be hard-linked into a writable directory"
ll "mv '$dh/.netrc' '$project/build/moved' || echo refused"
like "$out" refused "... nor renamed there"
ll "mv '$dh/.ssh' '$project/build/ssh' || echo refused"
like "$out" refused "... nor the hidden ~/.ssh"
ll "mv '$dh' '$project/build/home' || echo refused; mv '$project/debian' '$project/build/d' || echo refused"
is "$out" "refused
refused" "... nor a directory holding them"
ll "cp -r '$dh' '$project/build/copy' 2>/dev/null; cat '$project/build/copy/.netrc' 2>/dev/null; echo done"
unlike "$out" SECRET "... nor copied out"
is "$(cat "$dh/.netrc"; ls "$project/build")" "NETRC-SECRET-4711
copy" "... and it is where it was, unchanged"
rm -rf "$project/build/copy"
ll "echo new >'$project/existing' && echo n >'$project/build/new' && cat '$project/existing' '$project/build/new'"
is "$out" "new
n" "... while what exists in the project stays writable, and below it"

# --- ro inside the writable project ---------------------------------------------
mkdir "$project/vendor"
echo pinned >"$project/vendor/lib.c"
ro=$tmpdir/ro.ini
printf '[profile]\ninclude = qa\n[filesystem]\nro = %s\n' "$project/vendor" >"$ro"
echo x >>"$project/vendor/lib.c" && sed -i '$d' "$project/vendor/lib.c"
ok $? "without sbx, vendor/lib.c is writable (the test can fail)"
run_cmd env HOME="$home" "$NOUSERNS" "$SBX" run -p "$ro" -- sh -c \
    "cat '$project/vendor/lib.c'; echo evil >>'$project/vendor/lib.c' || echo refused; mv '$project/vendor' '$project/build/v' || echo refused; touch '$project/vendor/new' || echo refused; echo n >'$project/build/ok' && echo wrote"
is "$status:$out" "0:pinned
refused
refused
refused
wrote" "Landlock tier: ro inside rw: readable, not writable, not movable, nothing new in it; the rest writable"
is "$(cat "$project/vendor/lib.c")" pinned "... and vendor/lib.c unchanged"
like "$err" "holds read-only or hidden paths (ro = $project/vendor at $ro:4)" "... the rule named by file:line at start, with what the tier does instead"

done_testing
