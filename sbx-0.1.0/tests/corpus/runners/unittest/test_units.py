"""Per-test results corpus for python -m unittest: passing, failing,
erroring, skipped, expected failures, subtests and docstrings."""
import sys
import unittest


class TestPlain(unittest.TestCase):
    def test_pass(self):
        self.assertEqual(1 + 1, 2)

    def test_fail(self):
        self.assertEqual(1 + 1, 3)

    def test_error(self):
        raise RuntimeError("boom")

    @unittest.skip("needs the network")
    def test_skipped(self):
        pass

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertTrue(False)

    @unittest.expectedFailure
    def test_unexpected_success(self):
        pass

    def test_documented(self):
        """A docstring makes verbose mode print a second line."""
        pass

    def test_noisy(self):
        sys.stderr.write("noise on stderr\n")
        print("noise on stdout ... ok")


class TestSub(unittest.TestCase):
    def test_subtests(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)

    def test_subtests_pass(self):
        for i in range(2):
            with self.subTest(i=i):
                self.assertTrue(True)


class TestSetupFails(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise OSError(1, "Operation not permitted")

    def test_never_runs(self):
        pass


if __name__ == "__main__":
    unittest.main()
