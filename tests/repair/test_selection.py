"""Test selection for big suites: localization on the failing tests' files and the related
ones, candidates judged by the covering tests, and the whole suite as the winner's gate."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from codur.testing.command import resolve
from codur.testing.suite import suite_of
from codur.validate.evaluate import evaluate
from codur.validate.selection import named_tests, related_test_files
from codur.validate.session import RepairSession

PRICES = '''"""Prices of a basket, in cents."""


def subtotal(items):
    """Sum of price * quantity over (price, quantity) pairs."""
    total = 0
    for price, qty in items[1:]:
        total += price * qty
    return total


def money(cents):
    """'12.34' for 1234 cents."""
    return f"{cents // 100}.{cents % 100:02d}"
'''

FILES = {
    "shop/__init__.py": "",
    "shop/prices.py": PRICES,
    "report/__init__.py": "",
    "report/receipt.py": "from shop.prices import money\n\n\ndef line(name, cents):\n"
                         "    return f\"{name}: {money(cents)}\"\n",
    "tests/test_prices.py": "from shop.prices import subtotal\n\n\ndef test_subtotal_two_items():\n"
                            "    assert subtotal([(250, 2), (100, 1)]) == 600\n\n\n"
                            "def test_subtotal_empty():\n    assert subtotal([]) == 0\n",
    "tests/test_report.py": "from report.receipt import line\n\n\ndef test_line():\n"
                            "    assert line('tea', 1205) == 'tea: 12.05'\n\n\n"
                            "def test_tax_note():\n    assert line('tea', 100).endswith('(incl. VAT)')\n",
}
FAILING = "tests/test_prices.py::test_subtotal_two_items"
ELSEWHERE = "tests/test_report.py::test_tax_note"  # failed before, and not this fix's to make pass


@dataclass(frozen=True)
class Edit:
    """A candidate patch: ``old`` replaced by ``new`` in ``file``."""

    file: str
    changes: tuple[tuple[str, str], ...]
    probe: bool = False

    def apply(self, text: str) -> str:
        for old, new in self.changes:
            text = text.replace(old, new)
        return text


FIX = ("items[1:]", "items")
BREAK_MONEY = ('f"{cents // 100}.', 'f"{cents // 100},')


@pytest.fixture
def shop_repo(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_related_and_named_tests(shop_repo):
    ran = {"shop/prices.py"}  # what the failing test runs
    suite = suite_of(shop_repo, resolve(shop_repo))
    assert related_test_files(shop_repo, [FAILING], ran, suite) == []  # test_report imports report.receipt only
    (shop_repo / "tests" / "test_bulk.py").write_text("from shop.prices import subtotal\n\n\ndef test_bulk():\n"
                                                      "    assert subtotal([(1, 3)]) == 3\n")
    (shop_repo / "tests" / "test_pkg.py").write_text("import shop\n")
    suite = suite_of(shop_repo, resolve(shop_repo))
    assert related_test_files(shop_repo, [FAILING], ran, suite) == ["tests/test_bulk.py"]
    assert related_test_files(shop_repo, [FAILING], ran, suite, budget=0) == []  # its one test is over the budget
    task = f"make {FAILING} pass (see also tests/test_nothere.py and shop/prices.py)."
    assert named_tests(task, shop_repo) == [FAILING]


def test_a_candidate_is_judged_by_covering_tests_then_the_whole_suite(shop_repo):
    with RepairSession(shop_repo, workers=1, focus=[FAILING], failing_before=[FAILING, ELSEWHERE],
                       suite_s=1.0) as session:
        assert session.selection == ["tests/test_prices.py"]  # localization never ran test_report.py
        assert {t.nodeid for t in session.loc.tests} == {FAILING, "tests/test_prices.py::test_subtotal_empty"}
        checks = session.checks
        assert checks.gate is not None and checks.gate.may_fail == frozenset({ELSEWHERE})
        assert checks.tests_for(("shop/prices.py",)) == {"tests/test_prices.py::test_subtotal_empty"}
        assert len(checks.stages_for(("shop/prices.py",))) == 3
        assert session.judged(("shop/prices.py",)) == "1 failing tests, 1 covering tests, then the whole suite"
        text = session.original("shop/prices.py")
        worker = session.copies[0]
        assert evaluate(worker, Edit("shop/prices.py", (FIX,)), text, checks).status == "plausible"
        # fixes the failing test and passes the covering ones, but breaks a test outside the selection
        broken = evaluate(worker, Edit("shop/prices.py", (FIX, BREAK_MONEY)), text, checks)
        assert broken.status == "failed"
        assert (worker.root / "shop/prices.py").read_text() == PRICES  # restored after each candidate


def test_without_known_outcomes_the_whole_suite_is_run_once_for_them(shop_repo):
    with RepairSession(shop_repo, workers=2, focus=[FAILING], suite_s=1.0) as session:
        assert session.checks.gate.may_fail == frozenset({ELSEWHERE})  # learnt from its own whole run
        text = session.original("shop/prices.py")
        assert evaluate(session.copies[0], Edit("shop/prices.py", (FIX,)), text, session.checks).status == "plausible"


def test_no_focus_or_unknown_ids_judge_by_the_whole_suite(shop_repo):
    with RepairSession(shop_repo, workers=1, focus=["tests/test_prices.py::renamed"], failing_before=[]) as session:
        assert session.selection == ["tests/test_prices.py"] and session.loc.failing == [FAILING]  # its file ran
    with RepairSession(shop_repo, workers=1, focus=["tests/test_gone.py::test_x"]) as session:
        assert session.selection is None and session.checks.gate is None
        assert set(session.loc.failing) == {FAILING, ELSEWHERE}
        assert session.judged(("shop/prices.py",)) == "2 failing tests, then the whole suite"


def test_failures_beside_the_named_tests_are_baseline_not_targets(shop_repo):
    """A test of the same file that already fails, and is not the one the task names, neither
    steers localization nor must pass: the named test is the target."""
    old = "tests/test_prices.py::test_money_in_euros"
    with (shop_repo / "tests" / "test_prices.py").open("a") as fh:
        fh.write("\n\ndef test_money_in_euros():\n    from shop.prices import money\n"
                 "    assert money(5) == '0.05 EUR'\n")
    with RepairSession(shop_repo, workers=2, focus=[FAILING], suite_s=1.0) as session:
        assert session.loc.failing == [FAILING]
        top_file, top_line, _ = session.loc.suspicious[0]
        assert top_file == "shop/prices.py" and 6 <= top_line <= 9  # subtotal's body, not money()
        assert old in session.checks.gate.may_fail
        text = session.original("shop/prices.py")
        assert evaluate(session.copies[0], Edit("shop/prices.py", (FIX,)), text, session.checks).status == "plausible"
