"""Run by TestPytestMarkerArgs: markers with arguments the marker does not
take, each of which must fail its test with a message that names the
marker and its arguments; a coroutine test, which the check cannot run;
and a body that asserts on what a fixture accumulates, which fails on its
second run and must say so."""
from unittest import mock

import pytest


@pytest.mark.parametrize("case", [
    pytest.param(0, marks=pytest.mark.no_leaks(iteration=20), id="misspelt"),
    pytest.param(0, marks=pytest.mark.no_leaks(iterations="20"), id="not_an_int"),
    pytest.param(0, marks=pytest.mark.no_leaks(iterations=0), id="zero"),
    pytest.param(0, marks=pytest.mark.no_leaks(20), id="positional"),
    pytest.param(0, marks=pytest.mark.no_leaks(config="nowhere.json"), id="missing_config"),
])
def test_bad_marker(case):
    pass


@pytest.mark.no_leaks(iterations=5)
async def test_coroutine():
    pass


@pytest.fixture
def client():
    return mock.MagicMock()


@pytest.mark.no_leaks(iterations=5, warmup=2)
def test_asserts_on_accumulated_state(client):
    client.get("/x")
    client.get.assert_called_once_with("/x")
