#!/bin/sh
# `make valgrind`: sbx run, probe, profile show, audit and error paths under
# valgrind --leak-check=full. Every process valgrind follows (the
# supervisor, init, the command until exec) must end with 0 errors and 0
# bytes definitely lost. Prints one line per command and a total; exits 1
# on any error.
#
# valgrind cannot run a seccomp filter (libseccomp's probes of the kernel
# go through syscalls it does not know), nor the new mount API (open_tree,
# move_mount, mount_setattr, openat2: it answers ENOSYS, so sbx takes its
# legacy mount path, which the suite also tests), nor a change of the hard
# RLIMIT_NOFILE (it keeps descriptors of its own above it: EPERM, so no
# nofile = N here). The sandboxed runs use
# a profile with seccomp = none and no deny rule; the filter and the
# ledger are checked by the ASan+UBSan build of the whole suite instead.
set -u
: "${SBX:?}" "${SBX_TOP_SRCDIR:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-valgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1   # rw = ${CWD}: the sandbox's working directory
mkdir "$work/log"
cat >"$work/vg.ini" <<INI
[profile]
include = default
[security]
seccomp = none
INI
cat >"$work/vg-low.ini" <<INI
[profile]
include = vg.ini
[network]
mode = none
INI

vg() { valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
        --suppressions="$SBX_TOP_SRCDIR/tests/valgrind/sbx.supp" --log-file="$work/log/vg.%p" "$@"; }

failed=0 total=0
check() { # check DESCRIPTION WANTED-STATUS SBX-ARGS...
    desc=$1 want=$2
    shift 2
    rm -f "$work"/log/vg.*
    vg "$SBX" "$@" </dev/null >"$work/out" 2>"$work/err"
    st=$?
    procs=$(ls "$work"/log/vg.* | wc -l)
    errors=$(cat "$work"/log/vg.* | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
    lost=$(cat "$work"/log/vg.* | sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' | tr -d , | awk '{ s += $1 } END { print s + 0 }')
    # memcheck follows malloc() only through the dynamic linker: in a static
    # program it sees no allocation and would find no leak, whatever there is.
    allocs=$(sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' "$work"/log/vg.* | tr -d , | awk '{ s += $1 } END { print s + 0 }')
    total=$((total + 1))
    if [ "$allocs" = 0 ]; then
        failed=$((failed + 1))
        echo "valgrind: FAILED: $desc: valgrind saw no heap allocation: is $SBX static? (make valgrind uses src/sbx-dynamic)"
    elif [ "$st" = "$want" ] && [ "$errors" = 0 ] && [ "$lost" = 0 ]; then
        echo "valgrind: ok: $desc: exit $st, $procs process(es), 0 errors, 0 bytes definitely lost"
    else
        failed=$((failed + 1))
        echo "valgrind: FAILED: $desc: exit $st (want $want), $errors error(s), $lost bytes definitely lost"
        cat "$work"/log/vg.* "$work/err" | grep -v '^--' | head -80 | sed 's/^/    /'
    fi
}

check "sbx run -- true" 0 run -p "$work/vg.ini" -- true
check "sbx run -v --report (exit 3)" 3 run -v -p "$work/vg.ini" --report "$work/rec.json" -- sh -c 'exit 3'
check "sbx run --timeout 1s -- sleep 3" 124 run -p "$work/vg.ini" --timeout 1s -- sleep 3
check "sbx run, command not found" 127 run -p "$work/vg.ini" -- sbx-no-such-command
check "sbx run --nofile above the hard limit" 125 run -p "$work/vg.ini" --nofile 999999999 -- true
check "sbx run, network none" 0 run -p "$work/vg-low.ini" -- true
check "sbx probe" 0 probe
check "sbx probe --json" 0 probe --json
check "sbx probe --tap" 0 probe --tap
check "sbx profile show default" 0 profile show default
check "sbx profile show qa" 0 profile show qa
check "sbx profile list" 0 profile list
check "sbx profile check (every shipped profile)" 0 profile check "$SBX_TOP_SRCDIR"/profiles/*.ini
printf '[limits]\nnofle = 1\n' >"$work/bad.ini"
check "sbx profile check (a bad profile)" 125 profile check "$work/bad.ini"
check "sbx run --bogus-option" 125 run --bogus-option -- true

echo "valgrind: $((total - failed)) of $total commands clean"
[ "$failed" = 0 ]
