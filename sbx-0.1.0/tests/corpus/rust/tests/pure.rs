// A suite that touches no network.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[test]
fn gcd_works() {
    assert_eq!(gcd(84, 36), 12);
}
