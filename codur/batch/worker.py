"""One batch task, run as a normal codur run in a process of its own.

:func:`execute_task` is what a pool calls (a thread of the local pool, a Ray task on a
node): it starts ``python -m codur.batch.worker`` through codur's one process runner
(:func:`codur.sandbox.process.run_process`: own process group, killed on cancel, dies with
its parent) and returns the result record the child wrote. The child (:func:`main`)
prepares the task's working copy (:func:`codur.batch.workcopy.prepare_workcopy`), loads the
copy's settings with the task's overrides (``settings``, ``test_command``, ``fixers``) and
calls :func:`codur.engine.runner.run`, so the task gets what every run gets: its run folder,
trace, diff and result under ``<copy>/.codur/runs/<run_id>/``.

A record is the RunResult's fields (``run_id``, ``status``, ``reason``, ``output_text``,
``turns``, ``duration_s``, ``metadata`` without the diff) plus ``id``, ``task``, ``repo``,
``solved``, ``fixer``, ``tokens``, ``cost_usd`` (USD), ``worker`` (``host:pid``),
``workcopy`` and ``diff``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codur.batch.tasks import BatchTask

#: Seconds a task's process may outlive its own ``timeout_s`` (start-up, tests, writing).
GRACE_S = 300.0
#: The outer limit of a task without ``timeout_s``, seconds.
NO_TIMEOUT_S = 24 * 3600.0


class TaskLost(RuntimeError):
    """A task's process ended without writing a result (killed, crashed, cancelled)."""


@dataclass(frozen=True)
class Workspace:
    """Where a batch's tasks run, and the name their runs are recorded with.

    Attributes:
        root: the folder that holds the working copies (``<root>/<id>``).
        in_place: a folder repo is worked on where it is, not copied.
        batch: the batch's name, recorded with each task's run (``codur_runs.batch`` in a database).
    """

    root: Path
    in_place: bool = False
    batch: str = ""


def source_path() -> Path | None:
    """The folder holding the ``codur`` package when codur runs from a source checkout
    (it has a ``pyproject.toml``), so a child process imports this same code; None for an
    installed codur, which every interpreter of its environment finds anyway."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() else None


def worker_env() -> dict[str, str]:
    """The task process's environment: ours whole (the ``CODUR_*`` settings, the endpoint's
    key; the run's sandbox filters what reaches the repo's code), with :func:`source_path`
    first on ``PYTHONPATH``."""
    env = dict(os.environ)
    source = source_path()
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [env.get("PYTHONPATH")])])
    return env


def execute_task(task: dict[str, Any], workspace: Workspace, cancel: threading.Event | None = None,
                 env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one task in a new ``python -m codur.batch.worker`` process and return its record.

    Args:
        task: a :class:`BatchTask` as a dict (``model_dump()``), so a Ray task can carry it.
        workspace: where the working copy goes, and the batch's name for the run.
        cancel: set it to kill the process (SIGTERM, then SIGKILL after a second).
        env: variables added to the process's environment (:func:`worker_env`).

    Raises:
        TaskLost: the process ended without a result (its exit code and the end of its stderr
            are in the message).
    """
    from codur.sandbox.process import run_process

    limit = (task.get("timeout_s") or NO_TIMEOUT_S) + GRACE_S
    fd, out = tempfile.mkstemp(prefix="codur-batch-", suffix=".json")
    os.close(fd)
    try:
        root = Path(workspace.root)
        root.mkdir(parents=True, exist_ok=True)
        job = json.dumps({"task": task, "root": str(root), "in_place": workspace.in_place, "out": out,
                          "batch": workspace.batch})
        done = run_process([sys.executable, "-m", "codur.batch.worker"], cwd=root, timeout_s=limit,
                           stdin=job, env={**worker_env(), **(env or {})}, cancel=cancel or threading.Event())
        text = Path(out).read_text(encoding="utf-8")
        if not text:
            why = ("cancelled" if done.cancelled else f"timed out after {limit:.0f} s" if done.timed_out
                   else f"exit code {done.exit_code}")
            raise TaskLost(f"task {task.get('id')!r}: no result ({why}): {done.stderr.strip()[-500:]}")
        return json.loads(text)
    finally:
        Path(out).unlink(missing_ok=True)


def run_task(task: BatchTask, root: Path, *, in_place: bool = False, batch: str = "") -> dict[str, Any]:
    """Run ``task`` in this process and return its record (see the module's docstring).
    The run's request metadata names the task (``batch_task``) and the batch (``batch``).

    A task that cannot start (a missing folder, a failed clone, a setting that does not
    parse, a repo the request refuses) gives a record with status ``error`` and the reason,
    not an exception.
    """
    from pydantic import ValidationError

    from codur.batch.workcopy import prepare_workcopy
    from codur.config import ConfigError, load_config
    from codur.engine.contracts import RunRequest
    from codur.engine.runner import run

    started = time.monotonic()
    copy: Path | None = None
    try:
        copy = prepare_workcopy(task, root, in_place=in_place)
        config = load_config(copy, **(task.settings or {}), test_command=task.test_command, fixers=task.fixers)
        request = RunRequest(task=task.task, repo=copy, timeout_s=task.timeout_s, max_turns=task.max_turns,
                             metadata={"batch_task": task.id, **({"batch": batch} if batch else {})})
    except (OSError, RuntimeError, ValueError, ConfigError, ValidationError) as exc:  # ValueError: an id out of root
        return _record(task, copy, {"run_id": "", "status": "error", "reason": f"task_setup_failed: {exc}",
                                    "output_text": "", "turns": 0,
                                    "duration_s": round(time.monotonic() - started, 3), "metadata": {}})
    return _record(task, copy, run(request, config=config).model_dump(mode="json"))


def _record(task: BatchTask, copy: Path | None, result: dict[str, Any]) -> dict[str, Any]:
    meta = dict(result.pop("metadata") or {})
    diff = meta.pop("diff", "")
    usage = meta.get("usage") or {}
    return {"id": task.id, "task": task.task, "repo": task.repo, **result,
            "solved": result["status"] == "success", "fixer": meta.get("fixer", ""),
            "tokens": int(usage.get("total_tokens", 0)), "cost_usd": float(usage.get("cost_usd", 0.0)),
            "worker": f"{socket.gethostname()}:{os.getpid()}", "workcopy": str(copy) if copy else None,
            "diff": diff, "metadata": meta}


def main() -> None:
    """``python -m codur.batch.worker``: read a job (JSON: task, root, in_place, out, batch) on stdin,
    run it, write the record to ``out``."""
    from codur.core.files import atomic_write_bytes

    job = json.loads(sys.stdin.read())
    record = run_task(BatchTask.model_validate(job["task"]), Path(job["root"]), in_place=bool(job["in_place"]),
                      batch=str(job.get("batch") or ""))
    atomic_write_bytes(Path(job["out"]), json.dumps(record, ensure_ascii=False, default=str).encode())


if __name__ == "__main__":
    main()
