"""Shared fixtures: small real repos copied from examples/ into tmp_path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def copy_example(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copytree(EXAMPLES / name, target, ignore=shutil.ignore_patterns("__pycache__", ".codur", ".pytest_cache"))
    return target


@pytest.fixture
def invoice_repo(tmp_path: Path) -> Path:
    """examples/invoice: bulk discount uses > instead of >= (2 failing tests)."""
    return copy_example("invoice", tmp_path)


@pytest.fixture
def paginate_repo(tmp_path: Path) -> Path:
    """examples/paginate: 1-based page number used as a 0-based offset."""
    return copy_example("paginate", tmp_path)


@pytest.fixture(params=["bwrap", "fallback"])
def mode(request, monkeypatch) -> str:
    """Each sandbox mode a test must hold in: bubblewrap (skipped, saying why, when it cannot run
    here) and the fallback without it (``CODUR_SANDBOX=off``)."""
    from codur.sandbox.bwrap import bwrap_problem

    if request.param == "bwrap" and (problem := bwrap_problem()) is not None:
        pytest.skip(f"bubblewrap does not work here: {problem}")
    if request.param == "fallback":
        monkeypatch.setenv("CODUR_SANDBOX", "off")
    return request.param
