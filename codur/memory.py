"""Session memory (the engine document's ``codur.memory``): what earlier runs of a session did, for the
next run to see.

A session is a sequence of runs sharing a ``session_id`` (``RunRequest.session_id``,
``codur --session ID``). The Initialize state records the run's start in memory (a
:class:`SessionEntry` with status ``running``); after the run the engine appends its end
(task, outcome, files, a short diff summary, the answer). The Observe state loads the
session's earlier runs (:func:`recall`) into the state (``session``), and the agent's prompt lists them under
"Earlier in this session", so a follow-up such as "now also handle negative
quantities" knows what "also" refers to.

Two stores: :class:`InMemorySessionStore` (the default of :class:`EngineComponents`,
for one process) and :class:`SqliteSessionStore` (``<repo>/.codur/sessions.sqlite``,
what the ``codur`` command uses, so runs in separate processes share a session).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field

from codur.core.events import emit
from codur.core.events.run import MemoryFailed

T = TypeVar("T")

#: Entries a run sees (the most recent), and the diff summary's size, characters.
HISTORY_LIMIT = 5
DIFF_SUMMARY_CHARS = 1200


class SessionEntry(BaseModel):
    """One run of a session: its start (status ``running``, written by Initialize) or its end.

    Attributes:
        run_id, task, status, reason: the run and how it ended (``running``: how it started).
        files_changed: repo-relative paths it changed.
        diff_summary: the start of its diff (at most DIFF_SUMMARY_CHARS characters).
        output_text: the agent's last words (the answer, for a question).
        ts: when it started or ended, Unix seconds.
    """

    run_id: str
    task: str
    status: str
    reason: str = ""
    files_changed: list[str] = Field(default_factory=list)
    diff_summary: str = ""
    output_text: str = ""
    ts: float = Field(default_factory=time.time)

    def render(self) -> str:
        """A few lines for a prompt."""
        ended = "did not finish" if self.status == "running" else f"ended {self.status} ({self.reason})"
        lines = [f"- run {self.run_id}: {self.task!r} {ended}"]
        if self.files_changed:
            lines.append(f"  files changed: {', '.join(self.files_changed)}")
        if self.diff_summary:
            lines.append("  diff:\n" + "\n".join("    " + ln for ln in self.diff_summary.splitlines()))
        if self.output_text:
            lines.append(f"  said: {self.output_text[:300]}")
        return "\n".join(lines)


def summarize_diff(diff: str, limit: int = DIFF_SUMMARY_CHARS) -> str:
    """The diff cut to ``limit`` characters at a line end."""
    if len(diff) <= limit:
        return diff
    return diff[:limit].rsplit("\n", 1)[0] + "\n… (diff cut)"


def tolerant(call: Callable[[], T], default: T) -> T:
    """``call()`` (a store's read or write), or ``default`` when the store fails (sqlite, a database
    server, a full disk): the failure is said (event ``memory.error``) and the run goes on;
    memory helps the next run, it does not decide this one."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - any store's failure
        emit(MemoryFailed(error=f"{type(exc).__name__}: {exc}"[:300]))
        return default


def recall(store: SessionStore, session_id: str, *, current_run: str = "",
           limit: int = HISTORY_LIMIT) -> list[SessionEntry]:
    """The session's earlier runs, oldest first, one entry per run (its latest: the run's end
    replaces its start), the run ``current_run`` left out, at most ``limit``.

    A run writes two entries: one when Initialize starts it (status ``running``), one when it
    ends; a run that never ended keeps the first, rendered as "did not finish"."""
    latest: dict[str, SessionEntry] = {}
    for entry in store.history(session_id, limit=2 * limit + 2):
        latest[entry.run_id] = entry  # dicts keep the first insertion's order
    return [e for run_id, e in latest.items() if run_id != current_run][-limit:]


@runtime_checkable
class SessionStore(Protocol):
    """Where session memory is kept."""

    def history(self, session_id: str, limit: int = HISTORY_LIMIT) -> list[SessionEntry]:
        """The session's latest ``limit`` entries, oldest first."""
        ...

    def append(self, session_id: str, entry: SessionEntry) -> None:
        """Record a run of the session starting or ending (:func:`recall` keeps the latest per run)."""
        ...


class InMemorySessionStore:
    """Session memory for one process; thread-safe."""

    def __init__(self) -> None:
        self._entries: dict[str, list[SessionEntry]] = {}
        self._lock = threading.Lock()

    def history(self, session_id: str, limit: int = HISTORY_LIMIT) -> list[SessionEntry]:
        with self._lock:
            return list(self._entries.get(session_id, [])[-limit:])

    def append(self, session_id: str, entry: SessionEntry) -> None:
        with self._lock:
            self._entries.setdefault(session_id, []).append(entry)


class SqliteSessionStore:
    """Session memory in a SQLite file (default ``<repo>/.codur/sessions.sqlite``); one
    connection per call, so any thread or process may use it.

    Args:
        path: the database file; its folder is created.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS entries (session_id TEXT NOT NULL, ts REAL NOT NULL, "
                       "entry TEXT NOT NULL)")
            db.execute("CREATE INDEX IF NOT EXISTS by_session ON entries (session_id, ts)")

    @classmethod
    def for_repo(cls, repo: Path) -> SqliteSessionStore:
        """The store in ``<repo>/.codur/sessions.sqlite`` (no link on the way: :mod:`codur.core.codur_folder`).

        Raises:
            codur.core.codur_folder.LinkedCodurFolder: ``.codur`` or the file is a symbolic link.
        """
        from codur.core.codur_folder import codur_path

        return cls(codur_path(Path(repo), "sessions.sqlite"))

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def history(self, session_id: str, limit: int = HISTORY_LIMIT) -> list[SessionEntry]:
        with self._connect() as db:
            rows = db.execute("SELECT entry FROM entries WHERE session_id = ? ORDER BY ts DESC, rowid DESC LIMIT ?",
                              (session_id, limit)).fetchall()
        return [SessionEntry(**json.loads(r[0])) for r in reversed(rows)]

    def append(self, session_id: str, entry: SessionEntry) -> None:
        with self._connect() as db:
            db.execute("INSERT INTO entries VALUES (?, ?, ?)", (session_id, entry.ts, entry.model_dump_json()))
