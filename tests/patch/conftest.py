"""Tiny repositories for the candidate-patch pipeline, written into tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


def write_repo(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (what the pipeline must leave alone)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


#: total() skips the last item (one failing test); mutation fixes it (`len(xs) - 1` → `len(xs)`).
OFF_BY_ONE = {
    "calc.py": '''
        def total(xs):
            s = 0
            for i in range(len(xs) - 1):
                s += xs[i]
            return s


        def clamp(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x
        ''',
    "tests/test_calc.py": '''
        from calc import clamp, total


        def test_total():
            assert total([1, 2, 3]) == 6


        def test_total_empty():
            assert total([]) == 0


        def test_clamp():
            assert clamp(5, 0, 3) == 3
            assert clamp(-1, 0, 3) == 0
        ''',
    "tests/conftest.py": '''
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        ''',
}

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


@pytest.fixture
def off_by_one_repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo", OFF_BY_ONE)


@pytest.fixture
def shop_repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "shop", SHOP)
