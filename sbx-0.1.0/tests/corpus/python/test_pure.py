# A suite that touches no network.
import math
import unittest


class PureTest(unittest.TestCase):
    def test_gcd(self):
        self.assertEqual(math.gcd(84, 36), 12)


if __name__ == "__main__":
    unittest.main()
