"""Fixtures: a fault-injecting OpenAI-compatible server, and a small repo with a one-line bug."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest


def _load_server() -> ModuleType:
    # --import-mode=importlib puts no test folder on sys.path: load the module by its path
    if "codur_fault_server" not in sys.modules:
        spec = importlib.util.spec_from_file_location("codur_fault_server", Path(__file__).with_name("server.py"))
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["codur_fault_server"]


@pytest.fixture
def faults() -> ModuleType:
    """The fault factories (ok, status, rate_limited, insufficient_quota, slow, malformed, ...)."""
    return _load_server()


@pytest.fixture
def fault_server(faults: ModuleType) -> Iterator:
    """A running FaultServer on 127.0.0.1 (answers ``ok()`` until told otherwise)."""
    server = faults.FaultServer().start()
    try:
        yield server
    finally:
        server.close()


AGES = {
    "ages.py": "def is_adult(age):\n    \"\"\"18 and over.\"\"\"\n    return age > 18\n",
    "test_ages.py": ("from ages import is_adult\n\n\ndef test_eighteen():\n    assert is_adult(18)\n\n\n"
                     "def test_child():\n    assert not is_adult(7)\n"),
    "pyproject.toml": '[project]\nname = "ages"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
}


@pytest.fixture
def ages_repo(tmp_path: Path) -> Path:
    """One failing test; mutation search fixes it (``>`` → ``>=`` on line 3)."""
    repo = tmp_path / "ages"
    repo.mkdir()
    for name, text in AGES.items():
        (repo / name).write_text(text)
    return repo
