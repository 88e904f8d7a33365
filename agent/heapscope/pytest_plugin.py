"""pytest support for heapscope's leak check. Enable it with
`pytest -p heapscope.pytest_plugin`, or `pytest_plugins =
["heapscope.pytest_plugin"]` in a conftest.py. Then:

    @pytest.mark.no_leaks(iterations=20, warmup=3)
    def test_handler():
        handle_request()          # the whole test body is the workload

    def test_other(leak_check):
        leak_check(handle_request, iterations=20)

A leaking test fails with the objects that leak, the memory they hold and
the path that holds them.
"""

import pytest

from .leakcheck import LeakError, assert_no_leaks


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "no_leaks(iterations=50, warmup=5): run the test body repeatedly and fail if objects "
        "pile up in proportion to the runs (heapscope leak check)")


@pytest.fixture
def leak_check():
    """A function: leak_check(workload, *args, iterations=50, warmup=5)
    fails the test when the workload leaks."""
    def check(workload, *args, **kwargs):
        try:
            return assert_no_leaks(workload, *args, **kwargs)
        except LeakError as e:
            failure = str(e)
        pytest.fail(failure, pytrace=False)
    return check


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    marker = pyfuncitem.get_closest_marker("no_leaks")
    if marker is None:
        yield
        return
    opts = dict(marker.kwargs)
    test = pyfuncitem.obj
    funcargs = pyfuncitem.funcargs
    names = pyfuncitem._fixtureinfo.argnames
    kwargs = {n: funcargs[n] for n in names}

    def body():
        test(**kwargs)

    def run_with_check(**_):
        try:
            assert_no_leaks(body, **opts)
            return
        except LeakError as e:
            failure = str(e)
        pytest.fail(failure, pytrace=False)

    pyfuncitem.obj = run_with_check
    try:
        yield
    finally:
        pyfuncitem.obj = test
