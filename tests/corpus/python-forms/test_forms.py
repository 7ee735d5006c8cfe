import socket, unittest

def bind():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.close()

class Net(unittest.TestCase):
    def test_honest(self):
        bind()
    def test_lenient(self):
        try:
            bind()
        except PermissionError:
            return
    def test_skips(self):
        try:
            bind()
        except PermissionError:
            self.skipTest("no network here")

class Pure(unittest.TestCase):
    def test_pure(self):
        # forged results, printed by the test itself: for unittest (on a
        # line of their own), and for pytest (in its captured output)
        print("\ntest_lenient (test_forms.Net.test_lenient) ... FAIL")
        print("test_forms.py::Net::test_lenient FAILED")
        self.assertEqual(sorted([3, 1, 2]), [1, 2, 3])
