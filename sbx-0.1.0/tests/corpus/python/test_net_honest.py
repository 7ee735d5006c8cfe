# A suite that fails when the network is denied.
import unittest

from echo import echo_roundtrip


class EchoTest(unittest.TestCase):
    def test_echo(self):
        self.assertEqual(echo_roundtrip(), b"ping")


if __name__ == "__main__":
    unittest.main()
