"""Issue 12, item 5: fault localization reads a source in the coding it declares (PEP 263)."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

from codur.testing.report import parse_report
from codur.validate.localize import localize_faults, score

from .conftest import write_repo
from .test_hanging import NEVER_ADVANCED

#: test_hanging's never-advanced counter in latin-1 (an é), declared on a new line 1: the
#: hanging ``while`` is line 5.
LATIN1 = {"scan.py": "# -*- coding: latin-1 -*-\n" + textwrap.dedent(NEVER_ADVANCED["scan.py"]).lstrip("\n").replace(
    "len(xs) - 1.", "len(xs) - 1 (the café's queue)."), "test_scan.py": NEVER_ADVANCED["test_scan.py"]}


def test_a_latin1_source_gets_its_hanging_loop_ranked_first(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {"test_scan.py": LATIN1["test_scan.py"]})
    (repo / "scan.py").write_bytes(LATIN1["scan.py"].encode("latin-1"))
    assert "café".encode("latin-1") in (repo / "scan.py").read_bytes()
    loc = localize_faults(repo, test_timeout_s=0.5, run_timeout_s=60)
    assert loc.failing == ["test_scan.py::test_run"]
    assert loc.suspicious[0][:2] == ("scan.py", 5)  # the `while` line


def test_an_undecodable_source_is_skipped_with_a_note(tmp_path: Path, caplog) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "spin.py").write_bytes(b"# coding: ascii\ndef spin():\n    while True:  # \xe9\n        pass\n")
    path = str(repo / "spin.py")
    raw = {"tests": {"t.py::test_spin": {"outcome": "failed", "duration": 0.5, "path": "", "timed_out": True,
                                         "frames": [[path, 4]], "hang": [[path, 4]]}},
           "lines": {path: {"3": ["t.py::test_spin"], "4": ["t.py::test_spin"]}}}
    with caplog.at_level(logging.WARNING, logger="codur.validate"):
        loc = score(repo, parse_report(raw))
    assert ("spin.py", 4) in loc.scores  # the frames still count
    assert "skips the loops of spin.py" in caplog.text
