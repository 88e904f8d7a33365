"""Run by TestPytestPlugin with `pytest -p heapscope.pytest_plugin`: one
leaking test and one clean test in each style (marker and fixture); the
leaking marker test traces its allocations."""
import pytest

held = []


class Record:
    def __init__(self, n):
        self.n = n


@pytest.mark.no_leaks(iterations=20, warmup=2, trace_alloc=1)
def test_marker_leaks():
    held.append(Record(len(held)))  # the leaking line


@pytest.mark.no_leaks(iterations=20, warmup=2)
def test_marker_clean():
    tmp = [Record(i) for i in range(10)]
    assert len(tmp) == 10


def test_fixture_leaks(leak_check):
    leak_check(lambda: held.append(Record(0)), iterations=20, warmup=2)


def test_fixture_clean(leak_check):
    leak_check(lambda: [Record(i) for i in range(5)], iterations=20, warmup=2)
