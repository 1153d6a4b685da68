"""Issue 21, item 5: every test process codur starts has an address-space limit; a test that
allocates 10 GB fails fast, as a failing test with a MemoryError, and the trace says why."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codur import CodurConfig
from codur.sandbox.limits import default_test_memory_mb, machine_memory_mb
from codur.testing import command as testcmd
from codur.testing.forkserver import Runner
from codur.tools import ToolExecutor
from codur.validate.worker import Worker

GREEDY_TESTS = (
    "def test_greedy():\n"
    "    block = bytearray(10 * 2**30)  # 10 GB\n"
    "    assert len(block) > 0\n\n\n"
    "def test_modest():\n"
    "    assert len(bytearray(2**20)) == 2**20\n"
)
LIMIT_MB = 1024


@pytest.fixture
def greedy_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "greedy"
    repo.mkdir()
    (repo / "test_greedy.py").write_text(GREEDY_TESTS)
    return repo


@pytest.mark.parametrize("sandbox", ["bwrap", "off"])
def test_a_test_allocating_10_gb_fails_fast_as_a_failing_test(sandbox: str, greedy_repo: Path, monkeypatch) -> None:
    if sandbox == "off":
        monkeypatch.setenv("CODUR_SANDBOX", "off")
    events: list[dict] = []
    ex = ToolExecutor(greedy_repo, on_event=events.append)
    ex.ctx.memory_mb = LIMIT_MB
    start = time.monotonic()
    out = ex.execute("run_pytest", {}).output
    assert time.monotonic() - start < 30  # touching 10 GB would take minutes, or the OOM killer
    assert "1 passed, 1 failed" in out and "test_greedy.py::test_greedy" in out.split("failed:")[1], out
    assert "MemoryError" in out and f"{LIMIT_MB} MiB" in out
    assert [e["tests"] for e in events if e["event_type"] == "tests.memory_limit"] == [["test_greedy.py::test_greedy"]]


def test_a_repair_run_past_its_limit_is_a_failed_run(greedy_repo: Path) -> None:
    command = testcmd.resolve(greedy_repo, None)
    runner = Runner(command.python, greedy_repo)
    try:
        with Worker(greedy_repo, command, runner=runner) as worker:
            worker.memory_mb = LIMIT_MB
            start = time.monotonic()
            greedy = worker.run(["test_greedy.py::test_greedy", "-p", "no:cacheprovider"], 60)
            assert greedy.status == "failed" and time.monotonic() - start < 30
            assert worker.run(["test_greedy.py::test_modest", "-p", "no:cacheprovider"], 60).status == "passed"
    finally:
        runner.close()


def test_the_default_limit_shares_half_the_memory_among_the_workers() -> None:
    total = machine_memory_mb()
    assert total is not None
    assert default_test_memory_mb(2) == max(1024, total // 2 // 2)
    assert CodurConfig(repair_workers=4).test_memory_mb == default_test_memory_mb(4)
    assert CodurConfig(test_memory_mb=0).test_memory_mb == 0  # no limit
