"""Fault localization: Ochiai scores, traceback boost, source filtering."""

from __future__ import annotations

import math

import pytest

from codur.testing.report import parse_report
from codur.validate.localize import is_source_file, localize_faults, ochiai, score

from .conftest import snapshot, write_repo


def test_ochiai_formula():
    assert ochiai(2, 0, 2) == 1.0
    assert ochiai(1, 3, 2) == pytest.approx(1 / math.sqrt(2 * 4))
    assert ochiai(0, 5, 2) == 0.0
    assert ochiai(1, 1, 0) == 0.0


@pytest.mark.parametrize("rel, expected", [
    ("calc.py", True), ("pkg/util.py", True), ("tests/test_calc.py", False),
    ("test_calc.py", False), ("calc_test.py", False), ("conftest.py", False),
    ("pkg/tests/helpers.py", False), (".venv/lib/x.py", False), ("README.md", False),
    (".codur/x.py", False), ("lib/site-packages/x.py", False),
])
def test_is_source_file(rel, expected):
    assert is_source_file(rel) is expected


def test_score_uses_coverage_and_frames(tmp_path):
    (tmp_path / "m.py").write_text("a\nb\nc\n")
    m = str(tmp_path / "m.py")
    raw = {"tests": {"t1": {"outcome": "failed", "duration": 0.1, "path": "", "frames": [[m, 3]]},
                     "t2": {"outcome": "passed", "duration": 0.1, "path": "", "frames": []}},
           "lines": {m: {"1": ["t1", "t2"], "2": ["t1"], "3": ["t1"]},
                     str(tmp_path / "test_m.py"): {"1": ["t1"]}}}
    loc = score(tmp_path, parse_report(raw))
    assert loc.failing == ["t1"]
    assert loc.scores[("m.py", 1)] == pytest.approx(1 / math.sqrt(2))
    assert loc.scores[("m.py", 2)] == 1.0
    assert loc.scores[("m.py", 3)] > loc.scores[("m.py", 2)]  # traceback boost
    assert all(f == "m.py" for f, _ in loc.scores)  # the test file is never scored


def test_buggy_line_ranks_top_three(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        "shop.py": '''
            def price_with_tax(price, rate):
                return round(price * (1 + rate), 2)


            def order_total(price, quantity, rate):
                gross = price * quantity
                if quantity > 10:
                    gross = gross + gross * 0.1
                return price_with_tax(gross, rate)
            ''',
        "test_shop.py": '''
            from shop import order_total, price_with_tax


            def test_tax():
                assert price_with_tax(100, 0.2) == 120


            def test_small_order():
                assert order_total(10, 2, 0.0) == 20


            def test_small_order_taxed():
                assert order_total(10, 3, 0.5) == 45


            def test_bulk_order():
                assert order_total(10, 20, 0.0) == 180


            def test_bulk_order_taxed():
                assert order_total(1, 100, 0.5) == 135
            ''',
    })
    before = snapshot(repo)
    loc = localize_faults(repo)
    assert snapshot(repo) == before  # no bytecode, no cache, nothing written
    assert loc.failing == ["test_shop.py::test_bulk_order", "test_shop.py::test_bulk_order_taxed"]
    top3 = [(f, line) for f, line, _ in loc.suspicious[:3]]
    assert ("shop.py", 8) in top3  # gross + gross * 0.1
    assert loc.suspicious[0][:2] == ("shop.py", 8)
    assert not any(f.startswith("test_") for f, _, _ in loc.suspicious)


def test_hanging_test_is_stopped_and_blamed(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        "loop.py": '''
            def spin(n):
                while n > 0:
                    n += 1
                return n
            ''',
        "test_loop.py": '''
            from loop import spin


            def test_spin():
                assert spin(1) == 0
            ''',
    })
    loc = localize_faults(repo, test_timeout_s=1.0)
    assert loc.failing == ["test_loop.py::test_spin"]
    assert loc.tests[0].timed_out
    assert loc.suspicious[0][:2] in {("loop.py", 2), ("loop.py", 3)}
