//! Two packages with a test of the same path (tests::same): a lenient one
//! here, a pure one in b-c; `cargo test --workspace` runs both.

/// Binds a loopback listener; a doc-test that swallows the refusal.
///
/// ```
/// let _ = a::bind();
/// ```
pub fn bind() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    #[test]
    fn same() {
        if let Ok(p) = super::bind() {
            assert!(p > 0);
        }
    }
    #[test]
    fn honest() {
        super::bind().expect("bind");
    }
}
