"""A small real repo in tmp_path, a ToolExecutor on it, and a snapshot of its files."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codur.tools import ToolExecutor, ToolSettings

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST_CALC = (
    "from calc import add, mul\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)


def take_snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file (bytes) and symlink (target) under ``root``, .git excluded: compare before/after."""
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        if p.is_symlink():
            out[rel] = f"-> {p.readlink()}"
        elif p.is_file():
            out[rel] = p.read_bytes()
        else:
            out[rel + "/"] = b""
    return out


@pytest.fixture
def snapshot():
    """``snapshot(root)``: every file and link under root, to compare before and after a call."""
    return take_snapshot


def gone(pid: int, within_s: float = 3.0) -> bool:
    """True once ``pid`` no longer runs (a zombie waiting for its reaper counts as gone)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


@pytest.fixture
def process_gone():
    """``process_gone(pid)``: waits up to 3 s for the process to end; True when it did."""
    return gone


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TEST_CALC)
    (root / "tests" / "conftest.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent))\n")
    (root / "README.md").write_text("# calc\n\nAdds and multiplies.\n")
    return root


@pytest.fixture
def ex(repo: Path) -> ToolExecutor:
    return ToolExecutor(repo, ToolSettings(timeout_s=60))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the repo that no tool may read or change."""
    p = tmp_path / "outside.txt"
    p.write_text("top secret outside the repo\n")
    return p
