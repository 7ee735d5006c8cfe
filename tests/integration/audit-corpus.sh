#!/bin/sh
# The audit corpus (tests/corpus/): for C, Python (unittest), Node (node
# --test) and Rust (cargo test --offline), a suite that swallows EPERM must
# be judged a false green (3), an honest one trustworthy (0) and a pure one
# "does not touch the network" (0).
#
# Each suite is judged twice: by `sbx audit` (qa against restrictive), and
# by the seccomp half alone (tests/helpers/seccomp-run --audit, qa against
# deny-network: the same filter and ledger without namespaces).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 48

run="$SBX_TEST_HELPERS/seccomp-run"
# In the build tree when it is ours (sbx's qa profile makes the current
# directory writable), else under $TMPDIR.
work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/corpus-run.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-corpus.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cp -R "$SBX_TOP_SRCDIR/tests/corpus/." "$work/"
chmod -R u+w "$work"
# The suites build into the scratch copy, never into $HOME.
CARGO_HOME="$work/cargo-home" CARGO_TARGET_DIR="$work/rust/target"
export CARGO_HOME CARGO_TARGET_DIR
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH

cc=${CC:-cc}
for s in net_swallow net_honest pure; do
    $cc -O1 -o "$work/c/$s" "$work/c/$s.c" || diag "cannot build the C suite $s"
done

sandbox_why=
"$SBX" run -- true >/dev/null 2>"$work/sbx-err" || sandbox_why=$(head -n1 "$work/sbx-err")

# judge LANG SUITE WANT_STATUS WANT_TEXT DIR CMD...
judge() {
    lang=$1 suite=$2 want=$3 text=$4 dir=$5
    shift 5
    cd "$dir" || exit 1
    if ! command -v "$1" >/dev/null 2>&1; then
        for i in 1 2 3 4; do skip "$lang $suite: '$1' is not installed for uid $(id -u)"; done
        cd "$work" || exit 1
        return
    fi
    run_cmd "$run" --audit --profile qa --against deny-network -- "$@"
    if [ "$status" = "$want" ]; then pass "$lang $suite: seccomp half exits $want"
    else fail "$lang $suite: seccomp half exits $status, want $want"; diag "$out"; diag "$err"; fi
    like "$err" "$text" "$lang $suite: seccomp half says '$text'"
    if [ -n "$sandbox_why" ]; then
        skip "$lang $suite: sbx cannot run a sandbox here: $sandbox_why"
        skip "$lang $suite: sbx audit verdict (no sandbox)"
    else
        # sbx audit judges test by test where it knows the runner: then
        # what it must say is $per_test (status:text), else the same as
        # the seccomp half
        sbx_want=${per_test:+${per_test%%:*}} sbx_text=${per_test:+${per_test#*:}}
        run_sbx audit -- "$@"
        if [ "$status" = "${sbx_want:-$want}" ]; then pass "$lang $suite: sbx audit exits ${sbx_want:-$want}"
        else fail "$lang $suite: sbx audit exits $status, want ${sbx_want:-$want}"; diag "$out"; diag "$err"; fi
        like "$err" "${sbx_text:-$text}" "$lang $suite: sbx audit says '${sbx_text:-$text}'"
    fi
    per_test=
    cd "$work" || exit 1
}
per_test=

swallowed="swallowed: bind(AF_INET 127.0.0.1:0) x1 -> EPERM"
trust="sbx: verdict: trustworthy"
pure="sbx: verdict: the command does not touch the network"

judge C swallow 3 "$swallowed" "$work/c" ./net_swallow
judge C honest 0 "$trust" "$work/c" ./net_honest
judge C pure 0 "$pure" "$work/c" ./pure

judge Python swallow 3 "$swallowed" "$work/python" python3 test_net_swallow.py
judge Python honest 0 "$trust" "$work/python" python3 test_net_honest.py
judge Python pure 0 "$pure" "$work/python" python3 test_pure.py

# node --test: sbx audit sees each test. The swallowing suite skips
# itself visibly when bind() is denied (t.skip): honest, skipped-here.
per_test="0:  skipped-here               passed / skipped: echo over 127.0.0.1"
judge Node swallow 3 "$swallowed" "$work/node" node --test net_swallow.test.js
per_test="0:  exercised                  passed / failed: echo over 127.0.0.1; denied: bind(AF_INET 127.0.0.1:0) x1 -> EPERM"
judge Node honest 0 "$trust" "$work/node" node --test net_honest.test.js
per_test="0:1 test: 0 exercised, 0 false green, 0 hiding a failure, 0 fail, 0 skipped here, 1 unaffected"
judge Node pure 0 "$pure" "$work/node" node --test pure.test.js

# Build once, outside any filter, so each judged run only runs tests.
(cd "$work/rust" && cargo test --offline --no-run -q >"$work/cargo.log" 2>&1) ||
    diag "cargo build failed: $(tail -n 5 "$work/cargo.log")"
# cargo test -q prints one dot per test: sbx audit removes -q (saying
# so) and judges each test (issue 25: it used to judge the command)
per_test="3:  false-green                passed / passed: echo_over_loopback; denied: bind(AF_INET 127.0.0.1:0) x1 -> EPERM"
judge Rust swallow 3 "$swallowed" "$work/rust" cargo test --offline -q --test net_swallow
per_test="0:  exercised                  passed / failed: echo_over_loopback; denied: bind(AF_INET 127.0.0.1:0) x1 -> EPERM"
judge Rust honest 0 "$trust" "$work/rust" cargo test --offline -q --test net_honest
per_test="0:1 test: 0 exercised, 0 false green, 0 hiding a failure, 0 fail, 0 skipped here, 1 unaffected"
judge Rust pure 0 "$pure" "$work/rust" cargo test --offline -q --test pure
done_testing
