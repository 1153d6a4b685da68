"""Issue 12, item 5: fault localization reads a source in the coding it declares (PEP 263)."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

from codur.repair import localize_faults
from codur.repair.localize import score

#: latin-1 bytes (the é), declared on line 1; ``i`` never advances: line 5's ``while`` hangs.
LATIN1_SCAN = textwrap.dedent('''\
    # -*- coding: latin-1 -*-
    def first_gap(xs):
        """Index of the first i with xs[i + 1] != xs[i] + 1 (the café's queue)."""
        i = 0
        while i < len(xs) - 1:
            if xs[i + 1] != xs[i] + 1:
                return i
            i += 0
        return len(xs) - 1
    ''').encode("latin-1")

TESTS = textwrap.dedent('''\
    from scan import first_gap


    def test_single():
        assert first_gap([5]) == 0


    def test_run():
        assert first_gap([1, 2, 3, 7]) == 2
    ''')


def test_a_latin1_source_gets_its_hanging_loop_ranked_first(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "scan.py").write_bytes(LATIN1_SCAN)
    (repo / "test_scan.py").write_text(TESTS)
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
    with caplog.at_level(logging.WARNING, logger="codur.repair"):
        loc = score(repo, raw)
    assert ("spin.py", 4) in loc.scores  # the frames still count
    assert "skips the loops of spin.py" in caplog.text
