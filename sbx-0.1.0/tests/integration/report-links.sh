#!/bin/sh
# --report never writes through a name a sandbox could have swapped
# (issue 14, item 5). A run under qa can write its working directory; the
# report of a later run (or of the same one) goes there. What a command
# plants at the report's name, a symbolic link or a hard link to a file of
# the caller's, a fifo, a directory, must not make the supervisor write the
# caller's file or hang: the record replaces the name (rename), and a
# non-regular file found at the start is refused (125, naming the path).
# Each attack is first shown to work against a naive writer (the shell's
# `>`, which is open(O_TRUNC) as sbx did).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir

run_sbx run -- true
case $err in
*"not available in this build"*)
    for i in $(seq 1 30); do skip "the run core is not in this build (sbx run: $err)"; done
    done_testing ;;
esac

# The caller's secret, outside the sandbox's writable directory (read-only
# inside: root = ro), and the writable working directory of the runs.
secret="$tmpdir/secret"
work="$tmpdir/work"
mkdir "$work"
reset_secret() { printf 'PRIVATE KEY decoy\n' >"$secret"; chmod 600 "$secret"; }
reset_secret
r="$work/report.json"
cd "$work" || exit 1

# --- a symbolic link planted by one run, written by the next
run_sbx run -p qa -- ln -s "$secret" report.json
is "$status" 0 "symlink: run 1 plants report.json -> the secret"
sh -c 'echo naive >report.json' 2>/dev/null
is "$(cat "$secret")" naive "symlink: a naive writer (open O_TRUNC) overwrites the secret through it"
reset_secret
rm -f "$r"
run_sbx run -p qa -- ln -s "$secret" report.json
run_sbx run -p qa --report "$r" -- true
is "$status" 0 "symlink: run 2 with --report exits 0"
is "$(cat "$secret")" "PRIVATE KEY decoy" "symlink: the secret is unchanged"
[ -f "$r" ] && [ ! -L "$r" ] && jq -e '.kind == "run"' "$r" >/dev/null
ok $? "symlink: report.json is now a regular file holding the record"
like "$err" "--report: $r was a symbolic link (to $secret)" "symlink: sbx says it replaced a link"

# --- the same planted during the run itself, after sbx started
rm -f "$r"
run_sbx run -p qa --report "$r" -- ln -s "$secret" report.json
is "$status/$(cat "$secret")" "0/PRIVATE KEY decoy" "symlink planted mid-run: the secret is unchanged"
[ -f "$r" ] && [ ! -L "$r" ] && jq -e . "$r" >/dev/null
ok $? "symlink planted mid-run: the record replaced the link"

# --- a hard link to the secret (the caller owns it: protected_hardlinks
# allows the link). link(2) needs both names on one mount (EXDEV across
# binds), so run 1 starts in the parent, which qa's rw = ${CWD} binds whole.
rm -f "$r"
cd "$tmpdir" || exit 1
run_sbx run -p qa -- ln "$secret" work/report.json
cd "$work" || exit 1
is "$status/$(stat -c %h "$secret")" 0/2 "hard link: run 1 links report.json to the secret"
sh -c 'echo naive >report.json'
is "$(cat "$secret")" naive "hard link: a naive writer overwrites the secret through it"
reset_secret
run_sbx run -p qa --report "$r" -- true
is "$status/$(cat "$secret")" "0/PRIVATE KEY decoy" "hard link: run 2 exits 0, the secret is unchanged"
is "$(stat -c %h "$secret")/$(stat -c %h "$r")" 1/1 "hard link: report.json is a file of its own"
jq -e . "$r" >/dev/null
ok $? "hard link: it holds the record"
like "$err" "had 1 other hard link" "hard link: sbx says it replaced a shared file"

# --- sbx audit --report takes the same way
rm -f "$r"
ln -s "$secret" "$r"
run_sbx audit --report "$r" -- true
is "$(cat "$secret")" "PRIVATE KEY decoy" "audit --report: the secret is unchanged"
[ -f "$r" ] && [ ! -L "$r" ] && jq -e '.kind == "audit"' "$r" >/dev/null
ok $? "audit --report: the audit record replaced the link"

# --- a fifo: a naive writer blocks forever; sbx refuses it at once
rm -f "$r"
run_sbx run -p qa -- mkfifo report.json
is "$status" 0 "fifo: run 1 plants a fifo at report.json"
timeout 2 sh -c 'echo naive >report.json'
is "$?" 124 "fifo: a naive writer hangs on it (killed by timeout 2 s)"
start=$(date +%s)
run_cmd timeout 20 "$SBX" run -p qa --report "$r" -- touch "$work/ran"
is "$status" 125 "fifo: run 2 exits 125 (no hang)"
[ $(($(date +%s) - start)) -lt 10 ]
ok $? "fifo: at once"
like "$err" "sbx: --report: $r is a fifo, not a regular file: remove it or name another file" \
    "fifo: the message names the path and the fix"
[ ! -e "$work/ran" ] && [ -p "$r" ]
ok $? "fifo: refused before the command ran, the fifo left as it was"

# --- a fifo planted during the run is replaced, not opened
rm -f "$r"
run_cmd timeout 20 "$SBX" run -p qa --report "$r" -- mkfifo report.json
is "$status" 0 "fifo planted mid-run: exit 0 (no hang)"
[ -f "$r" ] && jq -e . "$r" >/dev/null
ok $? "fifo planted mid-run: the record replaced it"

# --- a directory, and a link to a device: refused, named
rm -f "$r"
mkdir "$r"
run_sbx run -p qa --report "$r" -- true
is "$status" 125 "directory: exit 125"
like "$err" "sbx: --report: $r is a directory, not a regular file" "directory: named"
rmdir "$r"
run_sbx run -p qa --report "$r" -- mkdir report.json
is "$status" 125 "directory planted mid-run: exit 125 (the record cannot replace it)"
like "$err" "--report: cannot write the run record to $r: Is a directory" "directory planted mid-run: named"
rmdir "$r"
ln -s /dev/null "$r"
run_sbx run -p qa --report "$r" -- true
is "$status" 125 "link to /dev/null: exit 125, not a replaced link"
like "$err" "$r is a symbolic link to a character device" "link to a device: named"
[ -L "$r" ] && [ -c /dev/null ]
ok $? "link to a device: the link and /dev/null are left as they were"
rm -f "$r"

# --- nothing temporary is left behind
is "$(ls -A "$work" | grep -c '^\.sbx-output')" 0 "no temporary file is left in the directory"

done_testing
