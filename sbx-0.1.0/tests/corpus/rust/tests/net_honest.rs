// A suite that fails when the network is denied.
#[test]
fn echo_over_loopback() {
    assert_eq!(sbx_corpus::echo_roundtrip().expect("echo over 127.0.0.1"), "ping");
}
