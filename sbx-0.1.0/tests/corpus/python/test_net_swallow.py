# A suite that swallows EPERM (on purpose: see ../README.md).
import unittest

from echo import echo_roundtrip


class EchoTest(unittest.TestCase):
    def test_echo(self):
        try:
            data = echo_roundtrip()
        except PermissionError:
            self.skipTest("network not available")  # the false green
        self.assertEqual(data, b"ping")


if __name__ == "__main__":
    unittest.main()
