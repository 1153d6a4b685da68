"""The backfill beside a model call in flight, on real workers: while a (slow, scripted) call to a
model on this machine streams, background candidates run one at a time at SCHED_IDLE (or not at
all when the budget pauses them); once it ended they use every core at normal priority.

The model is the fault server's trickling stream, called through the embedded model's client
(DeadlineChatOpenAI with its server's threads, the real hook). Each candidate's failing test
writes its start and end time and its scheduling policy to a log in the scratch area (the one
folder a sandboxed test may write).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from codur.core import cpu
from codur.llm.deadline import DeadlineChatOpenAI
from codur.testing import confine
from codur.validate.search import CandidateQueue
from codur.validate.session import RepairSession

TEST = '''
import os
import time

from calc import double


def test_double():
    start = time.time()
    time.sleep(0.4)
    with open({log!r}, "a") as fh:
        fh.write(f"{{start}} {{time.time()}} {{os.sched_getscheduler(0)}}\\n")
    assert double(2) == 4
'''


@dataclass(frozen=True)
class Comment:
    """A candidate that changes nothing that matters (the failing test still fails)."""

    n: int
    file: str = "calc.py"
    probe: bool = False

    def apply(self, text: str) -> str:
        return f"{text}\n# candidate {self.n}\n"

    @property
    def label(self) -> str:
        return f"comment {self.n}"

    @property
    def provenance(self) -> dict:
        return {"source": "mutation"}


def _runs(log: Path) -> list[tuple[float, float, int]]:
    return [(float(a), float(b), int(p)) for a, b, p in (line.split() for line in log.read_text().splitlines())]


def _most_at_once(runs: list[tuple[float, float, int]]) -> int:
    return max(sum(1 for s, e, _ in runs if s <= start < e) for start, _, _ in runs)


def _search_beside_a_model_call(tmp_path: Path, fault_server, faults: ModuleType, budget: cpu.CpuBudget,
                                monkeypatch: pytest.MonkeyPatch, seconds: float = 4.0):
    """Search 14 background candidates, started while a model call streams for ``seconds``;
    returns (the runs the log saw, {the call's start and end (time.time()), the search
    thread's CPU seconds})."""
    monkeypatch.setattr(cpu, "_budget", budget)
    log = confine.scratch_root() / f"runs-{tmp_path.name}.log"
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TEST.format(log=str(log)))
    (tmp_path / "tests" / "conftest.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1]))\n")
    hung_up = threading.Event()
    fault_server.play(default=faults.trickle(["x"] * 8, seconds / 8, hung_up))
    model = DeadlineChatOpenAI(base_url=fault_server.base_url, api_key="local", model="fault", cpu_threads=2)
    window: dict[str, float] = {}

    def call() -> None:
        window["start"] = time.time()
        for _ in model.stream("write the function"):
            pass
        window["end"] = time.time()

    with RepairSession(tmp_path, workers=4, mutant_timeout_s=20) as session:
        session.original("calc.py")
        log.unlink(missing_ok=True)
        caller = threading.Thread(target=call)
        caller.start()
        while budget.model_threads_busy == 0:
            time.sleep(0.01)
        queue = CandidateQueue([((1, n), Comment(n)) for n in range(14)], closed=True)
        own = time.thread_time()
        outcome = session.search(queue, deadline=time.monotonic() + 60, cancel=threading.Event(),
                                 background=lambda key: True)
        window["search_cpu_s"] = time.thread_time() - own
        caller.join()
    assert outcome.tried == 14 and outcome.best is None
    return _runs(log), window


def test_backfill_runs_at_sched_idle_while_the_model_generates_then_on_every_core(
        tmp_path: Path, fault_server, faults: ModuleType, monkeypatch: pytest.MonkeyPatch):
    runs, window = _search_beside_a_model_call(tmp_path, fault_server, faults, cpu.CpuBudget(2, "idle"), monkeypatch)
    during = [r for r in runs if r[0] < window["end"]]
    after = [r for r in runs if r[0] > window["end"] + 0.3]
    assert during and after, (runs, window)
    assert {p for _, _, p in during} == {5}  # os.SCHED_IDLE
    assert _most_at_once(during) == 1  # the model's 2 threads hold both cores: one run, at idle
    assert {p for _, _, p in after} == {0}  # os.SCHED_OTHER once the call ended
    assert _most_at_once(after) == 2  # every core (2 here, not the 4 workers)


def test_a_paused_backfill_waits_for_the_model_call_to_end(
        tmp_path: Path, fault_server, faults: ModuleType, monkeypatch: pytest.MonkeyPatch):
    runs, window = _search_beside_a_model_call(tmp_path, fault_server, faults, cpu.CpuBudget(2, "pause"),
                                               monkeypatch, seconds=2.0)
    assert min(s for s, _, _ in runs) >= window["end"] - 0.2  # none started while the model generated
    assert window["search_cpu_s"] < 1.0  # the held search waited; it did not spin beside the model
    assert {p for _, _, p in runs} == {0} and _most_at_once(runs) == 2
