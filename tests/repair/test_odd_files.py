"""Issue 21, item 6: repair reads and writes every source as the tools do (its declared
coding), copies a repo holding a FIFO, and says why when the copy fails."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from codur.validate import worker as worker_module

from .conftest import mutation_run, write_repo

LATIN1_CALC = (
    "# -*- coding: latin-1 -*-\n"
    "# Summen für die Kasse (café)\n"
    "LABEL = 'Gesamtsumme: Ä'\n"
    "\n"
    "\n"
    "def total(xs):\n"
    "    s = 0\n"
    "    for i in range(len(xs) - 1):\n"
    "        s += xs[i]\n"
    "    return s\n"
)
TESTS = {
    "tests/test_calc.py": """
        from calc import LABEL, total


        def test_total():
            assert total([1, 2, 3]) == 6


        def test_label():
            assert LABEL.endswith('Ä')
        """,
    "tests/conftest.py": """
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        """,
}


def test_a_latin1_source_with_a_coding_declaration_is_mutated_and_fixed(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", TESTS)
    (repo / "calc.py").write_bytes(LATIN1_CALC.encode("latin-1"))
    result = mutation_run(repo, repair_workers=2)
    assert result.ok, result.reason
    data = (repo / "calc.py").read_bytes()
    assert b"caf\xe9" in data and "Ä".encode("latin-1") in data  # still latin-1, not re-encoded as UTF-8
    assert "for i in range(len(xs)):" in data.decode("latin-1")


def test_a_repo_holding_a_fifo_is_copied_without_it_and_fixed(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", TESTS)
    (repo / "calc.py").write_bytes(LATIN1_CALC.encode("latin-1"))
    os.mkfifo(repo / "events.pipe")
    (repo / "run").mkdir()
    os.mkfifo(repo / "run" / "control")
    result = mutation_run(repo, repair_workers=1)
    assert result.ok, result.reason
    assert (repo / "events.pipe").exists() and not (repo / "events.pipe").is_file()  # left alone


def test_a_copy_that_fails_is_the_runs_reason_in_one_line(tmp_path: Path, monkeypatch) -> None:
    repo = write_repo(tmp_path / "repo", TESTS)
    (repo / "calc.py").write_bytes(LATIN1_CALC.encode("latin-1"))

    def full_disk(src, dst, **kwargs):
        raise shutil.Error([(str(repo / "calc.py"), str(dst), "[Errno 28] No space left on device"),
                            (str(repo / "tests"), str(dst), "[Errno 28] No space left on device")])

    monkeypatch.setattr(worker_module.shutil, "copytree", full_disk)
    result = mutation_run(repo, repair_workers=1)
    assert result.status.value == "failed"
    assert result.reason == ("patch_error: could not run the tests: cannot copy the repo for the test workers: "
                             f"{repo}/calc.py: [Errno 28] No space left on device (and 1 more)")
