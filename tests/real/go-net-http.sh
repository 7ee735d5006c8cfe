#!/bin/sh
# make check-real: sbx audit on Go's own net/http tests, from the
# installed toolchain's GOROOT (issues 25 and 34). A subset, for time:
# under restrictive httptest.NewServer panics where listen is denied and
# the test binary dies at the first serial server test
# (TestTransportKeepAlives), so the tests after it never run there; they
# must be re-run alone, never called fails-without-denial.
# TestTransportEventTraceRealDNS, one of those, looks a name up, its DNS
# connects are denied, and it passes: the false green the audit once
# missed. The other rows were established by running each test alone
# under qa and under restrictive (docs/performance.md, "Real suites").
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

if ! command -v go >/dev/null 2>&1; then
    for i in $(seq 15); do skip "go is not installed for uid $(id -u)"; done
    done_testing; exit 0
fi
goroot=$(go env GOROOT)
if [ ! -f "$goroot/src/net/http/transport_test.go" ]; then
    for i in $(seq 15); do skip "the Go toolchain in $goroot ships no net/http tests (Debian: golang-src)"; done
    done_testing; exit 0
fi
work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/real-go.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/real-go.XXXXXX") || exit 1
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
cd "$work" || exit 1
# the build cache in the working directory, the one writable place under
# qa; built once here so that the audit's runs only run tests
export GOCACHE="$work/.gocache" GOPATH="$work/.gopath" GOTOOLCHAIN=local GOFLAGS=
run='^(TestClient|TestCookieSanitizeValue|TestHeaderWrite|TestParseFormQuery|TestServerTimeouts|TestTransportKeepAlives|TestProxyFromEnvironment|TestTransportEventTraceRealDNS|TestTransportRejectsAlphaPort)$'
go test -short -count=1 -run '^$' net/http >"$work/build.log" 2>&1 ||
    diag "go test net/http (build): $(tail -n 5 "$work/build.log")"

run_sbx audit --report "$work/r.json" -- go test -short -run "$run" net/http
is "$status" 3 "go test net/http: a false green, exit 3"
verdict() { jq -r --arg n "$1" '.tests[] | select(.name == $n) | .verdict' "$work/r.json"; }
is "$(verdict TestTransportEventTraceRealDNS)" false-green \
    "TestTransportEventTraceRealDNS: its DNS connects denied, it passes: a false green"
like "$(jq -r '.tests[] | select(.name == "TestTransportEventTraceRealDNS") | .denied' "$work/r.json")" \
    "connect(" "TestTransportEventTraceRealDNS: its denied connects are named"
# (one package named: the binary writes to sbx's own output, so the tests
# it never ran are re-run together, resumed after each that stops the run)
like "$err" "have no result under restrictive (their process died with another test, a timeout or a crash)" \
    "the tests after the dead binary's last are re-run, said so"
is "$(jq -r '.tests[] | select(.name == "TestTransportEventTraceRealDNS") | .against.observed' "$work/r.json")" \
    true "TestTransportEventTraceRealDNS: never ran in the whole run (the binary had died): observed in a re-run"
for t in TestClient TestServerTimeouts TestTransportKeepAlives; do
    is "$(verdict $t)" exercised "$t: its server cannot listen: exercised"
done
for t in TestCookieSanitizeValue TestHeaderWrite TestParseFormQuery TestProxyFromEnvironment \
         TestTransportRejectsAlphaPort; do
    is "$(verdict $t)" unaffected "$t: opens no socket: unaffected"
done
is "$(jq -r '.tests[] | select(.name == "TestProxyFromEnvironment") | .against.observed' "$work/r.json")" \
    true "TestProxyFromEnvironment: after the dead binary's last test: observed in a re-run, not fails-without-denial"
is "$(jq -r '[.tests[] | select(.verdict == "fails-without-denial" or .verdict == "not-observed")] | length' "$work/r.json")" \
    0 "no test is fails-without-denial or not-observed: each one the dead binary never ran was re-run"
done_testing
