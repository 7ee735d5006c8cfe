// A suite that swallows EPERM (on purpose: see ../../README.md).
use std::io::ErrorKind;

#[test]
fn echo_over_loopback() {
    match sbx_corpus::echo_roundtrip() {
        Ok(data) => assert_eq!(data, "ping"),
        Err(e) if e.kind() == ErrorKind::PermissionDenied => {
            eprintln!("network not available, skipping"); // the false green
        }
        Err(e) => panic!("echo failed: {}", e),
    }
}
