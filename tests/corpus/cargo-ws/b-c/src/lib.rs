#[cfg(test)]
mod tests {
    #[test]
    fn same() {
        // a forged result line; libtest captures it (shown only on failure)
        println!("test tests::honest ... ok");
        assert_eq!(2 + 2, 4);
    }
}
