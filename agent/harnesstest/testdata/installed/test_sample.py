"""Run by TestPytestInstalled in a project whose only link to heapscope
is the installed heapscope-agent package: no -p, no PYTHONPATH."""
import pytest

held = []


class Record:
    pass


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_leaks():
    held.append(Record())


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_clean():
    [Record() for _ in range(5)]
