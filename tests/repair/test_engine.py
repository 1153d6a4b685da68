"""End-to-end repairs on tiny repositories in tmp_path: the main job with the mutation fixer
only (``codur repair``'s), and the mutation search's parts."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
import typer
from typer.testing import CliRunner

from codur.commands.repair import repair_command
from codur.core.contracts import PatchStatus
from codur.mutation import generate_mutants
from codur.mutation.mutants import Mutant
from codur.mutation.pairs import pairs
from codur.patch.contracts import PatchSettings, Queued, SearchEnd
from codur.validate.localize import localize_faults
from codur.validate.search import CandidateQueue
from codur.validate.session import RepairSession
from codur.validate.source import Edit

from .conftest import Rewrite, mutation_run, snapshot, write_repo

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


def kinds(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["event_type"] == kind]


def test_fixes_off_by_one_and_writes_the_patch(off_by_one_repo):
    events: list[dict] = []
    before = snapshot(off_by_one_repo)
    result = mutation_run(off_by_one_repo, repair_workers=2, events=events)
    assert result.ok, result.reason
    assert result.diff == EXPECTED_DIFF
    assert result.files_changed == ["calc.py"] and result.metadata.fixer == "mutation search"
    assert result.llm_calls == 0 and "search" not in result.metadata.stop
    assert kinds(events, "patch.localized")[0]["failing_tests"] == ["tests/test_calc.py::test_total"]
    assert kinds(events, "patch.found")[0]["label"] == "calc.py:3 replaced `len(xs) - 1` with `len(xs)`"
    assert "for i in range(len(xs)):" in (off_by_one_repo / "calc.py").read_text()
    after = snapshot(off_by_one_repo)
    assert {k for k in after if after[k] != before.get(k)} == {"calc.py"}
    assert set(after) == set(before)  # no bytecode, cache or temp files left behind
    tried = kinds(events, "patch.candidate")
    assert tried and tried[-1]["result"] == "plausible"
    assert kinds(events, "patch.done")[0]["tried"] == {"mutation": len(tried), "cloze": 0, "sampling": 0, "hybrid": 0}
    assert not [e for e in events if e["event_type"].startswith("repair.")]  # one event family: patch.*


def test_no_fix_found_says_the_search_was_exhausted_and_leaves_the_repo(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    before = snapshot(repo)
    events: list[dict] = []
    result = mutation_run(repo, repair_workers=2, events=events)
    assert (result.status.value, result.reason) == ("failed", "no_plausible_patch")
    search = result.metadata.stop["search"]
    tried = len(kinds(events, "patch.candidate"))
    assert search["stopped"] == "exhausted" and search["tried"] == tried > 0
    assert search["message"] == (f"gave up: search exhausted: none of the {search['mutants']} mutants passes, "
                                 "and there are no more")
    assert result.diff == "" and result.files_changed == []
    assert snapshot(repo) == before


def test_a_spent_mutant_budget_is_reported_as_budget(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    events: list[dict] = []
    result = mutation_run(repo, repair_workers=2, max_mutants=2, mutant_tiers=1, events=events)
    search = result.metadata.stop["search"]
    assert (search["stopped"], search["tried"], search["mutants"]) == ("budget", 2, 2)
    assert "mutant budget" in search["message"] and "max_mutants=2" in search["message"]
    assert kinds(events, "patch.mutants")[0]["count"] == 2
    assert [e["phase"] for e in kinds(events, "patch.phase")] == ["mutation"]


def test_with_time_left_the_next_tiers_try_the_mutants_the_budget_cut(tmp_path):
    """Tier k goes up to k × max_mutants, best first, skipping what an earlier tier judged."""
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    events: list[dict] = []
    result = mutation_run(repo, repair_workers=2, max_mutants=2, mutant_tiers=3, events=events)
    search = result.metadata.stop["search"]
    assert (search["stopped"], search["tried"], search["mutants"]) == ("budget", 6, 6), search
    phases = kinds(events, "patch.phase")
    assert [(e["phase"], e["candidates"]) for e in phases] == [
        ("mutation", 2), ("mutation (tier 2)", 2), ("mutation (tier 3)", 2)]
    labels = [e["label"] for e in kinds(events, "patch.candidate")]
    assert len(set(labels)) == 6  # no mutant judged twice
    alone = mutation_run(write_repo(tmp_path / "alone", UNFIXABLE), repair_workers=2, max_mutants=6, mutant_tiers=1,
                         events=(six := []))
    assert alone.metadata.stop["search"]["tried"] == 6
    assert sorted(e["label"] for e in kinds(six, "patch.candidate")) == sorted(labels)  # the same six, best first


def test_the_tiers_end_when_the_mutants_do(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    events: list[dict] = []
    result = mutation_run(repo, repair_workers=2, max_mutants=400, mutant_tiers=3, events=events)
    search = result.metadata.stop["search"]
    assert search["stopped"] == "exhausted" and search["tried"] == search["mutants"] < 400, search
    assert [e["phase"] for e in kinds(events, "patch.phase")] == ["mutation"]


def test_pairs_cut_by_max_pairs_are_reported_as_the_mutant_budget(tmp_path):
    """Two edited lines make hundreds of pairs; one allowed is a cut search, not an exhausted one."""
    repo = write_repo(tmp_path / "repo", {
        "area.py": "def area(w, h):\n    side = w + 1\n    return side * h - 1\n",
        "test_area.py": "from area import area\n\n\ndef test_area():\n    assert area(2, 3) == 'six'\n"})
    result = mutation_run(repo, repair_workers=2, max_pairs=1)
    search = result.metadata.stop["search"]
    assert (search["stopped"], search["spent"]) == ("budget", "mutants"), search
    assert "max_pairs=1" in search["message"] and "more exist" in search["message"]


def test_why_a_search_stopped():
    settings = PatchSettings(fixers=("mutation",), workers=1, time_box_s=10.0, samples=0, time_budget_s=60.0,
                             max_mutants=400, max_pairs=100, max_lines=80, sample_format="function",
                             memory_mb=None, mutant_timeout_s=5.0)
    end = SearchEnd.of(PatchStatus.BUDGET, settings, tried=7, queued=Queued(400))
    assert (end.stopped, end.spent) == ("budget", "time")
    assert end.message == "gave up: the time budget of 60 s ran out after 7 of 400 mutants"
    assert SearchEnd.of(PatchStatus.NOT_FOUND, settings, tried=400, queued=Queued(400)).spent == "mutants"
    assert SearchEnd.of(PatchStatus.NOT_FOUND, settings, tried=9, queued=Queued(9)).stopped == "exhausted"
    pairs_cut = SearchEnd.of(PatchStatus.NOT_FOUND, settings, tried=150, queued=Queued(150, 100))
    assert (pairs_cut.stopped, pairs_cut.spent) == ("budget", "mutants") and "more exist" in pairs_cut.message
    assert SearchEnd.of(PatchStatus.NOT_FOUND, settings, tried=149, queued=Queued(149, 99)).stopped == "exhausted"
    assert SearchEnd.of(PatchStatus.CANCELLED, settings, tried=3, queued=Queued(9)).stopped == "cancelled"
    tokens = SearchEnd.of(PatchStatus.BUDGET, settings, tried=3, queued=Queued(9), token_budget=True)
    assert tokens.spent == "tokens" and "token budget" in tokens.message
    assert tokens.as_dict()["message"] == tokens.message
    with pytest.raises(ValueError, match="patched"):
        SearchEnd.of(PatchStatus.PATCHED, settings, tried=1, queued=Queued(1))


def test_the_command_says_why_it_gave_up_from_the_result(tmp_path):
    """`codur repair`'s summary states why the search stopped, as the run's result says it
    (``result.json``'s ``metadata.stop.search``), not as rebuilt from events."""
    import json

    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    app = typer.Typer()
    app.command()(repair_command)
    result = CliRunner().invoke(app, ["--repo", str(repo), "--workers", "1", "--max-mutants", "1", "--tiers", "1"])
    assert result.exit_code == 1
    (run_dir,) = (repo / ".codur" / "runs").iterdir()
    search = json.loads((run_dir / "result.json").read_text())["metadata"]["stop"]["search"]
    assert search["stopped"] == "budget" and "mutant budget" in search["message"]
    assert f"search stopped: budget: {search['message']}" in result.output
    assert "1 mutants tried" in result.output


def test_the_command_says_an_exhausted_search(tmp_path):
    repo = write_repo(tmp_path / "repo", UNFIXABLE)
    app = typer.Typer()
    app.command()(repair_command)
    result = CliRunner().invoke(app, ["--repo", str(repo), "--workers", "2"])
    assert result.exit_code == 1
    assert "search stopped: exhausted: gave up: search exhausted: none of the" in result.output


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
    spread = [max(lines) - min(lines) for m in every if m.order == 2
              for lines in [[text.count("\n", 0, e.start) + 1 for e in m.edits]]]
    assert spread == sorted(spread, key=lambda d: d > 1) and spread[-1] == 2  # adjacent pairs, then function pairs
    capped, _ = generate_mutants(tmp_path, scores, max_pairs=3)
    assert sum(m.order == 2 for m in capped) == 3
    assert [m for m in capped if m.order == 1] == [m for m in every if m.order == 1]


def test_passing_suite_is_reported(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        "ok.py": "def one():\n    return 1\n",
        "test_ok.py": "from ok import one\n\n\ndef test_one():\n    assert one() == 1\n",
    })
    events: list[dict] = []
    result = mutation_run(repo, repair_workers=1, events=events)
    assert result.reason.startswith("no_fixer"), result.reason  # no failing test: nothing to search for
    assert result.diff == "" and not kinds(events, "patch.candidate")
    assert kinds(events, "tests.run")[0]["exit_code"] == 0


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
    loops, fix = Rewrite("tri.py", "n -= 1", "n += 1"), Rewrite("tri.py", "return n", "return s")
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
        if event["event_type"] == "patch.candidate":
            cancel.set()

    events: list[dict] = []
    result = mutation_run(repo, repair_workers=2, cancel=cancel, events=events, on_event=on_event)
    assert result.status.value == "cancelled"
    assert kinds(events, "patch.done")[0]["status"] == "cancelled"
    assert snapshot(repo) == before


def test_non_pytest_command_is_repaired_without_touching_the_driver(tmp_path):
    repo = write_repo(tmp_path / "repo", {
        "stats.py": "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n",
        "check.py": "from stats import mean\n\nassert mean([2, 4]) == 3, mean([2, 4])\n",
    })
    driver = (repo / "check.py").read_bytes()
    result = mutation_run(repo, test_command=f"{sys.executable} check.py", repair_workers=1)
    assert result.ok, result.reason
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
    result = mutation_run(repo, repair_workers=2)
    assert result.ok, result.reason
    assert result.files_changed == ["src/pricing/__init__.py"]


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
    events: list[dict] = []

    def on_event(event):
        if event["event_type"] == "patch.candidate":
            for pid in zygotes():
                os.kill(pid, signal.SIGKILL)

    result = mutation_run(repo, repair_workers=2, events=events, on_event=on_event)
    assert kinds(events, "patch.done")[0]["status"] == "error"
    assert result.reason.startswith("patch_error: the test runs failed"), result.reason
    assert "search" not in result.metadata.stop  # the search did not stop for want of a patch
    assert snapshot(repo) == before
