//! Per-test results corpus: passing, failing, ignored, panicking and
//! should_panic tests, in nested modules, run on libtest's parallel threads.
/// Adds.
///
/// ```
/// assert_eq!(runner_corpus::add(1, 2), 3);
/// ```
pub fn add(a: u32, b: u32) -> u32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn fails_assert() {
        assert_eq!(add(2, 2), 5);
    }

    #[test]
    #[ignore = "needs the network"]
    fn ignored_with_reason() {}

    #[test]
    #[should_panic(expected = "boom")]
    fn should_panic_ok() {
        panic!("boom");
    }

    #[test]
    fn panics() {
        let v: Vec<u32> = Vec::new();
        let _ = v[3];
    }

    mod nested {
        #[test]
        fn slow_parallel() {
            std::thread::sleep(std::time::Duration::from_millis(200));
            println!("noise on stdout ... ok");
        }

        #[test]
        fn quick_parallel() {}
    }
}
