#!/bin/sh
# --report to what is not a plain file name (issues 27 and 29): "-" and
# /dev/stdout, /dev/stderr, /dev/fd/N (sbx's own descriptors: a pipe, a
# redirected stdout), a device, a fifo of the caller's; a link of the
# host's is followed, never replaced; and no directory on the way may be a
# symlink a sandbox could have planted (the rule of rw paths). Each attack
# is first shown against the way sbx wrote before (a rename over the name,
# the directory followed as it was), then refused.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 27
make_tmpdir
work=$tmpdir/work outside=$tmpdir/outside
mkdir -p "$work" "$outside"
# the working directory is a work tree of its own: the project qa writes
git init -q "$work" || exit 1
cd "$work" || exit 1

# --- "-": the record on sbx's standard output, after the command's output
"$SBX" run -p qa --report - -- echo from-command >"$tmpdir/o" 2>"$tmpdir/e"
is "$?" 0 "--report -: exit 0"
[ ! -e "$work/-" ]; ok $? "--report -: no file named '-' is made"
is "$(sed -n 1p "$tmpdir/o")" from-command "--report -: the command's output comes first"
sed 1d "$tmpdir/o" | jq -e '.kind == "run"' >/dev/null
ok $? "--report -: then the record, as JSON"

# --- /dev/stdout with stdout redirected to a file: the link in /dev stays.
# For root, in a mount namespace of the test's own with a copy of /dev on a
# tmpfs: a binary with the old rule replaced the machine's /dev/stdout.
private_dev() {
    if ! is_root; then "$@"; return; fi
    mkdir -p "$tmpdir/dev"
    unshare -m sh -c 'd=$1; shift
        mount -t tmpfs -o mode=755 tmpfs "$d" &&
        cp -a /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty "$d/" &&
        ln -s /proc/self/fd "$d/fd" && ln -s /proc/self/fd/0 "$d/stdin" &&
        ln -s /proc/self/fd/1 "$d/stdout" && ln -s /proc/self/fd/2 "$d/stderr" &&
        mkdir "$d/pts" "$d/shm" "$d/net" && { [ ! -e /dev/net/tun ] || cp -a /dev/net/tun "$d/net/"; } &&
        mount --move "$d" /dev || exit 99
        "$@"; st=$?
        [ -L /dev/stdout ] || st=98
        exit $st' sh "$tmpdir/dev" "$@"
}
private_dev "$SBX" run -p qa --report /dev/stdout -- true >"$tmpdir/o2" 2>"$tmpdir/e"
is "$?" 0 "--report /dev/stdout: exit 0, and /dev/stdout is still a symbolic link (98: replaced)"
[ -L /dev/stdout ]; ok $? "the machine's /dev/stdout is a symbolic link"
jq -e '.kind == "run"' "$tmpdir/o2" >/dev/null
ok $? "and the record went to the file stdout was redirected to"
# The same shape where a test may make it: a link of the host's (outside
# every writable place) to /proc/self/fd/1. sbx before this rule renamed
# the record over the link.
ln -s /proc/self/fd/1 "$outside/stdout"
"$SBX" run -p qa --report "$outside/stdout" -- true >"$tmpdir/o3" 2>"$tmpdir/e"
[ -L "$outside/stdout" ] && [ "$(readlink "$outside/stdout")" = /proc/self/fd/1 ]
ok $? "a host link to /proc/self/fd/1 is followed, not replaced"
jq -e . "$tmpdir/o3" >/dev/null; ok $? "the record went where it points"

# --- a pipe: /dev/fd/N and /dev/stderr
out=$( { "$SBX" run -p qa --report /dev/fd/3 -- echo hidden 3>&1 >/dev/null 2>/dev/null; } | jq -r .kind)
is "$out" run "--report /dev/fd/3 on a pipe: the reader gets the record"
out=$("$SBX" run -p qa --report /dev/stderr -- true 2>&1 >/dev/null | jq -r .kind)
is "$out" run "--report /dev/stderr: the record on sbx's standard error"
"$SBX" run -p qa --report /dev/fd/9 -- touch "$work/ran9" 9<&- >/dev/null 2>"$tmpdir/e"
is "$?" 125 "--report /dev/fd/9 with 9 closed: exit 125"
like "$(cat "$tmpdir/e")" "names descriptor 9, which is not open for writing" "saying why"
[ ! -e "$work/ran9" ]; ok $? "before the command ran"

# --- a device: written into, never replaced
run_sbx run -p qa --report /dev/null -- true
is "$status" 0 "--report /dev/null: exit 0 (the record is discarded)"
[ -c /dev/null ]; ok $? "/dev/null is still the device"

# --- a fifo of the caller's, outside every writable place: written into
mkfifo "$outside/fifo"
timeout 30 cat "$outside/fifo" >"$tmpdir/fifo.out" &
reader=$!
run_cmd timeout 30 "$SBX" run -p qa --report "$outside/fifo" -- true
wait $reader
is "$status" 0 "--report to a fifo of the caller's: exit 0"
jq -e '.kind == "run"' "$tmpdir/fifo.out" >/dev/null
ok $? "its reader got the record"
[ -p "$outside/fifo" ]; ok $? "the fifo is left in place"

# --- a parent-directory symlink planted by an earlier run (issue 27)
echo victim >"$outside/victim"
run_sbx run -p qa -- ln -s "$outside" "$work/out"
is "$status" 0 "run 1 under qa plants out -> a directory outside every writable path"
# What sbx did before: the directory opened through the link, the record
# renamed over the name there.
(cd "$work/out" && printf '{}\n' >.t && mv .t victim)
is "$(cat "$outside/victim")" "{}" "a writer that follows the directory replaces the file outside (the attack is real)"
echo victim >"$outside/victim"
run_sbx run -p qa --report "$work/out/victim" -- touch "$work/ran"
is "$status" 125 "run 2 with --report out/victim: exit 125"
like "$err" "goes through the symlink $work/out -> $outside, which a sandbox could have made" \
    "the message names the link"
is "$(cat "$outside/victim")" victim "the file outside is unchanged"
[ ! -e "$work/ran" ]; ok $? "refused before the command ran"
# The same rule with the profile's own rw paths, known once it is loaded:
# a link of the caller's in a directory only --rw makes writable.
mkdir -p "$tmpdir/extra" "$tmpdir/elsewhere"
ln -s "$tmpdir/elsewhere" "$tmpdir/extra/link"
run_sbx run -p qa --report "$tmpdir/extra/link/r.json" -- true
is "$status" 0 "without --rw on its directory, a link of the caller's is the host's own: followed"
run_sbx run -p qa --rw "$tmpdir/extra" --report "$tmpdir/extra/link/r2.json" -- touch "$work/ran2"
is "$status:$([ -e "$work/ran2" ] && echo ran)" "125:" "with --rw on it, the same link could be planted: refused before the command ran"

done_testing
