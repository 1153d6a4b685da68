"""The runs a repo has kept: ``<repo>/.codur/runs/<run_id>/``, read back for listing and lookup.

A run folder holds ``trace.jsonl`` (first event ``run.start``: task, repo, run_dir; last
``run.end``), ``result.json`` (the RunResult, written last), ``diff.patch`` and
``originals/`` (the change journal). A folder without ``result.json`` is a run that
was interrupted (killed, or its machine went down) before writing it up, or one still
running (it holds the repo's lock).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


class RunNotFound(LookupError):
    """No run, or more than one, matches the id given; the message is one line."""


@dataclass
class RunInfo:
    """One past run as its folder tells it.

    ``started`` is the run.start time (UTC); ``tokens``, ``cost_usd`` (USD) and ``seconds``
    are None when the run left no result.json.
    """

    run_id: str
    run_dir: Path
    started: datetime | None = None
    task: str = ""
    status: str = "interrupted"
    reason: str = ""
    files_changed: list[str] = field(default_factory=list)
    tokens: int | None = None
    cost_usd: float | None = None
    seconds: float | None = None
    fixer: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    answer: str = field(default="", repr=False)  # the run's last words (a question's answer); not listed

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the fields, ``started`` as ISO 8601, ``run_dir`` as a string, then ``extra``
        (a database's run: ``repo``, ``host``, ``resumable``; an undone run: ``undone``, the time,
        and ``status_before_undo``)."""
        return {"run_id": self.run_id, "started": self.started.isoformat() if self.started else None,
                "task": self.task, "status": self.status, "reason": self.reason,
                "files_changed": self.files_changed, "tokens": self.tokens, "cost_usd": self.cost_usd,
                "seconds": self.seconds, "fixer": self.fixer, "run_dir": str(self.run_dir), **self.extra}


def runs_dir(repo: Path) -> Path:
    """``<repo>/.codur/runs``."""
    return Path(repo) / ".codur" / "runs"


def event_type(event: dict) -> str:
    """An event's type: ``event_type``, or ``event`` in traces written before it was renamed."""
    return str(event.get("event_type") or event.get("event") or "")


def read_events(trace: Path) -> list[dict]:
    """The events of a ``trace.jsonl``; a torn or garbled line (a crash mid-write) is skipped."""
    events = []
    try:
        lines = trace.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def read_run(run_dir: Path) -> RunInfo:
    """A RunInfo from ``run_dir``: result.json's figures (top-level or, after the engine
    contract, under ``metadata``), the task and start time from the trace's run.start."""
    info = RunInfo(run_id=run_dir.name, run_dir=run_dir)
    start = _first_event(run_dir / "trace.jsonl")
    if start and event_type(start) == "run.start":
        info.task = str(start.get("task") or start.get("input") or "")
        if isinstance(start.get("ts"), int | float):
            info.started = datetime.fromtimestamp(start["ts"], UTC)
    if info.started is None:
        with contextlib.suppress(ValueError):
            info.started = datetime.strptime(run_dir.name[:15], "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    try:
        result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        result = None
    if not isinstance(result, dict):
        info.files_changed = sorted(_journal_index(run_dir))
        return info
    return _undone(_with_result(info, result), run_dir)


def _undone(info: RunInfo, run_dir: Path) -> RunInfo:
    """``info`` as ``codur undo`` left it: status ``undone``, ``extra`` with ``undone`` (when, UTC
    ISO 8601) and ``status_before_undo``. A failed run's own revert at its end is no undo."""
    try:
        record = json.loads((run_dir / "undone.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return info
    if not isinstance(record, dict) or "run_ended" in record:
        return info
    info.extra = {**info.extra, "undone": record.get("undone_at"), "status_before_undo": info.status}
    info.status = "undone"
    return info


def _with_result(info: RunInfo, result: dict) -> RunInfo:
    """``info`` with the figures of ``result`` (a RunResult as JSON data, old or new layout)."""
    meta = result.get("metadata") if isinstance(result.get("metadata"), dict) else {}
    usage = meta.get("usage") if isinstance(meta.get("usage"), dict) else {}
    timings = meta.get("timings") if isinstance(meta.get("timings"), dict) else {}
    info.status = str(result.get("status") or "unknown")
    info.reason = str(result.get("reason") or "")
    info.files_changed = list(result.get("files_changed") or meta.get("files_changed") or [])
    info.tokens = _first(result.get("tokens"), usage.get("total_tokens"))
    info.cost_usd = _first(result.get("cost_usd"), usage.get("cost_usd"))
    info.seconds = _first(result.get("duration_s"), timings.get("total_s"))
    info.fixer = str(meta.get("fixer") or "")
    info.answer = str(result.get("output_text") or "")
    if not info.task:
        info.task = str(result.get("task") or result.get("input") or "")
    return info


def _first(*values: Any) -> Any:
    return next((v for v in values if isinstance(v, int | float) and not isinstance(v, bool)), None)


def _first_event(trace: Path) -> dict | None:
    try:
        with open(trace, encoding="utf-8", errors="replace") as f:
            line = f.readline()
        event = json.loads(line)
    except (OSError, json.JSONDecodeError):
        return None
    return event if isinstance(event, dict) else None


def _journal_index(run_dir: Path) -> dict:
    try:
        index = json.loads((run_dir / "originals" / "index.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return index if isinstance(index, dict) else {}


def running_run_id(repo: Path) -> str | None:
    """The id of the run holding ``<repo>/.codur/run.lock`` now, or None.

    Read-only: the lock's flock is looked up in ``/proc/locks`` (by the file's device and
    inode), never taken, so a run starting at the same moment is not refused; without
    /proc (not Linux), None.
    """
    path = Path(repo) / ".codur" / "run.lock"
    try:
        st = path.stat()
        held = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino} "
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            if not any(" FLOCK " in line and held in line for line in f):
                return None
        holder = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return str(holder.get("run_id")) if isinstance(holder, dict) and holder.get("run_id") else None


def list_runs(repo: Path) -> list[RunInfo]:
    """Every run kept in ``repo``, newest first (by start time, then run id); the one holding
    the repo's lock without a result yet has status ``running``, not ``interrupted``."""
    root = runs_dir(repo)
    if not root.is_dir():
        return []
    active = running_run_id(repo)
    runs = [_mark_running(read_run(d), active) for d in root.iterdir() if d.is_dir()]
    oldest = datetime.min.replace(tzinfo=UTC)
    return sorted(runs, key=lambda r: (r.started or oldest, r.run_id), reverse=True)


def _mark_running(run: RunInfo, active: str | None) -> RunInfo:
    if run.run_id == active and run.status == "interrupted":
        run.status = "running"
    return run


def find_run(repo: Path, run_id: str) -> RunInfo:
    """The run whose id is ``run_id`` or starts with it.

    Raises:
        RunNotFound: none matches (``no run 'x' in <repo>``), or several do (naming up to 3).
    """
    root = runs_dir(repo)
    if run_id and (root / run_id).is_dir() and "/" not in run_id and run_id not in (".", ".."):
        return _mark_running(read_run(root / run_id), running_run_id(repo))
    matches = sorted(d.name for d in root.iterdir() if d.is_dir() and d.name.startswith(run_id)) \
        if run_id and root.is_dir() else []
    if not matches:
        raise RunNotFound(f"no run {run_id!r} in {repo} (codur runs lists them)")
    if len(matches) > 1:
        shown = ", ".join(matches[:3]) + (", ..." if len(matches) > 3 else "")
        raise RunNotFound(f"run id {run_id!r} is ambiguous: {len(matches)} runs match ({shown})")
    return _mark_running(read_run(root / matches[0]), running_run_id(repo))


def list_database_runs(url: str, limit: int = 20) -> list[RunInfo]:
    """The latest ``limit`` runs kept in the PostgreSQL database ``url`` (every repo and machine
    that used it), newest first. ``extra`` holds ``repo``, ``host`` and ``resumable`` (its
    checkpoints are kept). A run without an end is ``running`` when its process is alive on this
    machine, ``interrupted`` when it is not, ``unfinished`` when it started on another machine.

    Raises:
        codur.storage.StorageError: the database cannot be reached, or ``codur[postgres]`` is
            not installed.
    """
    from codur.storage import postgres_module

    here = socket.gethostname()
    out = []
    for row in postgres_module().PostgresRunLog(url).runs(limit):
        info = RunInfo(run_id=row["run_id"], run_dir=Path(row["run_dir"]), started=row["started_at"],
                       task=row["task"], status=row["status"], reason=row["reason"],
                       extra={"repo": row["repo"], "host": row["host"], "resumable": row["resumable"]})
        if isinstance(row["result"], dict):
            info = _with_result(info, row["result"])
        elif row["host"] != here:
            info.status = "unfinished"
        elif not _alive(row["pid"]):
            info.status = "interrupted"
        out.append(info)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    return True
