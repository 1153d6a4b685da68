"""Tiny repositories for the candidate-patch pipeline, written into tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..repair.conftest import OFF_BY_ONE, snapshot, write_repo

__all__ = ["OFF_BY_ONE", "SHOP", "snapshot", "write_repo"]

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
