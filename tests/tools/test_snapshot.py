"""Issue 21, item 4: what a test run in the repo changed, found from the files before and after."""

from __future__ import annotations

import os
from pathlib import Path

from codur.tools import ToolExecutor, snapshot
from codur.tools.snapshot import FileChange


def test_modified_deleted_and_created_files_are_found(repo: Path, monkeypatch) -> None:
    ctx = ToolExecutor(repo).ctx
    (repo / "big.bin").write_bytes(b"x" * 100)
    monkeypatch.setattr(snapshot, "KEEP_TOTAL_BYTES", 200)  # the later files are noted by size and mtime only
    before = snapshot.take(ctx)
    (repo / "calc.py").write_text("changed = True\n")
    (repo / "README.md").unlink()
    (repo / "out.log").write_text("made by a test\n")
    touched = repo / "big.bin"  # kept (sorted walk: README.md, big.bin first), then touched: same bytes
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    (repo / "tests" / "test_calc.py").write_text("# rewritten\n")  # past the budget: not kept
    found = {c.path: c for c in snapshot.changes(ctx, before)}
    assert found["README.md"] == FileChange("README.md", "deleted", True)
    assert found["out.log"] == FileChange("out.log", "created", True)
    assert found["calc.py"] == FileChange("calc.py", "modified", True)
    assert "big.bin" not in found  # a new mtime, the same bytes
    assert found["tests/test_calc.py"] == FileChange("tests/test_calc.py", "modified", False)
    assert sum(len(s.data) for s in before.values() if s.data is not None) <= 200
    assert found["tests/test_calc.py"].message == "the test suite modified tests/test_calc.py (too large to keep)"
