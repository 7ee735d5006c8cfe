# The result channel (issues 25, 34): what a test writes to its output
# never names a test nor changes a result. Each case is what a real
# suite did; the verdicts are asserted by tests/integration/audit-channel.sh.
import socket, sys, unittest


def bind():
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 0))
    finally:
        s.close()


class AWritesNoNewline(unittest.TestCase):
    # CPython's test_socket: "AttributeError" written without its newline
    # right before unittest's own "test_x (...) ... " line, which read as
    # a test named ...test_honest.AttributeErrortest_honest
    @classmethod
    def tearDownClass(cls):
        sys.stderr.write("AttributeError")
        sys.stderr.flush()

    def test_pure(self):
        self.assertEqual(sorted([2, 1]), [1, 2])


class BNext(unittest.TestCase):
    def test_honest(self):
        bind()


class CForges(unittest.TestCase):
    def test_lenient(self):
        # returns early where it cannot listen, and prints what reads as
        # its own failure, in unittest's two forms
        try:
            bind()
        except PermissionError:
            sys.stderr.write("FAIL\n")
            sys.stderr.write("\ntest_lenient (test_channel.CForges.test_lenient) ... FAIL\n")
            sys.stderr.write("=" * 70 + "\nFAIL: test_lenient (test_channel.CForges.test_lenient)\n")
            sys.stderr.write("-" * 70 + "\nAssertionError: forged\n")
            sys.stderr.flush()


class DNoNewline(unittest.TestCase):
    def test_partial(self):
        # its whole output has no newline: unittest's "ok" lands after it
        # on the same line; and it is lenient
        sys.stderr.write("partial")
        sys.stderr.flush()
        try:
            bind()
        except PermissionError:
            return
