#!/bin/sh
# Each denial names the thread that made it: parallel threads named the
# way libtest names each test's thread, and a forked child, all denied at
# once under deny-network (deny = bind:inet,inet6 EPERM, ...). The ledger's
# tid, pid, ppid, comm and event times are checked against what each
# caller printed about itself. Then both families of a socket call.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 29

threads="$SBX_TEST_HELPERS/thread-denials"

if ! "$SBX" run -- true >/dev/null 2>"${TMPDIR:-/tmp}/sbx-seccomp-threads.$$"; then
    why=$(head -n1 "${TMPDIR:-/tmp}/sbx-seccomp-threads.$$")
    rm -f "${TMPDIR:-/tmp}/sbx-seccomp-threads.$$"
    i=0
    while [ $i -lt 29 ]; do skip "sbx cannot run a sandbox here: $why"; i=$((i + 1)); done
    done_testing
fi
rm -f "${TMPDIR:-/tmp}/sbx-seccomp-threads.$$"
make_build_tmpdir seccomp-threads
record="$tmpdir/record.json"

# "NAME tid=T pid=P ppid=Q ..." -> "T P Q NAME", one caller a line, sorted.
callers() { printf '%s\n' "$1" | sed -n 's/^\([^ ]*\) tid=\([0-9]*\) pid=\([0-9]*\) ppid=\([0-9]*\) .*/\2 \3 \4 \1/p' | sort; }

# Without sbx, both threads' calls reach the kernel: the bind works.
run_cmd "$threads" thread-first thread-second
is "$(printf '%s\n' "$out" | grep -c 'bind=ok')" 2 "without sbx: both threads bind"

run_sbx run -p deny-network --report "$record" -- "$threads" thread-first thread-second
is "$status" 0 "deny-network: the helper exits 0"
is "$(printf '%s\n' "$out" | grep -c 'bind=EPERM connect=EPERM')" 2 "both threads were denied bind and connect"
tid_first=$(printf '%s\n' "$out" | sed -n 's/^thread-first tid=\([0-9]*\) .*/\1/p')
tid_second=$(printf '%s\n' "$out" | sed -n 's/^thread-second tid=\([0-9]*\) .*/\1/p')
bindline=$(printf '%s\n' "$err" | grep 'bind(AF_INET 127.0.0.1:0) x2 -> EPERM')
diag "$bindline"

# What the ledger said before: one process, named by its first thread.
# That bracket names only one of the two threads for both denials, so it
# cannot tell the two tests apart (the failure this fixes).
bracket=$(printf '%s\n' "$bindline" | sed -n 's/.*EPERM \(\[[^]]*\]\).*/\1/p')
n=$(printf '%s\n' "$bracket" | grep -o 'thread-first\|thread-second' | wc -l)
is "$n" 1 "the old process bracket names one thread for both denials: $bracket"
like "$bindline" "x2 -> EPERM [pid 2 \"thread-" "the old bracket is kept as it was"

# Now each thread is named, with the tid it saw itself.
like "$bindline" "thread-first (tid $tid_first)" "the summary names thread-first with its tid"
like "$bindline" "thread-second (tid $tid_second)" "the summary names thread-second with its tid"

want=$(callers "$out")
got=$(jq -r '.denials.denials[] | select(.syscall == "bind") | .threads[] | "\(.tid) \(.pid) \(.ppid) \(.comm)"' "$record" | sort)
is "$got" "$want" "record: the bind row's threads are the callers (tid, pid, ppid, comm)"
got=$(jq -r '.denials.denials[] | select(.syscall == "connect") | .threads[] | "\(.tid) \(.pid) \(.ppid) \(.comm)"' "$record" | sort)
is "$got" "$want" "record: so are the connect row's"
is "$(jq -r '[(.denials.events | length), .denials.events_dropped] | @tsv' "$record")" "4	0" \
   "record: four events, none dropped"

# Each event's time lies within its caller's own clock readings around
# its calls, and names the row of its call.
bad=0
for name in thread-first thread-second; do
    line=$(printf '%s\n' "$out" | grep "^$name ")
    tid=$(printf '%s\n' "$line" | sed 's/.* tid=\([0-9]*\) .*/\1/')
    t0=$(printf '%s\n' "$line" | sed 's/.* t0=\([0-9]*\) .*/\1/')
    t1=$(printf '%s\n' "$line" | sed 's/.* t1=\([0-9]*\)$/\1/')
    inside=$(jq --argjson tid "$tid" --argjson t0 "$t0" --argjson t1 "$t1" --arg name "$name" \
        '[.denials.events[] | select(.tid == $tid) | select(.comm == $name and .ns >= $t0 and .ns <= $t1)] | length' "$record")
    [ "$inside" = 2 ] || { bad=1; diag "$name: $inside of its 2 events inside [$t0, $t1]"; }
done
is "$bad" 0 "record: each thread's two events lie between its own before and after times"
rows=$(jq -r '. as $r | [.denials.events[] | .row as $id | $r.denials.denials[] | select(.id == $id) | .syscall] | sort | unique | join(",")' "$record")
is "$rows" "bind,connect" "record: events name their rows"

# Three threads, one name longer than the kernel's 15 bytes, and a child
# forked by thread-first (fork copies the thread's name).
run_sbx run -p deny-network --report "$record" -- "$threads" --fork thread-first thread-second a_test_name_longer_than_15
denied_lines=$(printf '%s\n' "$out" | grep -c 'bind=EPERM connect=EPERM')
is "$denied_lines" 4 "three threads and a child denied"
[ "$denied_lines" = 4 ] || diag "the helper printed (status $status): $out / $err"
want=$(callers "$out" | sed 's/ child$/ thread-first/')
got=$(jq -r '.denials.denials[] | select(.syscall == "bind") | .threads[] | "\(.tid) \(.pid) \(.ppid) \(.comm)"' "$record" | sort)
is "$got" "$want" "record: every caller named, the child by its own pid, its parent and the forking thread's name"
child_pid=$(printf '%s\n' "$out" | sed -n 's/^child tid=\([0-9]*\) .*/\1/p')
parent_pid=$(printf '%s\n' "$out" | sed -n 's/^thread-first tid=[0-9]* pid=\([0-9]*\) .*/\1/p')
is "$(jq -r --argjson c "$child_pid" '[.denials.events[] | select(.tid == $c) | "\(.pid) \(.ppid)"] | unique | join(",")' "$record")" \
   "$child_pid $parent_pid" "record: the child's events have its pid and its parent's"
# (in the record: the summary names the first LEDGER_SUMMARY_THREADS=3
# callers of a row, and which 3 of these 4 come first is up to the scheduler)
is "$(jq -r '[.denials.denials[] | select(.syscall == "bind") | .threads[] | .comm | select(startswith("a_test"))] | join(",")' "$record")" \
    "a_test_name_lon" "a long name is the kernel's 15 bytes"
like "$err" "pid $parent_pid \"" "the parent process in the bracket"
like "$err" "pid $child_pid \"thread-first\"" "the child in the bracket, under the forking thread's name"

# The whole name (issue 29): comm is cut to 15 bytes (TASK_COMM_LEN), as
# a Rust test binary's "integration_tests-HASH" is. The line names the
# process by its executable's file name (/proc/PID/exe) where comm is
# that name cut, and a thread of another name with its program; the
# record has both. (A copy, not a link: exe is the file itself.)
long=integration_tests-0123456789abcdef
cp "$threads" "$tmpdir/$long"
run_sbx run -p deny-network --report "$record" -- "$tmpdir/$long" tests::binds_to_loopback
like "$err" "[pid 2 \"tests::binds_to\"] by tests::binds_to (tid " "a thread named otherwise keeps its name..."
like "$err" " of $long)" "... and names its program, whole: $(printf '%s\n' "$err" | grep -m1 'bind(')"
run_sbx run -p deny-network --report "$record" -- sh -c "exec '$tmpdir/$long' --families"
like "$err" "EPERM [pid 2 \"$long\"]" "a process whose comm is its program's name cut: the whole name"
is "$(jq -r '[.denials.denials[0].processes[0].comm, .denials.denials[0].processes[0].exe, .denials.denials[0].threads[0].exe] | join(" ")' "$record")" \
   "integration_tes $long $long" "record: comm as the kernel cut it, exe whole (processes, threads)"

# The test's name where the audit knows it: libtest runs each test in a
# thread named after it, which the kernel cuts; the audit names the one
# test of the run that name begins with.
if command -v cargo >/dev/null 2>&1; then
    crate=$tmpdir/crate
    mkdir -p "$crate/src"
    printf '[package]\nname = "threadnames"\nversion = "0.1.0"\nedition = "2018"\n' >"$crate/Cargo.toml"
    printf '%s\n' '#[cfg(test)]' 'mod tests {' '    #[test]' '    fn binds_to_loopback_in_a_thread_named_after_it() {' \
        '        if std::net::TcpListener::bind("127.0.0.1:0").is_err() { return; }' '    }' \
        '    #[test]' '    fn sums() { assert_eq!(1 + 1, 2); }' '}' >"$crate/src/lib.rs"
    (cd "$crate" && CARGO_HOME=$crate/.cargo-home cargo test --offline -q --no-run) >"$tmpdir/cargo.log" 2>&1 ||
        diag "cargo build: $(tail -n 5 "$tmpdir/cargo.log")"
    (cd "$crate" && CARGO_HOME=$crate/.cargo-home "$SBX" audit -- cargo test --offline -q) >"$tmpdir/audit.out" 2>&1
    line=$(grep -m1 'bind(AF_INET 127.0.0.1:0) x1 -> EPERM' "$tmpdir/audit.out")
    like "$line" "by tests::binds_to (tid " "sbx audit of cargo test: the denial by the test's thread, its name cut: $line"
    like "$line" 'test "tests::binds_to_loopback_in_a_thread_named_after_it")' "and the whole name of the test that thread ran"
else
    fail "cargo is needed (tests/debian-packages)"; fail "cargo is needed"
fi

# An AF_INET6 socket given an AF_INET sockaddr, and a v4-mapped address:
# without sbx the kernel connects both (over IPv4).
run_cmd "$threads" --families
is "$out" "v4addr=ok mapped=ok" "without sbx: both connects work"
run_sbx run -p deny-network --report "$record" -- "$threads" --families
like "$err" "connect(AF_INET6 socket, AF_INET address 127.0.0.1:25) x1 -> EPERM" \
     "the summary names the socket's family and the address's own"
unlike "$err" "connect(AF_INET6 127.0.0.1:25)" "never an IPv6 connect to an IPv4 address"
like "$err" "connect(AF_INET6 [::ffff:127.0.0.1]:25) x1 -> EPERM" "a v4-mapped address prints as IPv6"
# (family is the key it always was: the family the rule matched)
is "$(jq -c '[.denials.denials[] | select(.address == "127.0.0.1:25") | [.family, .socket_family, .address_family]][0]' "$record")" \
   '["AF_INET6","AF_INET6","AF_INET"]' "record: family, socket_family and address_family"

done_testing
