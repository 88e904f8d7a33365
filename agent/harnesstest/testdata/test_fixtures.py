"""Run by TestPytestFixtures: clean tests that use pytest's fixtures and
unittest.mock, whose records grow with every run of the body (none may
fail), and a leak in a test that uses caplog (it must fail). The last two
tests repeat two clean ones with the pytest and mock rules disabled by a
config file: they must fail, which shows the rules are what set the
fixtures' growth aside."""
import logging
import os
from unittest import mock

import pytest

log = logging.getLogger("app")
NO_RULES = "no_rules.json"   # disables python-pytest and python-unittest-mock


class Thing:
    def __init__(self, n):
        self.n = n


def work(n=10):
    return [Thing(i) for i in range(n)]


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_caplog(caplog):
    caplog.set_level(logging.INFO)
    log.info("handled %d", len(work()))
    assert "handled" in caplog.text


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_monkeypatch(monkeypatch):
    monkeypatch.setattr(os, "getcwd", lambda: "/x")
    monkeypatch.setenv("HEAPSCOPE_TEST_X", "1")
    assert os.getcwd() == "/x"
    work()


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_capsys(capsys):
    print("hello", len(work()))
    out, _ = capsys.readouterr()
    assert "hello" in out


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_tmp_path(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("x")
    assert p.read_text() == "x"


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_mock_patch():
    with mock.patch("os.getcwd", return_value="/y") as m:
        assert os.getcwd() == "/y"
        m.assert_called_once()


@pytest.mark.no_leaks(iterations=10, warmup=2)
@mock.patch("os.getpid", return_value=7)
def test_mock_patch_decorator(m):
    assert os.getpid() == 7


@pytest.fixture
def client():
    return mock.MagicMock()


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_magicmock_fixture(client):
    client.get("/x", Thing(1))
    client.get.assert_called_with("/x", mock.ANY)


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_mock_in_monkeypatch(monkeypatch):
    monkeypatch.setattr(os, "getcwd", mock.MagicMock(return_value="/z"))
    assert os.getcwd() == "/z"


held = []


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_leak_with_caplog(caplog):
    caplog.set_level(logging.INFO)
    held.append(Thing(len(held)))
    log.info("held %d", len(held))


@pytest.mark.no_leaks(iterations=10, warmup=2, config=NO_RULES)
def test_monkeypatch_without_rules(monkeypatch):
    monkeypatch.setattr(os, "getcwd", lambda: "/x")


@pytest.mark.no_leaks(iterations=10, warmup=2, config=NO_RULES)
def test_magicmock_without_rules(client):
    client.get("/x")
