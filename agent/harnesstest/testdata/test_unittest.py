"""Run by TestUnittestLeakCheck, under pytest and under python -m
unittest: unittest.TestCase methods checked with the pytest marker (under
pytest only) and with the no_leaks decorator (under both). The leaking
methods must fail; the clean ones, which use a mock made in setUp,
assertLogs, subTest and addCleanup on every run, must pass."""
import logging
import unittest
from unittest import mock

from heapscope.leakcheck import no_leaks

try:
    import pytest
    marker = pytest.mark.no_leaks(iterations=10, warmup=2)
except ImportError:   # plain unittest without pytest installed
    def marker(f):
        return f

held = []
log = logging.getLogger("ut")


class Record:
    pass


class Marked(unittest.TestCase):
    def setUp(self):
        self.client = mock.MagicMock()
        self.setups = getattr(self, "setups", 0) + 1

    @marker
    def test_leaks(self):
        held.append(Record())

    @marker
    def test_clean(self):
        self.client.send(Record())
        with self.assertLogs("ut", level="INFO"):
            log.info("sent")
        with self.subTest(i=1):
            self.assertEqual(len([Record() for _ in range(3)]), 3)
        self.addCleanup(list, [Record()])
        self.assertEqual(self.setups, 1)   # setUp ran once around all the runs


class Decorated(unittest.TestCase):
    @no_leaks(iterations=10, warmup=2)
    def test_leaks(self):
        held.append(Record())

    @no_leaks(iterations=10, warmup=2)
    def test_clean(self):
        self.addCleanup(list, [Record()])
        [Record() for _ in range(3)]


if __name__ == "__main__":
    unittest.main()
