"""End-to-end repairs on tiny repositories in tmp_path."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import typer
from typer.testing import CliRunner

from codur.commands.repair import repair_command
from codur.repair import generate_mutants, localize_faults, repair
from codur.repair.engine import gave_up
from codur.repair.mutants import Mutant, pairs
from codur.repair.search import CandidateQueue
from codur.repair.session import RepairSession
from codur.repair.source import Edit

from .conftest import snapshot, write_repo

#: No single edit turns this into the expected greeting.
UNFIXABLE = {
    "greet.py": "def greet(name):\n    return 'hello ' + name[1:]\n",
    "test_greet.py": "from greet import greet\n\n\ndef test_greet():\n"
                     "    assert greet('bob') == 'Hello, Bob and friends!'\n",
}

EXPECTED_DIFF = """\
--- a/calc.py
+++ b/calc.py
@@ -1,6 +1,6 @@
 def total(xs):
     s = 0
-    for i in range(len(xs) - 1):
+    for i in range(len(xs)):
         s += xs[i]
     return s
""" + " \n"


def test_fixes_off_by_one_and_writes_the_patch(off_by_one_repo):
    events = []
    before = snapshot(off_by_one_repo)
    result = repair(off_by_one_repo, workers=2, on_event=events.append)
    assert result.status == "patched", result.message
    assert result.diff == EXPECTED_DIFF
    assert result.files_changed == ["calc.py"]
    assert result.failing_tests == ["tests/test_calc.py::test_total"]
    assert result.patch_description == "calc.py:3 replaced `len(xs) - 1` with `len(xs)`"
    assert "for i in range(len(xs)):" in (off_by_one_repo / "calc.py").read_text()
    after = snapshot(off_by_one_repo)
    assert {k for k in after if after[k] != before.get(k)} == {"calc.py"}
    assert set(after) == set(before)  # no bytecode, cache or temp files left behind
    names = [e["event_type"] for e in events]
    assert names[0] == "repair.start" and names[-1] == "repair.done"
    assert "repair.localized" in names
    mutant_events = [e for e in events if e["event_type"] == "repair.mutant"]
    assert len(mutant_events) == result.mutants_tried
    assert mutant_events[-1]["result"] == "plausible" or any(
        e["result"] == "plausible" for e in mutant_events)


def test_dry_run_leaves_the_repo_untouched(off_by_one_repo):
    before = snapshot(off_by_one_repo)
    result = repair(off_by_one_repo, workers=1, apply=False)
    assert result.status == "patched"
    assert result.diff == EXPECTED_DIFF
    assert snapshot(off_by_one_repo) == before


def test_no_fix_found_leaves_the_repo_untouched(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    before = snapshot(repo)
    result = repair(repo, workers=2)
    assert result.status == "not_found"
    assert result.stopped == "exhausted" and "exhausted" in result.message
    assert result.diff == "" and result.files_changed == []
    assert result.mutants_tried > 0
    assert snapshot(repo) == before


def test_a_spent_mutant_budget_is_reported_as_budget(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    events = []
    result = repair(repo, workers=2, max_mutants=2, on_event=events.append)
    assert result.status == "not_found"
    assert result.stopped == "budget" and "mutant budget" in result.message
    assert result.mutants_tried == 2
    counts = next(e for e in events if e["event_type"] == "repair.mutants")
    assert counts["count"] == 2 and counts["over_budget"]
    assert events[-1]["stopped"] == "budget"


def test_give_up_reasons():
    args = {"time_budget_s": 60.0, "max_mutants": 400, "max_pairs": 100}
    assert gave_up("budget", False, 7, 400, **args) == (
        "budget", "gave up: the time budget of 60 s ran out after 7 of 400 mutants")
    assert gave_up("exhausted", True, 400, 400, **args)[0] == "budget"
    assert gave_up("exhausted", False, 9, 9, **args)[0] == "exhausted"
    assert gave_up("cancelled", False, 3, 9, **args)[0] == "cancelled"


def test_the_command_says_why_it_gave_up(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    app = typer.Typer()
    app.command()(repair_command)
    result = CliRunner().invoke(app, ["--repo", str(repo), "--workers", "1", "--max-mutants", "1"])
    assert result.exit_code == 1
    assert "search stopped: budget" in result.output
    assert "mutant budget" in result.output


def _single(line: int, start: int, prior: float = 0.5) -> Mutant:
    return Mutant("m.py", line, "op", (Edit(start, start + 1, "y"),), f"@{line}:{start}", 1.0, prior, ("m.py", line))


def test_pairs_join_only_edits_on_the_same_or_adjacent_lines():
    singles = [_single(1, 0), _single(1, 2), _single(2, 10, 0.9), _single(4, 30), _single(4, 30)]
    found = pairs(singles)
    assert all(m.order == 2 for m in found)
    assert sorted(m.description for m in found) == [
        "@1:0; line 1: @1:2", "@1:0; line 2: @2:10", "@1:2; line 2: @2:10"]  # overlapping edits never pair
    assert [m.prior for m in found] == sorted((m.prior for m in found), reverse=True)  # best rank first


def test_pair_budget_caps_the_second_order_mutants(tmp_path):
    text = "def f(a, b):\n    x = a + 1\n    y = b - 2\n    return x * y\n"
    (tmp_path / "m.py").write_text(text)
    scores = {("m.py", 2): 1.0, ("m.py", 3): 0.9, ("m.py", 4): 0.8}
    every, _ = generate_mutants(tmp_path, scores, max_pairs=10_000)
    assert sum(m.order == 2 for m in every) > 3
    for m in (m for m in every if m.order == 2):
        lines = [text.count("\n", 0, e.start) + 1 for e in m.edits]
        assert max(lines) - min(lines) <= 1
    capped, _ = generate_mutants(tmp_path, scores, max_pairs=3)
    assert sum(m.order == 2 for m in capped) == 3
    assert [m for m in capped if m.order == 1] == [m for m in every if m.order == 1]


def test_passing_suite_is_reported(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        "ok.py": "def one():\n    return 1\n",
        "test_ok.py": "from ok import one\n\n\ndef test_one():\n    assert one() == 1\n",
    })
    result = repair(repo, workers=1)
    assert result.status == "no_failing_tests"
    assert result.mutants_tried == 0


@dataclass(frozen=True)
class _Rewrite:
    """A hand-written candidate: ``old`` replaced with ``new`` in ``file``."""

    file: str
    old: str
    new: str
    probe = False

    def apply(self, text: str) -> str:
        return text.replace(self.old, self.new)


def test_looping_candidate_is_stopped_and_search_goes_on(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        "tri.py": '''
            def triangle(n):
                s = 0
                while n > 0:
                    s += n
                    n -= 1
                return n
            ''',
        "test_tri.py": '''
            from tri import triangle


            def test_three():
                assert triangle(3) == 6


            def test_four():
                assert triangle(4) == 10
            ''',
    })
    loops, fix = _Rewrite("tri.py", "n -= 1", "n += 1"), _Rewrite("tri.py", "return n", "return s")
    results = []
    with RepairSession(repo, workers=2, mutant_timeout_s=3.0) as session:
        session.original("tri.py")
        outcome = session.search(CandidateQueue.ranked([loops, fix]), deadline=time.monotonic() + 60,
                                 cancel=threading.Event(), on_result=lambda k, c, e: results.append((c, e.status)))
    assert (loops, "timeout") in results
    assert outcome.best is fix and outcome.stopped == "found"


def test_tests_are_never_mutated(off_by_one_repo):
    loc = localize_faults(off_by_one_repo)
    assert loc.scores and all(not f.startswith("tests/") for f, _ in loc.scores)
    mutants, _ = generate_mutants(off_by_one_repo, {**loc.scores, ("tests/test_calc.py", 5): 1.0})
    assert {m.file for m in mutants} == {"calc.py"}


def test_cancel_event_stops_the_search(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    before = snapshot(repo)
    cancel = threading.Event()

    def on_event(event):
        if event["event_type"] == "repair.mutant":
            cancel.set()

    result = repair(repo, workers=2, cancel=cancel, on_event=on_event)
    assert result.status == "cancelled" and result.stopped == "cancelled"
    assert snapshot(repo) == before


def test_bad_repo_raises(tmp_path):
    import pytest

    with pytest.raises(NotADirectoryError):
        repair(tmp_path / "missing")


def test_keyboard_interrupt_cleans_up(tmp_path, monkeypatch):
    import tempfile

    import pytest

    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    before = snapshot(repo)
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))

    def on_event(event):
        if event["event_type"] == "repair.mutant":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        repair(repo, workers=2, on_event=on_event)
    assert snapshot(repo) == before
    assert list(private_tmp.iterdir()) == []  # worker copies and temp files removed


def test_non_pytest_command_is_repaired_without_touching_the_driver(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        "stats.py": "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n",
        "check.py": "from stats import mean\n\nassert mean([2, 4]) == 3, mean([2, 4])\n",
    })
    driver = (repo / "check.py").read_bytes()
    result = repair(repo, test_cmd=["python", "check.py"], workers=1)
    assert result.status == "patched", result.message
    assert result.files_changed == ["stats.py"]
    assert (repo / "check.py").read_bytes() == driver
    assert subprocess.run([sys.executable, "check.py"], cwd=repo, check=False).returncode == 0


def test_src_layout_copy_shadows_the_installed_original(tmp_path, monkeypatch):
    # PYTHONPATH points at the original src/, as an editable install would: the mutants,
    # written in the workers' copies, must still be the code the tests import.
    repo = write_repo(tmp_path / "repo", {
        "src/pricing/__init__.py": "def net(gross, rate):\n    return gross * (1 + rate)\n",
        "tests/test_pricing.py": "from pricing import net\n\n\ndef test_net():\n"
                                 "    assert net(120, 0.2) == 100\n",
    })
    monkeypatch.setenv("PYTHONPATH", str(repo / "src"))
    result = repair(repo, workers=2, apply=False)
    assert result.status == "patched", result.message
    assert result.files_changed == ["src/pricing/__init__.py"]


def test_repo_without_tests_says_so(tmp_path):
    repo = write_repo(tmp_path / "repo", {"m.py": "X = 1\n"})
    result = repair(repo, workers=1)
    assert result.status == "no_failing_tests"
    assert "no tests found" in result.message


def test_runner_dying_mid_search_is_an_error_status(tmp_path):
    import os
    import signal
    from pathlib import Path

    def zygotes():
        for proc in Path("/proc").iterdir():
            try:
                cmd = (proc / "cmdline").read_bytes()
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == os.getpid() and b"codur_repair_zygote" in cmd:
                yield int(proc.name)

    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    before = snapshot(repo)

    def on_event(event):
        if event["event_type"] == "repair.mutant":
            for pid in zygotes():
                os.kill(pid, signal.SIGKILL)

    result = repair(repo, workers=2, on_event=on_event)
    assert result.status == "error"
    assert snapshot(repo) == before


def test_an_applied_repair_is_a_run_of_its_own_that_codur_undo_puts_back(off_by_one_repo):
    """``repair(apply=True)`` writes through the tools' journaled write: its run folder holds the
    change journal (the original, the manifest, the diff) and ``codur undo`` restores the file."""
    from codur.commands.app import app as codur_app

    before = snapshot(off_by_one_repo)
    result = repair(off_by_one_repo, workers=2)
    assert result.status == "patched" and result.run_id, result.message
    assert "for i in range(len(xs)):" in (off_by_one_repo / "calc.py").read_text()
    run_dir = off_by_one_repo / ".codur" / "runs" / result.run_id
    assert "calc.py" in (run_dir / "journal.json").read_text()
    assert (run_dir / "diff.patch").read_text() == EXPECTED_DIFF
    assert (off_by_one_repo / ".codur" / ".gitignore").read_text() == "*\n"
    undone = CliRunner().invoke(codur_app, ["undo", result.run_id, "--repo", str(off_by_one_repo)])
    assert undone.exit_code == 0, undone.output
    assert snapshot(off_by_one_repo) == before


def test_a_dry_run_repair_leaves_no_run_folder(off_by_one_repo):
    result = repair(off_by_one_repo, workers=1, apply=False)
    assert result.status == "patched" and result.run_id == ""
    assert not (off_by_one_repo / ".codur" / "runs").exists()
