"""Issue 38 (seed 004: "all tool calls must flow through ToolExecutor"): the repo's own tests run
through the ToolExecutor's test tool, so the tool policy read_only, the sandbox and the change
journal hold for them too. A repo whose test writes into the repo stays byte-identical under
read_only, with bubblewrap (the repo mounted read-only) and without it (the change put back)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, run
from codur.engine import MockProvider
from codur.sandbox.bwrap import bwrap_argv, bwrap_problem
from codur.tools import ToolExecutor, ToolSettings

BWRAP = bwrap_problem() is None
CALC = "def add(a, b):\n    return a - b\n"
# a test that writes into the repo (a new file, and over a tracked one) and a failing test
WRITER = (
    "from pathlib import Path\n\nfrom calc import add\n\nROOT = Path(__file__).resolve().parents[1]\n\n\n"
    "def test_writes_into_the_repo():\n"
    "    (ROOT / 'written.txt').write_text('left by a test')\n"
    "    (ROOT / 'data.txt').write_text('overwritten by a test')\n\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n"
)


@pytest.fixture
def writer_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "writer"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text(CALC)
    (repo / "data.txt").write_text("the user's data\n")
    (repo / "tests" / "test_calc.py").write_text(WRITER)
    return repo


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but codur's own folder (the run's trace and result)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".codur" not in p.relative_to(root).parts}


def test_read_only_mounts_the_repo_read_only_in_bwrap(tmp_path: Path) -> None:
    argv = bwrap_argv(["true"], root=tmp_path, cwd=tmp_path, read_only_root=True)
    assert ["--ro-bind", str(tmp_path), str(tmp_path)] == argv[argv.index(str(tmp_path)) - 1:][:3]
    assert "--bind" not in argv[:argv.index("--")]
    writable = bwrap_argv(["true"], root=tmp_path, cwd=tmp_path)
    assert ["--bind", str(tmp_path), str(tmp_path)] == writable[writable.index(str(tmp_path)) - 1:][:3]


def test_the_test_tool_under_read_only_leaves_the_repo_byte_identical(mode: str, writer_repo: Path) -> None:
    before = tree(writer_repo)
    events: list[dict] = []
    tools = ToolExecutor(writer_repo, ToolSettings(policy="read_only", timeout_s=120), on_event=events.append)
    report = tools.run_tests(caller="observe")
    assert "tests/test_calc.py::test_add" in report.failed
    assert tree(writer_repo) == before
    assert tools.journal.changed_files == []
    if mode == "bwrap":  # the write itself failed: the repo is mounted read-only
        assert "Read-only file system" in report.tracebacks["tests/test_calc.py::test_writes_into_the_repo"]
    else:  # it wrote, and the change was put back at once
        changed = next(e for e in events if e["event_type"] == "tests.changed_files")
        assert changed["restored"] is True
        assert {c["path"] for c in changed["changes"]} == {"written.txt", "data.txt"}
    call = next(e for e in events if e["event_type"] == "tool.call")
    assert (call["tool"], call["args"]["caller"], call["ok"]) == ("run_pytest", "observe", True)


def test_the_test_tool_under_auto_journals_what_the_tests_wrote(mode: str, writer_repo: Path) -> None:
    """Without bubblewrap the suite writes the repo and the journal keeps the originals; under it
    (issue 52) the suite writes a copy-on-write layer that is reported and dropped."""
    events: list[dict] = []
    tools = ToolExecutor(writer_repo, ToolSettings(timeout_s=120), on_event=events.append)
    report = tools.run_tests(caller="verify")
    assert "tests/test_calc.py::test_writes_into_the_repo" in report.passed
    if mode == "bwrap":
        assert not (writer_repo / "written.txt").exists() and tools.journal.changed_files == []
        assert (writer_repo / "data.txt").read_text() == "the user's data\n"
        changed = next(e for e in events if e["event_type"] == "tests.changed_files")
        assert {(c["path"], c["change"]) for c in changed["changes"]} == {("written.txt", "created"),
                                                                         ("data.txt", "modified")}
        return
    assert (writer_repo / "written.txt").read_text() == "left by a test"
    assert sorted(tools.journal.changed_files) == ["data.txt", "written.txt"]
    tools.journal.restore()  # the journal is the way back
    assert not (writer_repo / "written.txt").exists()
    assert (writer_repo / "data.txt").read_text() == "the user's data\n"


def test_a_read_only_run_of_the_engine_leaves_a_writing_repo_byte_identical(mode: str, writer_repo: Path) -> None:
    """observe runs the repo's tests, then a fix under read_only ends with a proposal
    (``read_only_proposal``); the tests may not write the repo (``keep_failed``: no revert of
    a failed run hides a write)."""
    before = tree(writer_repo)
    config = CodurConfig(tool_policy="read_only", critic=False, repair=False, max_turns=1, retry_base_delay_s=0,
                         keep_failed=True)
    result = run(RunRequest(input="fix the failing test", repo=writer_repo),
                 models=MockProvider(["I looked at calc.py; add subtracts."]), config=config)
    assert (result.status.value, result.reason) == ("success", "read_only_proposal")
    assert tree(writer_repo) == before
    events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    callers = [e["args"]["caller"] for e in events if e["event_type"] == "tool.call" and e["tool"] == "run_pytest"]
    assert callers == ["observe"]


def test_candidate_workers_take_the_runs_test_policy(mode: str, writer_repo: Path) -> None:
    """Repair's workers run on private copies: the run's policy (cancel, read_only) holds there too."""
    import threading

    from codur.testing import command as testcmd
    from codur.tools.executor import TestPolicy
    from codur.validate.worker import Worker

    before = tree(writer_repo)
    cancel = threading.Event()
    tools = ToolExecutor(writer_repo, ToolSettings(policy="read_only"), cancel=cancel)
    assert tools.test_policy() == TestPolicy(read_only=True, cancel=cancel, memory_mb=None)
    with Worker(writer_repo, testcmd.resolve(writer_repo), 0) as worker:
        worker.policy = tools.test_policy()
        if mode == "bwrap":  # confined: the copy runs, the repo stays as it was
            assert worker.run(["-q", "-p", "no:cacheprovider"], 120).status == "failed"  # test_add fails
            assert (worker.root / "written.txt").is_file() and tree(writer_repo) == before
        else:  # read_only without the sandbox: no candidate run starts
            with pytest.raises(RuntimeError, match="read_only and bubblewrap does not work"):
                worker.run(["-q"], 120)
        worker.policy = TestPolicy(cancel=cancel)
        cancel.set()
        assert worker.run(["-q"], 120).status == "aborted"  # the run is cancelled: nothing starts
