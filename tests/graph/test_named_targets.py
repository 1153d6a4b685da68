"""The task is the contract for which tests must pass: the failing tests it names are the
targets; a test that failed before any change and is not named is the baseline, reported and
never required to pass, and it does not steer localization (no model: mutation search alone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run

LEDGER = '''"""A small ledger."""
import urllib.request


def balance(entries):
    """Sum of the amounts of (name, amount) entries."""
    total = 0
    for _, amount in entries[1:]:
        total += amount
    return total


def fetch_rates(url):
    """The exchange rates the bank publishes at ``url``."""
    with urllib.request.urlopen(url, timeout=2) as resp:
        return resp.read()
'''

TESTS = '''from ledger import balance, fetch_rates


def test_balance():
    assert balance([("a", 5), ("b", 7)]) == 12


def test_empty():
    assert balance([]) == 0


def test_rates_online():
    assert fetch_rates("http://127.0.0.1:9/rates")
'''


@pytest.fixture
def ledger_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "ledger"
    (repo / "tests").mkdir(parents=True)
    (repo / "ledger.py").write_text(LEDGER)
    (repo / "tests" / "test_ledger.py").write_text(TESTS)
    return repo


def test_the_named_failing_test_is_the_target_and_an_old_failure_is_the_baseline(ledger_repo: Path):
    result = run(RunRequest(task="make tests/test_ledger.py::test_balance pass", repo=ledger_repo),
                 config=CodurConfig(fixers=["mutation"], critic=False, repair_workers=2, mutation_time_box_s=60))
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", (result.reason, result.summary)
    assert "entries[1:]" not in (ledger_repo / "ledger.py").read_text()
    assert "fetch_rates" in (ledger_repo / "ledger.py").read_text()  # the unrelated function is left alone
    assert "1 failing test not related to the task: tests/test_ledger.py::test_rates_online" in result.summary


def test_without_named_tests_every_failing_test_is_the_tasks(ledger_repo: Path):
    result = run(RunRequest(task="make the failing tests pass", repo=ledger_repo),
                 config=CodurConfig(fixers=["mutation"], critic=False, repair_workers=2, mutation_time_box_s=20,
                                    timeout_s=60))
    assert result.status is not RunStatus.SUCCESS  # test_rates_online cannot pass without a network
