"""A unittest-style suite (TestCase classes, no pytest in sight) runs under pytest everywhere:
observe's report, per-test coverage in fault localization, the candidate checks."""

from __future__ import annotations

from pathlib import Path

from codur import RunRequest, run
from codur.config import load_config
from codur.tools.context import ToolContext
from codur.tools.journal import ChangeJournal
from codur.tools.testing import run_tests
from codur.validate.localize import localize_faults

LEDGER = '''"""A running balance of deposits and withdrawals."""


class Ledger:
    def __init__(self):
        self.entries = []

    def deposit(self, amount):
        self.entries.append(amount)

    def withdraw(self, amount):
        if amount >= self.balance():
            raise ValueError("insufficient funds")
        self.entries.append(-amount)

    def balance(self):
        return sum(self.entries)
'''

TESTS = '''import unittest

from ledger import Ledger


class LedgerTest(unittest.TestCase):
    def setUp(self):
        self.ledger = Ledger()

    def test_deposits_add_up(self):
        self.ledger.deposit(5)
        self.ledger.deposit(7)
        self.assertEqual(self.ledger.balance(), 12)

    def test_withdraw_lowers_the_balance(self):
        self.ledger.deposit(10)
        self.ledger.withdraw(4)
        self.assertEqual(self.ledger.balance(), 6)

    def test_overdraft_is_refused(self):
        self.ledger.deposit(10)
        with self.assertRaises(ValueError):
            self.ledger.withdraw(11)

    def test_withdraw_everything(self):
        self.ledger.deposit(10)
        self.ledger.withdraw(10)
        self.assertEqual(self.ledger.balance(), 0)


if __name__ == "__main__":
    unittest.main()
'''


def make(tmp_path: Path) -> Path:
    (tmp_path / "ledger.py").write_text(LEDGER)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_ledger.py").write_text(TESTS)
    return tmp_path


def test_a_testcase_suite_reports_per_test_and_localizes(tmp_path):
    repo = make(tmp_path)
    report = run_tests(ToolContext(root=repo, journal=ChangeJournal(repo)))
    case = "tests/test_ledger.py::LedgerTest::"
    assert report.failed == [f"{case}test_withdraw_everything"]
    assert report.passed == [f"{case}test_deposits_add_up", f"{case}test_overdraft_is_refused",
                             f"{case}test_withdraw_lowers_the_balance"]
    loc = localize_faults(repo)
    assert loc.failing == [f"{case}test_withdraw_everything"]
    assert loc.suspicious[0][:2] == ("ledger.py", 13)  # the raise: run by the failing test only
    assert loc.covering["ledger.py"] == {f"{case}test_deposits_add_up", f"{case}test_overdraft_is_refused",
                                         f"{case}test_withdraw_lowers_the_balance"}


def test_a_testcase_suite_is_repaired(tmp_path):
    repo = make(tmp_path)
    config = load_config(repo, fixers=["mutation"], critic=False, repair_workers=2, patch_time_budget_s=120)
    result = run(RunRequest(task="make the failing tests pass", repo=repo), config=config)
    assert result.ok, result.reason
    assert "if amount > self.balance():" in (repo / "ledger.py").read_text()
