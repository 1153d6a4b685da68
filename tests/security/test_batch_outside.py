"""Issue 36, item 2: batch task ids never reach outside the working folder, and one batch at a
time holds a results file and a working folder (a lock that names its holder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codur.batch.runner import BatchLocked, BatchSettings, hold_batch_lock, run_batch
from codur.batch.tasks import BatchTask, read_tasks
from codur.batch.workcopy import prepare_workcopy

ROOT = Path(__file__).resolve().parents[2]
BAD_IDS = ["..", ".", "../victim2", "/abs/victim", "a/b", "a\\b", "nul\x00x", "../../etc"]


def _victims(tmp_path: Path) -> tuple[Path, Path, dict[Path, bytes]]:
    """A source repo, a victim folder beside the working folder, and the bytes of every file there."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.py").write_text("x = 1\n")
    victim = tmp_path / "victim2"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    (tmp_path / "tasks.jsonl").write_text("{}\n")
    return source, victim, {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}


def test_a_task_file_with_ids_that_climb_or_hold_a_separator_is_refused_line_by_line(tmp_path: Path) -> None:
    rows = [{"id": i, "repo": "src", "task": "fix"} for i in [*BAD_IDS, "ok-1.v2"]]
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tasks, errors = read_tasks(path)
    assert [t.id for t in tasks] == ["ok-1.v2"]
    assert [e.line for e in errors] == list(range(1, len(BAD_IDS) + 1))
    assert all("a task id is a plain name" in e.message for e in errors)


@pytest.mark.parametrize("bad", ["..", "../victim2", "/abs", "sub/../../victim2"])
def test_a_work_copy_is_never_made_outside_the_working_folder(tmp_path: Path, bad: str) -> None:
    source, victim, before = _victims(tmp_path)
    root = tmp_path / "results-work"
    task = BatchTask.model_construct(id=bad if bad != "/abs" else str(victim), repo=str(source), task="fix",
                                     commit=None, settings=None)  # as if validation were bypassed
    with pytest.raises(ValueError, match="plain name"):
        prepare_workcopy(task, root)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before  # nothing outside changed
    assert not any(root.iterdir())


def test_a_link_in_place_of_a_work_copy_is_removed_not_followed(tmp_path: Path) -> None:
    source, victim, _ = _victims(tmp_path)
    root = tmp_path / "work"
    root.mkdir()
    (root / "t1").symlink_to(victim)
    copy = prepare_workcopy(BatchTask(id="t1", repo=str(source), task="fix"), root)
    assert copy == root.resolve() / "t1" and not copy.is_symlink() and (copy / "a.py").is_file()
    assert (victim / "keep.txt").read_text() == "precious\n"


def test_the_batch_cli_refuses_a_results_file_another_batch_holds(tmp_path: Path) -> None:
    source, _, _ = _victims(tmp_path)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t1", "repo": str(source), "task": "fix", "fixers": ["mutation"]}) + "\n")
    out = tmp_path / "results.jsonl"
    holder = subprocess.Popen(  # another batch, in another process, holding the results file
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from codur.batch.runner import "
         "hold_batch_lock; hold_batch_lock(Path(sys.argv[1]), 'results.jsonl.lock', '--out'); print('held', "
         "flush=True); time.sleep(60)", str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        done = subprocess.run([sys.executable, "-m", "codur._entry", "batch", str(tasks), "--out", str(out)],
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 2, done.stderr
    assert f"results.jsonl is in use by another codur batch (pid {holder.pid} on" in done.stderr
    assert "give another --out" in done.stderr
    assert not out.exists() and not (tmp_path / "results-work" / "t1").exists()  # nothing ran, nothing copied


def test_run_batch_refuses_a_working_folder_another_batch_holds(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    held = hold_batch_lock(workdir, ".batch.lock", "--workdir")

    class NoPool:
        slots = 1

        def submit(self, task):  # pragma: no cover - must not be reached
            raise AssertionError("a task started while another batch holds the folder")

    try:
        with pytest.raises(BatchLocked, match=r"the working folder .* is in use by another codur batch \(pid \d+"):
            run_batch([BatchTask(id="t1", repo=str(tmp_path), task="fix")], _Store(), BatchSettings(workdir=workdir),
                      pool=NoPool())  # type: ignore[arg-type]
    finally:
        held.release()
    started = time.monotonic()
    again = hold_batch_lock(workdir, ".batch.lock", "--workdir")  # released: the next batch gets it at once
    again.release()
    assert time.monotonic() - started < 1


class _Store:
    def records(self) -> list[dict]:
        return []

    def append(self, record: dict) -> None:
        raise AssertionError("nothing may be stored")

    def close(self) -> None:
        pass


def test_a_line_that_is_not_utf8_is_named_and_skipped_the_rest_runs(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(json.dumps({"id": "a", "repo": "src", "task": "fix"}).encode() + b"\n"
                     + b'{"id": "b\xff", "repo": "src", "task": "fix"}\n'
                     + json.dumps({"id": "c", "repo": "src", "task": "fix"}).encode() + b"\n")
    tasks, errors = read_tasks(path)
    assert [t.id for t in tasks] == ["a", "c"]
    assert [(e.line, e.message) for e in errors] == [(2, "not UTF-8 text (byte 0xff at column 10)")]
