"""Issue 12, items 3, 6 and 11: reads are bounded (FIFOs, size), grep's regex has a time
limit, files in a declared coding are read and written in it, new files get the umask's mode."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from codur.graph.observe import sources_under_test
from codur.tools import ToolExecutor
from codur.tools import search as search_tools

LATIN1 = "# -*- coding: latin-1 -*-\nGREETING = 'café'\n\n\ndef greet():\n    return GREETING\n"


def in_thread(fn, timeout_s: float = 10.0):
    """Run ``fn`` in a daemon thread; its result, or a failure when it does not return in time."""
    box: dict = {}
    t = threading.Thread(target=lambda: box.setdefault("value", fn()), daemon=True)
    t.start()
    t.join(timeout_s)
    if t.is_alive():
        pytest.fail(f"still blocked after {timeout_s}s")
    return box["value"]


def test_read_file_refuses_a_fifo_without_blocking(ex: ToolExecutor, repo: Path) -> None:
    os.mkfifo(repo / "pipe.py")
    result = in_thread(lambda: ex.execute("read_file", {"path": "pipe.py"}))
    assert not result.ok and "FIFO" in result.output and "not a regular file" in result.output


def test_grep_and_find_definition_skip_a_fifo(ex: ToolExecutor, repo: Path) -> None:
    os.mkfifo(repo / "pipe.py")
    grep = in_thread(lambda: ex.execute("grep", {"pattern": "def add"}))
    assert grep.ok and "calc.py:1:" in grep.output
    found = in_thread(lambda: ex.execute("find_definition", {"symbol": "add"}))
    assert found.ok and "calc.py:1-2" in found.output


def test_a_file_over_the_limit_is_refused(ex: ToolExecutor, repo: Path) -> None:
    (repo / "big.txt").write_text("x" * 1_000_001)
    result = ex.execute("read_file", {"path": "big.txt"})
    assert not result.ok and "over the 1000000-byte limit" in result.output


def test_grep_stops_a_catastrophic_regex(ex: ToolExecutor, repo: Path, monkeypatch) -> None:
    monkeypatch.setattr(search_tools, "GREP_TIMEOUT_S", 0.3)
    (repo / "data.txt").write_text("a" * 60 + "b\n")
    result = in_thread(lambda: ex.execute("grep", {"pattern": "(a|aa)+$"}), timeout_s=20)
    assert not result.ok and "ran over 0.3s" in result.output


def test_grep_still_finds_plain_matches(ex: ToolExecutor) -> None:
    result = ex.execute("grep", {"pattern": r"return a \* b", "glob": "*.py"})
    assert result.ok and result.output == "calc.py:6: return a * b"


def test_a_file_in_a_declared_coding_is_read_and_written_in_it(ex: ToolExecutor, repo: Path) -> None:
    (repo / "greet.py").write_bytes(LATIN1.encode("latin-1"))
    read = ex.execute("read_file", {"path": "greet.py"})
    assert read.ok and "café" in read.output
    assert ex.execute("grep", {"pattern": "café"}).output == "greet.py:2: GREETING = 'café'"
    edit = ex.execute("replace_in_file", {"path": "greet.py", "old": "'café'", "new": "'crème'"})
    assert edit.ok
    assert (repo / "greet.py").read_bytes() == LATIN1.replace("café", "crème").encode("latin-1")


def test_undeclared_non_utf8_is_refused_with_a_reason(ex: ToolExecutor, repo: Path) -> None:
    (repo / "raw.py").write_bytes("X = 'café'\n".encode("latin-1"))
    result = ex.execute("read_file", {"path": "raw.py"})
    assert not result.ok and "not UTF-8 text" in result.output


def test_observe_reads_a_latin1_module_under_test(ex: ToolExecutor, repo: Path) -> None:
    (repo / "greet.py").write_bytes(LATIN1.encode("latin-1"))
    (repo / "raw.py").write_bytes("X = 'café'\n".encode("latin-1"))
    (repo / "tests" / "test_greet.py").write_text("import greet\nimport raw\n\n\ndef test_g():\n    assert 0\n")
    files = ["greet.py", "raw.py", "tests/test_greet.py"]
    out = sources_under_test(ex.ctx, files, ["tests/test_greet.py::test_g"])
    assert "café" in out["greet.py"]
    assert out["raw.py"].startswith("(not shown:") and "not UTF-8" in out["raw.py"]


def test_a_new_file_gets_the_umask_mode(ex: ToolExecutor, repo: Path) -> None:
    old = os.umask(0o022)
    try:
        assert ex.execute("write_file", {"path": "new.py", "content": "x = 1\n"}).ok
        assert ex.execute("apply_patch", {"patch": "--- /dev/null\n+++ b/other.py\n@@ -0,0 +1 @@\n+y = 2\n"}).ok
    finally:
        os.umask(old)
    assert (repo / "new.py").stat().st_mode & 0o777 == 0o644
    assert (repo / "other.py").stat().st_mode & 0o777 == 0o644
