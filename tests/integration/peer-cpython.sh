#!/bin/sh
# Peer suite (issue 17): CPython's network and server tests, which nobody
# here wrote, end test by test as on the host under `--profile qa`, for
# root and for any other caller. They found that the sandbox's hostname
# did not resolve inside (test_socket's testHostnameRes and testSockName
# skipped: hosts.h). Debian's interpreter and its test package
# (libpython3.11-testsuite); about two minutes per run with -j2, each
# bounded (regrtest --timeout per test file, timeout(1) per run).
#
# Left out of both runs, each for a reason that is not the sandbox's:
#   *NetworkedTests* *test_idna  reach pythontest.net: the host's answer
#                                depends on its internet, and qa has no
#                                outbound network by design
#   *VSOCK*                      AF_VSOCK is not network-namespaced: the
#                                host's run, the sandbox's and any other on
#                                the machine share its fixed port
#   *test_sethostname            as root it renames the host; inside it
#                                skips, as sethostname needs CAP_SYS_ADMIN,
#                                which the sandbox never keeps
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 5
py=/usr/bin/python3
tests="test_httpservers test_socketserver test_urllib2_localnet test_asyncio test_socket test_ssl
test_selectors test_logging test_xmlrpc test_ftplib test_smtplib"
if ! [ -x $py ] || ! $py -c 'import test.regrtest, test.test_socket, test.test_asyncio' 2>/dev/null; then
    for i in 1 2 3 4 5; do skip "Debian's python3 and its test suite are needed (apt-get install libpython3.11-testsuite)"; done
    done_testing
fi
tmpdir=$(mktemp -d "$PWD/peer-cpython.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
regrtest() { # XML-FILE [SBX-ARGS...]: the suites, -u network for test_socketserver
    _xml=$1
    shift
    timeout 1200 "$@" $py -m test -j2 -u network --timeout 600 --junit-xml "$_xml" \
        -i '*NetworkedTests*' -i '*test_idna' -i '*VSOCK*' -i '*test_sethostname' \
        $run_opts $tests </dev/null >>"$tmpdir/log" 2>&1
}
run_opts=
# "TEST OUTCOME" per test case, from regrtest's JUnit file.
outcomes() {
    $py -c '
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    outcome = "pass"
    for kind in ("failure", "error", "skipped"):
        if case.find(kind) is not None:
            outcome = kind
            break
    print(case.get("name"), outcome)' "$1" 2>>"$tmpdir/log" | sort
}
regrtest "$tmpdir/host.xml"
regrtest "$tmpdir/qa.xml" "$SBX" run --profile qa --
outcomes "$tmpdir/host.xml" >"$tmpdir/host.txt"
outcomes "$tmpdir/qa.xml" >"$tmpdir/qa.txt"
# A timing test may lose once on a loaded machine (make -j2 check runs
# other tests beside this one): the few cases that differ run again,
# by themselves, both on the host and inside, and those outcomes count. A
# difference the sandbox makes stays.
differ=$(diff "$tmpdir/host.txt" "$tmpdir/qa.txt" | sed -n 's/^[<>] \([^ ]*\) .*/\1/p' | sort -u)
if [ -n "$differ" ] && [ "$(printf '%s\n' "$differ" | wc -l)" -le 20 ]; then
    diag "run again, by themselves, where host and qa differed:" $differ
    printf '%s\n' $differ >"$tmpdir/differ"
    tests=$(printf '%s\n' $differ | cut -d. -f2 | sort -u)
    run_opts="--matchfile $tmpdir/differ"
    regrtest "$tmpdir/host-again.xml"
    regrtest "$tmpdir/qa-again.xml" "$SBX" run --profile qa --
    for side in host qa; do
        outcomes "$tmpdir/$side-again.xml" >"$tmpdir/$side-again.txt"
        awk 'NR == FNR { again[$1]; next } !($1 in again)' "$tmpdir/differ" "$tmpdir/$side.txt" |
            cat - "$tmpdir/$side-again.txt" | sort >"$tmpdir/$side.merged"
        mv "$tmpdir/$side.merged" "$tmpdir/$side.txt"
    done
fi

n=$(wc -l <"$tmpdir/host.txt")
[ "$n" -gt 3000 ]
ok $? "on the host, regrtest ran more than 3000 test cases ($n)" || diag "$(tail -20 "$tmpdir/log")"
is "$(wc -l <"$tmpdir/qa.txt")" "$n" "under qa, as many"
is "$(diff "$tmpdir/host.txt" "$tmpdir/qa.txt")" "" "every test case ends as on the host ($(grep -c ' skipped$' "$tmpdir/host.txt") skipped, $(grep -c ' failure$\| error$' "$tmpdir/host.txt") failed there)"
is "$(grep -E 'GeneralModuleTests\.(testHostnameRes|testSockName) ' "$tmpdir/qa.txt")" \
    "test.test_socket.GeneralModuleTests.testHostnameRes pass
test.test_socket.GeneralModuleTests.testSockName pass" "under qa, the sandbox's hostname resolves: testHostnameRes and testSockName pass"
ss_host=$(grep -c '^test.test_socketserver.* pass$' "$tmpdir/host.txt")
ss_qa=$(grep -c '^test.test_socketserver.* pass$' "$tmpdir/qa.txt")
[ "$ss_qa" -gt 20 ] && [ "$ss_qa" = "$ss_host" ]
ok $? "test_socketserver ran (-u network): $ss_qa passed under qa, $ss_host on the host"
done_testing
