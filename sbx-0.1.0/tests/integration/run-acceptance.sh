#!/bin/sh
# Issue 3's acceptance, as a new user would try it: a real suite nobody
# here wrote (CPython's own network tests, Debian's libpython3.11-testsuite)
# passes under the qa profile, and under no-loopback it ends (fails or
# times out) instead of hanging. And a std-only Rust crate's TcpListener
# test passes under qa and fails visibly under no-loopback; a Cargo
# workspace in a git checkout tests and commits under qa.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir
cd "$tmpdir" || exit 1

if [ -f /usr/lib/python3.11/test/test_httpservers.py ]; then
    run_sbx run --profile qa -- /usr/bin/python3 -m test -u network \
        test_httpservers test_socketserver test_urllib2_localnet
    is "$status" 0 "CPython network tests pass under qa"
    like "$out" "Tests result: SUCCESS" "CPython network tests: SUCCESS"
    run_cmd timeout -s KILL 120 "$SBX" run --profile no-loopback --timeout 20 -- /usr/bin/python3 -m test \
        -u network test_socketserver
    isnt "$status" 0 "CPython network tests do not pass under no-loopback"
    case "$status:$err" in
        124:*"sbx: timeout 20s expired"*) pass "no-loopback: sbx's timeout ended them (124, said so)" ;;
        124:*) fail "no-loopback: 124 without sbx's timeout message" ;;
        137:*) fail "no-loopback: hung until the outer 120 s kill" ;;
        *) pass "no-loopback: they failed by themselves (exit $status)" ;;
    esac
    unlike "$err" "Tests result: SUCCESS" "no-loopback: no success reported"
else
    skip "CPython's test suite is not installed (apt-get install libpython3.11-testsuite)"
    skip "CPython's test suite is not installed"
    skip "CPython's test suite is not installed"
    skip "CPython's test suite is not installed"
    skip "CPython's test suite is not installed"
fi

if command -v cargo >/dev/null 2>&1 && cargo --version >/dev/null 2>&1; then
    mkdir -p crate/src
    cat >crate/Cargo.toml <<'TOML'
[package]
name = "loopback"
version = "0.1.0"
edition = "2021"
TOML
    cat >crate/src/lib.rs <<'RUST'
#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    #[test]
    fn echo_over_ephemeral_port() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let mut client = TcpStream::connect(addr).expect("connect");
        let (mut server, _) = listener.accept().unwrap();
        client.write_all(b"ping").unwrap();
        let mut buf = [0u8; 4];
        server.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ping");
    }
}
RUST
    cd crate || exit 1
    run_cmd env CARGO_HOME="$tmpdir/cargo-home" "$SBX" run --profile qa -- cargo test --offline
    is "$status" 0 "Rust TcpListener test passes under qa"
    like "$out$err" "test result: ok. 1 passed" "Rust test: 1 passed"
    ok $([ -d target ]; echo $?) "cargo built into target/ in the crate directory"
    run_cmd env CARGO_HOME="$tmpdir/cargo-home" "$SBX" run --profile no-loopback -- cargo test --offline
    isnt "$status" 0 "Rust TcpListener test fails visibly under no-loopback"
    like "$out$err" "connect" "no-loopback: the failure names connect"
    cd "$tmpdir" || exit 1
    # A Cargo workspace in a git checkout, run from its root (issue 14:
    # the protected .git/config, .git/hooks and the pinned .git must not
    # get in cargo's or git's way).
    mkdir -p ws/a/src ws/b/src
    printf '[workspace]\nmembers = ["a", "b"]\nresolver = "2"\n' >ws/Cargo.toml
    for m in a b; do
        printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n' "$m" >ws/$m/Cargo.toml
        printf '#[test]\nfn %s_works() { assert_eq!(1 + 1, 2); }\n' "$m" >ws/$m/src/lib.rs
    done
    git init -q ws && git -C ws add -A && git -C ws -c user.name=t -c user.email=t@t commit -q -m ws
    cd ws || exit 1
    run_cmd env CARGO_HOME="$tmpdir/cargo-home" "$SBX" run --profile qa -- sh -c \
        'cargo test --offline 2>&1 && git add -A && git -c user.name=t -c user.email=t@t commit -q -m inside && echo committed'
    is "$status" 0 "a Cargo workspace in a git checkout: cargo test and git commit pass under qa"
    is "$(printf '%s\n' "$out" | grep -c 'test result: ok. 1 passed')" 2 "both members' tests ran"
    like "$out" "committed" "git commit inside qa"
    is "$(git log --format=%s -1)" "inside" "the commit is in the repository"
    cd "$tmpdir" || exit 1
else
    for i in 1 2 3 4 5 6 7 8 9; do skip "cargo is not installed (apt-get install cargo)"; done
fi
done_testing
