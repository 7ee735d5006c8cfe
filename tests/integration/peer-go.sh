#!/bin/sh
# Peer suite (issue 17): Go's standard library network tests, which nobody
# here wrote, give the same results under `--profile qa` as on the host,
# for root and for any other caller. They found that a root caller's
# command had no CAP_NET_RAW (TestIPConn*: raw IP sockets), where root on
# a host and under bubblewrap has it (caps.c). About a minute per run;
# each is bounded by timeout(1).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 5
pkgs="net net/http net/rpc net/smtp net/http/httptest"
if ! command -v go >/dev/null || ! [ -f "$(go env GOROOT 2>/dev/null)/src/net/iprawsock_test.go" ]; then
    for i in 1 2 3 4 5; do skip "Go with its sources is needed (apt-get install golang-go golang-src)"; done
    done_testing
fi
tmpdir=$(mktemp -d "$PWD/peer-go.XXXXXX")
trap 'chmod -R u+w "$tmpdir" 2>/dev/null; rm -rf "$tmpdir"' EXIT
# Inside the working directory, so the sandbox can write it; one cache
# for both runs (the build is the same), -count=1 so no result is cached.
export GOCACHE="$tmpdir/cache" GOPATH="$tmpdir/gopath" GOFLAGS=
go_test() { timeout 600 "$@" go test -count=1 -short -json $pkgs </dev/null 2>>"$tmpdir/stderr"; }
# "ACTION PACKAGE TEST" for every test that failed or was skipped.
outcomes() { jq -r 'select(.Test != null and (.Action == "fail" or .Action == "skip")) | "\(.Action) \(.Package) \(.Test)"' "$1" | sort; }
go_test >"$tmpdir/host.json"
go_test "$SBX" run --profile qa -- >"$tmpdir/qa.json"

ran=$(jq -r 'select(.Test != null and .Action == "pass") | .Test' "$tmpdir/host.json" | wc -l)
[ "$ran" -gt 1000 ]
ok $? "on the host, more than 1000 tests passed ($ran)" || diag "$(tail -5 "$tmpdir/stderr")"
ran_qa=$(jq -r 'select(.Test != null and .Action == "pass") | .Test' "$tmpdir/qa.json" | wc -l)
is "$ran_qa" "$ran" "under qa, as many passed"
outcomes "$tmpdir/host.json" | grep '^fail' >"$tmpdir/host.fail"
outcomes "$tmpdir/qa.json" | grep '^fail' >"$tmpdir/qa.fail"
is "$(diff "$tmpdir/host.fail" "$tmpdir/qa.fail")" "" "the same tests fail on the host and under qa ($(wc -l <"$tmpdir/host.fail") of them)"
outcomes "$tmpdir/host.json" | grep '^skip' >"$tmpdir/host.skip"
outcomes "$tmpdir/qa.json" | grep '^skip' >"$tmpdir/qa.skip"
is "$(diff "$tmpdir/host.skip" "$tmpdir/qa.skip")" "" "the same tests are skipped ($(wc -l <"$tmpdir/host.skip") of them)"
# The raw-socket tests by name: they pass for root on a host.
raw() { jq -r 'select(.Package == "net" and (.Test == "TestIPConnLocalName" or .Test == "TestIPConnRemoteName" or .Test == "TestIPConnSpecificMethods") and (.Action == "pass" or .Action == "fail" or .Action == "skip")) | "\(.Test) \(.Action)"' "$1" | sort; }
if is_root; then
    is "$(raw "$tmpdir/qa.json")" "TestIPConnLocalName pass
TestIPConnRemoteName pass
TestIPConnSpecificMethods pass" "as root, the raw-socket tests TestIPConn* pass under qa"
else
    is "$(raw "$tmpdir/qa.json")" "$(raw "$tmpdir/host.json")" "as uid $(id -u), TestIPConn* end as on the host"
fi
done_testing
