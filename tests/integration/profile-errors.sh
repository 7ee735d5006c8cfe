#!/bin/sh
# Every malformed profile in tests/profiles/bad gives exit 125 and the exact
# "FILE:LINE: message" its first line promises; hostile files (directories,
# FIFOs, symlink loops, huge lines, many keys) get a clear error or work.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

bad="$SBX_TOP_SRCDIR/tests/profiles/bad"
make_tmpdir

for f in "$bad"/*.ini; do
    name=$(basename "$f")
    expect=$(head -n 1 "$f" | sed 's|^; expect: ||')
    expect=$(printf '%s' "$expect" | sed "s|@FILE@|$f|")
    run_sbx profile check "$f"
    is "$status" 125 "$name: exit 125"
    like "$err" "$expect" "$name: names file:line and the problem"
done

# All errors of a file are reported, not only the first.
printf '[limits]\nnofle = 1\nnproc = x\n[bogus]\n[filesystem]\nrw = rel\n' >"$tmpdir/many.ini"
run_sbx profile check "$tmpdir/many.ini"
is "$status" 125 "several errors: exit 125"
like "$err" "many.ini:2: unknown key 'nofle'" "several errors: the first"
like "$err" "many.ini:3: nproc: 'x' is not valid" "several errors: the second"
like "$err" "many.ini:4: unknown section [bogus]" "several errors: the third"
like "$err" "many.ini:6: rw: 'rel' is not an absolute path" "several errors: the fourth"

# check reports every file and exits 125 when any fails
run_sbx profile check "$SBX_TOP_SRCDIR/profiles/qa.ini" "$tmpdir/many.ini"
is "$status" 125 "check of a good and a bad file: exit 125"
like "$out" "qa.ini: ok" "check of a good and a bad file: the good one is ok"
like "$err" "1 of 2 profiles failed the check" "check of a good and a bad file: summary"

# An empty profile is valid: the built-in defaults.
: >"$tmpdir/empty.ini"
run_sbx profile check "$tmpdir/empty.ini"
is "$status" 0 "empty file: valid"

# A directory, a FIFO, /dev/zero: clear errors, no hang.
mkdir "$tmpdir/dir.ini"
run_sbx profile check "$tmpdir/dir.ini"
is "$status" 125 "directory: exit 125"
like "$err" "is a directory, not a profile file" "directory: says so"
mkfifo "$tmpdir/fifo.ini"
run_cmd timeout 10 "$SBX" profile check "$tmpdir/fifo.ini"
is "$status" 125 "FIFO: exit 125, no hang"
like "$err" "is not a regular file" "FIFO: says so"
run_sbx profile show /dev/zero
is "$status" 125 "/dev/zero: exit 125"
like "$err" "/dev/zero is not a regular file" "/dev/zero: says so"

# A file sbx may not read: EACCES named (as root, checked as nobody).
printf '[limits]\nnofile = 5\n' >"$tmpdir/secret.ini"
chmod 000 "$tmpdir/secret.ini"
chmod 755 "$tmpdir"
if is_root; then
    run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups "$SBX" profile check "$tmpdir/secret.ini"
else
    run_sbx profile check "$tmpdir/secret.ini"
fi
is "$status" 125 "unreadable file: exit 125"
like "$err" "secret.ini: Permission denied" "unreadable file: names the file and errno"

# An include through a symlink loop.
ln -s loop-b "$tmpdir/loop-a.ini"
ln -s loop-a.ini "$tmpdir/loop-b"
printf '[profile]\ninclude = ./loop-a.ini\n' >"$tmpdir/top.ini"
run_sbx profile check "$tmpdir/top.ini"
is "$status" 125 "symlink loop include: exit 125"
like "$err" "top.ini:2: $tmpdir/loop-a.ini: too many levels of symbolic links" "symlink loop include: names the line"

# An include cycle names the chain.
printf '[profile]\ninclude = ./cyc-b.ini\n' >"$tmpdir/cyc-a.ini"
printf '[profile]\ninclude = ./cyc-a.ini\n' >"$tmpdir/cyc-b.ini"
run_sbx profile check "$tmpdir/cyc-a.ini"
is "$status" 125 "include cycle: exit 125"
like "$err" "cyc-a.ini -> " "include cycle: the chain is named"
like "$err" "cyc-b.ini -> " "include cycle: the whole chain"

# Includes nested 17 deep exceed the limit of 16.
i=0
while [ $i -lt 18 ]; do
    printf '[profile]\ninclude = ./deep%d.ini\n' $((i + 1)) >"$tmpdir/deep$i.ini"
    i=$((i + 1))
done
: >"$tmpdir/deep18.ini"
run_sbx profile check "$tmpdir/deep0.ini"
is "$status" 125 "17 nested includes: exit 125"
like "$err" "includes nest deeper than 16 levels" "17 nested includes: says the limit"
printf '[profile]\ninclude = ./deep3.ini\n' >"$tmpdir/deep-ok.ini"
run_sbx profile check "$tmpdir/deep-ok.ini"
is "$status" 0 "16 nested includes: fine"

# A 1 MB line: an error, not a crash and not a silent cut.
awk 'BEGIN { printf "[profile]\ndescription = "; for (i = 0; i < 1048000; i++) printf "x"; printf "\n" }' >"$tmpdir/huge.ini"
run_sbx profile check "$tmpdir/huge.ini"
is "$status" 125 "1 MB line: exit 125"
like "$err" "huge.ini:2: line too long (1048014 bytes" "1 MB line: names the line and its size"

# A file over 1 MiB is refused as a whole.
awk 'BEGIN { for (i = 0; i < 70000; i++) printf "; padding comment line\n" }' >"$tmpdir/big.ini"
run_sbx profile check "$tmpdir/big.ini"
is "$status" 125 "file over 1 MiB: exit 125"
like "$err" "profiles are at most 1048576" "file over 1 MiB: says the limit"

# 10 000 list keys work.
awk 'BEGIN { print "[environment]"; for (i = 0; i < 10000; i++) printf "set = V%d=%d\n", i, i }' >"$tmpdir/keys.ini"
run_sbx profile check "$tmpdir/keys.ini"
is "$status" 0 "10 000 keys: accepted"
# and 10 000 bad keys: reported, bounded
awk 'BEGIN { print "[limits]"; for (i = 0; i < 10000; i++) printf "bad%d = 1\n", i }' >"$tmpdir/badkeys.ini"
run_sbx profile check "$tmpdir/badkeys.ini"
is "$status" 125 "10 000 bad keys: exit 125"
like "$err" "and 9900 more errors" "10 000 bad keys: the rest are counted"

# Windows line endings and a UTF-8 BOM are fine.
printf '\357\273\277[limits]\r\nnofile = 64\r\n' >"$tmpdir/crlf.ini"
run_sbx profile show "$tmpdir/crlf.ini"
is "$status" 0 "CRLF and BOM: accepted"
like "$out" "nofile = 64" "CRLF and BOM: value read without the CR"

# Indented keys are keys, not continuation lines.
printf '[limits]\n    nofile = 64\n    nproc = 100\n' >"$tmpdir/indent.ini"
run_sbx profile show "$tmpdir/indent.ini"
is "$status" 0 "indented keys: accepted"
like "$out" "nproc = 100" "indented keys: each key is read"

# --- profile check: every error of every kind at once, and what run refuses ----
# (issue 29: it reported parse errors, then contradictions, then said ok
# while run still failed on a missing rw path)
printf '[profile]\ninclude = default\n[network]\noutbound = yes\nallow = x.example\n[limits]\nnofile = banana\n[filesystem]\nrw = %s/missing-dir\n' "$tmpdir" >"$tmpdir/multi.ini"
run_sbx profile check "$tmpdir/multi.ini"
is "$status" 125 "profile check of a profile with three kinds of error: exit 125"
like "$err" "multi.ini:7: nofile: 'banana' is not valid" "the parse error"
like "$err" "multi.ini:5: allow = x.example contradicts outbound = yes" "the contradiction, in the same run"
like "$err" "multi.ini:9: rw path $tmpdir/missing-dir does not exist" "and the missing rw path"
printf '[profile]\ninclude = default\n[filesystem]\nrw = %s/missing-dir\n' "$tmpdir" >"$tmpdir/miss.ini"
run_sbx profile check "$tmpdir/miss.ini"
check_err=$err
run_sbx run -p "$tmpdir/miss.ini" -- true
is "$status" 125 "run refuses the missing rw path"
like "$check_err" "$(printf '%s' "$err" | sed 's/^sbx: //')" "and profile check says the same"
done_testing
