"""Tiny repositories for the candidate-patch pipeline, written into tmp_path."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from codur.config import CodurConfig
from codur.patch import PatchSettings

from ..repair.conftest import OFF_BY_ONE, snapshot, write_repo

__all__ = ["OFF_BY_ONE", "REPORT", "SHOP", "patch_settings", "snapshot", "write_repo"]


def patch_settings(**changes) -> PatchSettings:
    """The pipeline's settings for a test: the config's defaults with two workers and no memory
    limit, then ``changes`` (:class:`PatchSettings` fields, e.g. ``fixers=("sampling",)``)."""
    return dataclasses.replace(PatchSettings.from_config(CodurConfig(repair_workers=2, test_memory_mb=0)), **changes)

#: Two bugs in one function (`+` for `*`, `>` for `>=`): three failing tests, one passing.
#: Fixing the `+` alone fixes two of the three failing tests and breaks nothing.
SHOP = {
    "shop.py": '''
        def bulk_price(quantity, unit):
            """Price of quantity items: 10% off from 10 items."""
            gross = quantity + unit
            if quantity > 10:
                return gross * 0.9
            return gross
        ''',
    "test_shop.py": '''
        from shop import bulk_price


        def test_small_order():
            assert bulk_price(2, 3) == 6


        def test_big_order():
            assert bulk_price(20, 1) == 18.0


        def test_discount_starts_at_ten():
            assert bulk_price(10, 1) == 9.0


        def test_two_of_two():
            assert bulk_price(2, 2) == 4
        ''',
    "pyproject.toml": '''
        [project]
        name = "shop"
        version = "0.1.0"

        [tool.pytest.ini_options]
        pythonpath = ["."]
        ''',
}


#: A slip in each of two modules: the parser keeps the space after a comma in the names, the
#: renderer ranks the scores worst first. Each module's own test fails, and so does the
#: report that goes through both: no edit of one file makes every failing test pass.
REPORT = {
    "scores/parse.py": '''
        """Read 'name:points' lists."""


        def parse_scores(text):
            """'ann:3, bob:5' -> {'ann': 3, 'bob': 5}"""
            scores = {}
            for item in text.split(","):
                name, points = item.split(":")
                scores[name] = int(points)
            return scores
        ''',
    "scores/render.py": '''
        """Show scores, best first."""


        def render(scores):
            """One 'name: points' line per player, the best first."""
            ranked = sorted(scores.items(), key=lambda kv: kv[1])
            return "\\n".join(f"{name}: {points}" for name, points in ranked)
        ''',
    "scores/__init__.py": "",
    "tests/test_scores.py": '''
        from scores.parse import parse_scores
        from scores.render import render


        def test_parse_two():
            assert parse_scores("ann:3, bob:5") == {"ann": 3, "bob": 5}


        def test_render_two():
            assert render({"ann": 3, "bob": 5}) == "bob: 5\\nann: 3"


        def test_report():
            assert render(parse_scores("ann:3, bob:5")) == "bob: 5\\nann: 3"


        def test_parse_one():
            assert parse_scores("ann:3") == {"ann": 3}


        def test_render_one():
            assert render({"x": 1}) == "x: 1"
        ''',
    "pyproject.toml": '''
        [project]
        name = "scores"
        version = "0.1.0"

        [tool.pytest.ini_options]
        pythonpath = ["."]
        ''',
}


@pytest.fixture
def report_repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "report", REPORT)


@pytest.fixture
def off_by_one_repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo", OFF_BY_ONE)


@pytest.fixture
def shop_repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "shop", SHOP)


class Told:
    """The sampler's :class:`codur.patch.conversation.Verdicts` in a test: what the search says,
    as functions of nothing (default: never stopped, nothing judged, no near miss)."""

    def __init__(self, *, judged=lambda: [], near_miss=lambda: False, stopped=lambda: False) -> None:
        self._judged, self._near_miss, self._stopped = judged, near_miss, stopped

    def judged(self) -> list:
        return self._judged()

    def near_miss(self) -> bool:
        return self._near_miss()

    def stopped(self) -> bool:
        return self._stopped()
