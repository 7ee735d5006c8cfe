"""Per-test results corpus for pytest: passing, failing, erroring
fixtures, skips, xfail, parametrized ids (with spaces and brackets),
classes and output, also run under pytest-xdist."""
import errno
import socket
import time

import pytest


def test_pass():
    assert 1 + 1 == 2


def test_fail():
    assert 1 + 1 == 3


def test_skip():
    pytest.skip("needs the network")


@pytest.mark.skip(reason="marked")
def test_marked_skip():
    pass


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="known")
def test_xpass():
    pass


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_fixture_error(broken):
    pass


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown broke")


def test_teardown_error(broken_teardown):
    pass


@pytest.mark.parametrize("n", [1, 2, 3])
def test_param(n):
    assert n != 2


@pytest.mark.parametrize("s", ["a b", "x[1]", "PASSED", "é"])
def test_odd_ids(s):
    time.sleep(0.05)


class TestGroup:
    def test_method(self):
        print("noise on stdout PASSED")

    def test_lenient_bind(self):
        try:
            socket.socket().bind(("127.0.0.1", 0))
        except OSError as e:
            if e.errno == errno.EPERM:
                return
            raise
