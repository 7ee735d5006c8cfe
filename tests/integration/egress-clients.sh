#!/bin/sh
# [network] allow with real clients: curl (a 3 MB download, byte for
# byte), pip download from a simple index, npm install from a registry,
# cargo fetch from a sparse registry and git clone over HTTP, all served by
# the test on pkg.test in the world of egress-net.sh (network namespaces
# the test builds: nothing leaves the machine), and refused for a name not
# listed. As root and as an unprivileged user (egress.sh says how).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir
trap 'rm -rf "$tmpdir"' EXIT
for tool in curl git npm cargo; do
    command -v $tool >/dev/null || { skip "$tool is not installed (tests/debian-packages)"; done_testing; exit; }
done
/usr/bin/python3 -m pip --version >/dev/null 2>&1 ||
    { skip "pip is not installed (python3-pip, tests/debian-packages)"; done_testing; exit; }

chmod 755 "$tmpdir"
: >"$tmpdir/results"
chmod 666 "$tmpdir/results"
world="$SBX_TOP_SRCDIR/tests/integration/egress-clients-world.sh"
vars="SBX=$SBX SBX_TOP_SRCDIR=$SBX_TOP_SRCDIR SBX_TOP_BUILDDIR=$SBX_TOP_BUILDDIR PATH=$PATH HOME=$HOME"
if is_root; then
    run_cmd unshare --net --mount --pid --fork --mount-proc \
        env SBX_AS= $vars sh "$world" "$tmpdir/results"
else
    run_cmd unshare --user --map-root-user --net --mount --pid --fork --mount-proc \
        env SBX_AS="unshare --user --map-user=$(id -u) --map-group=$(id -g)" $vars \
        sh "$world" "$tmpdir/results"
fi
[ "$status" = 0 ] || diag "building the test world failed: $err"
r() { sed -n "s/^$1=//p" "$tmpdir/results" | sed 's/ *$//'; }

isnt "$(r curl_big)" "" "curl: a 3 MB file came through"
is "$(r curl_big)" "$(r curl_big_want)" "curl: byte for byte (splice relay)"
is "$(r pip_file)" "demo-1.0-py3-none-any.whl" "pip download from a simple index through the proxy"
is "$(r npm_file)" '{"name":"demo-pkg","version":"1.0.0"}' "npm install from a registry through the proxy"
diag "cargo fetch said: $(r cargo)"
like "$(r cargo_file)" "demo-1.0.0.crate" "cargo fetch from a sparse registry through the proxy"
is "$(r git_log)" "from pkg.test" "git clone over HTTP through the proxy"
like "$(r git_evil)" "evil.test:80 (HTTP) x1: not in [network] allow" "git: a name not listed is refused and listed"
like "$(r pip_evil)" "evil.test:80 (HTTP)" "pip: a name not listed is refused and listed"
done_testing
