// An integration test binary: the same test name as in the library, so
// that the binary is part of a test's identity.
#[test]
fn adds() {
    assert_eq!(runner_corpus::add(1, 1), 2);
}

#[test]
fn loopback_bind() {
    let l = std::net::TcpListener::bind("127.0.0.1:0");
    assert!(l.is_ok(), "bind: {:?}", l.err());
}
