"""A test that hangs (as CPython's test_httpservers does under a profile
that denies its connection), after one that passes."""
import time


def test_before():
    pass


def test_hangs():
    time.sleep(60)
