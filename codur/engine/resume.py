"""What a resumed run takes from its first start: its full id, its task and its settings.

A run that writes (not a dry run) saves ``<run_dir>/request.json`` when it starts: the task,
the session and the settings that differ from the defaults (:func:`saved_settings`: secrets,
the database URL and an attached model server's address left out). With a database the same
settings go in the run's ``codur_runs`` row, so another machine finds them too.
``codur --resume ID`` (:func:`find_saved`) accepts a unique prefix of the id, as ``codur show``
and ``codur undo`` do, and takes the task and settings from there: settings given again on the
command line win over the saved ones, the saved ones over the variables and files of now.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.config import CodurConfig
from codur.engine.checkpoints import ResumeError

#: The file in a run's folder that keeps what the run was started with.
SAVED = "request.json"
#: Settings never saved: secrets, where the runs are kept, and a server a batch started for its workers.
NOT_SAVED: dict[str, Any] = {"api_key": True, "database_url": True, "storage": True, "dry_run": True,
                             "local": {"server_url"}}


@dataclass(frozen=True)
class SavedRun:
    """What a run was started with.

    Attributes:
        run_id: the full run id.
        task: the task text ('' when the run's folder keeps none).
        settings: CodurConfig field values (JSON data) that differ from the defaults; {} when
            the run kept none (a run from before this file existed).
        session_id: its session, or None.
    """

    run_id: str
    task: str
    settings: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None


def saved_settings(config: CodurConfig) -> dict[str, Any]:
    """``config``'s values that were set (a flag, a variable, a file, the caller), as JSON data,
    without :data:`NOT_SAVED` and without a value derived from this machine (``test_memory_mb``
    when it is the default for its workers)."""
    from codur.sandbox.limits import default_test_memory_mb

    saved = config.model_dump(mode="json", exclude_unset=True, exclude=NOT_SAVED)
    if saved.get("test_memory_mb") == (default_test_memory_mb(config.repair_workers) or 0):
        saved.pop("test_memory_mb")
    return {k: v for k, v in saved.items() if v != {}}


def save_request(run_dir: Path, run_id: str, task: str, config: CodurConfig, session_id: str | None) -> None:
    """Write ``<run_dir>/request.json`` (atomically).

    Raises:
        OSError: the run folder cannot be written.
    """
    from codur.core.files import atomic_write_bytes

    body = {"run_id": run_id, "task": task, "session_id": session_id, "settings": saved_settings(config)}
    atomic_write_bytes(run_dir / SAVED, json.dumps(body, indent=1).encode())


def find_saved(repo: Path, ref: str, database_url: str | None = None) -> SavedRun:
    """The run ``ref`` (a run id or a unique prefix of one) names: in ``<repo>/.codur/runs/``,
    else in the database's run list.

    Args:
        repo: the repository (absolute).
        ref: the id or prefix given to ``--resume``.
        database_url: the database, when one is set.

    Raises:
        ResumeError: no run matches, or several do (one line naming up to three).
        codur.storage.StorageError: the database cannot be read.
    """
    root = repo / ".codur" / "runs"
    names = sorted(d.name for d in root.iterdir() if d.is_dir() and d.name.startswith(ref)) if root.is_dir() else []
    names = [ref] if ref in names else names
    if len(names) > 1:
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        raise ResumeError(f"--resume {ref}: the id is ambiguous, {len(names)} runs match ({shown})")
    if names:
        return _from_folder(root / names[0])
    if database_url:
        from codur.storage import postgres_module

        rows = postgres_module().PostgresRunLog(database_url).matching(ref)
        if len(rows) > 1:
            shown = ", ".join(r["run_id"] for r in rows[:3]) + (", ..." if len(rows) > 3 else "")
            raise ResumeError(f"--resume {ref}: the id is ambiguous, {len(rows)} runs match ({shown})")
        if rows:
            row = rows[0]
            return SavedRun(row["run_id"], row["task"], row.get("settings") or {}, row.get("session_id"))
    where = f"{root}/" + (" or the database" if database_url else "")
    raise ResumeError(f"--resume {ref}: no run with that id or prefix in {where} "
                      f"(codur runs{' --database' if database_url else ''} lists them)")


def _from_folder(run_dir: Path) -> SavedRun:
    """The saved request of ``run_dir``; for a run without one, the task its trace's first event
    names ('' when it names none)."""
    try:
        body = json.loads((run_dir / SAVED).read_text(encoding="utf-8"))
        return SavedRun(run_dir.name, str(body["task"]), dict(body.get("settings") or {}), body.get("session_id"))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        with (run_dir / "trace.jsonl").open(encoding="utf-8") as trace:
            first = json.loads(trace.readline() or "{}")
    except (OSError, ValueError):
        first = {}
    return SavedRun(run_dir.name, str(first.get("task") or ""), {}, first.get("session_id"))
