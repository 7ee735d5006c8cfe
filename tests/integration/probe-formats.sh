#!/bin/sh
# `sbx probe` output formats: --json parses and holds every key
# docs/probe-json.md documents, --tap is valid TAP whose failures match the
# JSON, the table names every check, colour only on a terminal without
# NO_COLOR, the exit status follows the network verdict, usage errors 125.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir

doc="$SBX_TOP_SRCDIR/docs/probe-json.md"
# The check names, from the doc's table (so doc and code cannot drift).
checks=$(sed -n '/^## Checks/,/^### Status/p' "$doc" | sed -n 's/^| `\([a-z0-9_]*\)` |.*/\1/p')
nchecks=$(printf '%s\n' "$checks" | wc -l)

jqf() { jq -r "$1" "$tmpdir/p.json"; }

# From a directory of its own: the credentials check walks the working
# directory for a bounded time, and the build tree, where other tests
# build crates and Go modules meanwhile, could end one of the two probes
# compared below at that bound and not the other.
mkdir "$tmpdir/cwd" && cd "$tmpdir/cwd" || exit 1

"$SBX" probe --json </dev/null >"$tmpdir/p.json" 2>"$tmpdir/err"
status=$?
jq -e . "$tmpdir/p.json" >/dev/null 2>&1
ok $? "--json output parses (jq)"
is "$(jq -r 'type' "$tmpdir/p.json")" object "--json is one object"
is "$nchecks" 20 "docs/probe-json.md documents 20 checks"
net_ok=$(jqf .verdict.network_tests.ok)
if [ "$net_ok" = true ]; then want=0; else want=1; fi
is "$status" "$want" "exit status $want follows verdict.network_tests.ok=$net_ok"
is "$(cat "$tmpdir/err")" "" "nothing on stderr"

is "$(jqf '.format')" 1 "format is 1"
is "$(jqf '.sbx_version | type')" string "sbx_version"
is "$(jqf '.uid')" "$(id -u)" "uid is the caller's"
is "$(jqf '.euid')" "$(id -u)" "euid is the caller's"
is "$(jqf '.checks | keys_unsorted | join(" ")')" "$(echo $checks)" \
    "checks: exactly the documented names, in the documented order"
missing=
for c in $checks; do
    for k in status pass required errno errno_number value detail; do
        jq -e --arg c "$c" --arg k "$k" '.checks[$c] | has($k)' "$tmpdir/p.json" >/dev/null ||
            missing="$missing $c.$k"
    done
done
is "$missing" "" "every check has status pass required errno errno_number value detail"
is "$(jqf '[.checks[] | .status | select(. != "ok" and . != "denied" and . != "unavailable" and . != "low" and . != "info" and . != "exposed")] | length')" 0 \
    "every status is one of ok denied unavailable low info exposed"
is "$(jqf '[.checks[] | .errno | select(. != null and (test("^E[A-Z0-9]+$") | not))] | length')" 0 \
    "every errno is null or an errno name"
is "$(jqf '[.checks[] | select((.errno == null) != (.errno_number == null))] | length')" 0 \
    "errno and errno_number are null together"
is "$(jqf '.sysctl | keys_unsorted | join(" ")')" \
    "kernel.unprivileged_userns_clone user.max_user_namespaces kernel.apparmor_restrict_unprivileged_userns fs.nr_open" \
    "sysctl keys"
is "$(jqf '.sysctl["fs.nr_open"]')" "$(cat /proc/sys/fs/nr_open)" "fs.nr_open matches /proc"
is "$(jqf '.checks.nofile_soft.value')" "$(ulimit -Sn)" "nofile_soft matches ulimit -Sn"
is "$(jqf '.checks.nofile_hard.value')" "$(ulimit -Hn)" "nofile_hard matches ulimit -Hn"
is "$(jqf '.hints | keys_unsorted | join(" ")')" "dockerenv container_env pid1_comm sbx_profile" "hints keys"
is "$(jqf '.hints.pid1_comm')" "$(cat /proc/1/comm)" "hints.pid1_comm is /proc/1/comm"
if [ -e /.dockerenv ]; then want=true; else want=false; fi
is "$(jqf '.hints.dockerenv')" "$want" "hints.dockerenv matches /.dockerenv"
is "$(jqf '.verdict | keys_unsorted | join(" ")')" "network_tests descriptors sandbox" "verdict keys"
is "$(jqf '[.verdict[] | (.ok | type) + (.reason | type)] | unique | join(" ")')" "booleanstring" \
    "each verdict has ok (boolean) and reason (string)"
seccomp_line=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status)
case $seccomp_line in 0) want=none ;; 1) want=strict ;; *) want=filter ;; esac
is "$(jqf '.checks.seccomp.value')" "$want" "seccomp value matches /proc/self/status"

# --tap
"$SBX" probe --tap </dev/null >"$tmpdir/p.tap" 2>/dev/null
tap_status=$?
perl -MTAP::Parser -e '
    my $p = TAP::Parser->new({ source => $ARGV[0] });
    my ($fail, $skip) = (0, 0);
    while (my $r = $p->next) {
        next unless $r->is_test;
        $fail++ unless $r->is_ok;
        $skip++ if $r->has_skip;
    }
    my @e = $p->parse_errors;
    print join("|", scalar(@e), $p->tests_run, $p->tests_planned // -1, $fail, $skip, @e), "\n";
' "$tmpdir/p.tap" >"$tmpdir/tap.summary" 2>&1
IFS='|' read -r perrors run planned failed skipped rest <"$tmpdir/tap.summary"
is "$perrors" 0 "--tap: TAP::Parser (what prove uses) finds no parse error ${rest:-}"
is "$planned" $((nchecks + 3)) "--tap: plan covers every check and the three verdicts"
is "$run" "$planned" "--tap: as many tests as planned"
is "$skipped" 0 "--tap: never skips"
# The JSON run above and this one see the same environment.
want_failed=$(jq -r '[(.checks[] | select(.pass | not)), (.verdict[] | select(.ok | not))] | length' "$tmpdir/p.json")
is "$failed" "$want_failed" "--tap: not-ok tests ($failed) are the JSON's failing checks and verdicts"
if [ "$net_ok" = true ]; then want=0; else want=1; fi
is "$tap_status" "$want" "--tap exit status follows the network verdict too"
i=0
order_ok=0
for c in $checks; do
    i=$((i + 1))
    grep -Eq "^(not )?ok $i - $c: " "$tmpdir/p.tap" || { order_ok=1; diag "test $i is not $c"; }
done
ok $order_ok "--tap: test N is the N-th documented check"
grep -q '^ok [0-9]* - verdict_network_tests\|^not ok [0-9]* - verdict_network_tests' "$tmpdir/p.tap"
ok $? "--tap: a verdict_network_tests test"

# table
run_sbx probe
missing=
for c in $checks; do
    printf '%s\n' "$out" | grep -q "^$c " || missing="$missing $c"
done
is "$missing" "" "table: a line per check"
like "$out" "network tests " "table: network verdict line"
like "$out" "descriptors " "table: descriptors verdict line"
esc=$(printf '\033')
unlike "$out" "$esc" "table: no colour when stdout is not a terminal"
# script(1) gives sbx a terminal.
TERM=xterm script -qec "$SBX probe" /dev/null </dev/null >"$tmpdir/tty.out" 2>&1
grep -q "$esc\[" "$tmpdir/tty.out"
ok $? "table: colour on a terminal"
NO_COLOR=1 TERM=xterm script -qec "$SBX probe" /dev/null </dev/null >"$tmpdir/tty.out" 2>&1
grep -q "$esc\[" "$tmpdir/tty.out"
isnt $? 0 "table: NO_COLOR=1 turns colour off on a terminal"
grep -q "^user_namespace" "$tmpdir/tty.out"
ok $? "table: still printed under NO_COLOR"

# usage errors
run_sbx probe --json --tap
is "$status" 125 "--json --tap: exit 125"
like "$err" "cannot be combined" "--json --tap: says why"
run_sbx probe --frob
is "$status" 125 "unknown option: exit 125"
like "$err" "unknown option '--frob'" "unknown option: named"
run_sbx probe extra
is "$status" 125 "extra argument: exit 125"
like "$err" "unexpected argument 'extra'" "extra argument: named"
run_sbx probe --profile
is "$status" 125 "--profile without a name: exit 125"
like "$err" "needs an argument" "--profile without a name: says so"

done_testing
