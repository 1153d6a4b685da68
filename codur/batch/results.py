"""Where a batch keeps its results: one record per finished task.

The local form is a JSON Lines file (RESULTS.jsonl): one JSON object a line,
appended and flushed when a task finishes, so a killed batch loses at most the
tasks in flight and a restart skips every id already written. With a database
URL the same four methods are served by ``codur.storage.postgres.PostgresResults``
(the optional extra ``codur[postgres]``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Protocol

from codur.batch.paths import make_folders, open_nofollow, shell_inert


class ResultStore(Protocol):
    """The four methods a batch needs from its result store."""

    def done_ids(self) -> set[str]:
        """Ids of the tasks that already have a result."""
        ...

    def records(self) -> list[dict]:
        """Every stored result record, in the order written."""
        ...

    def append(self, record: dict) -> None:
        """Store one finished task's record (it must carry a string ``id``)."""
        ...

    def close(self) -> None:
        """Release the store (file handle, connection)."""
        ...


class JsonlResults:
    """Results kept in a JSON Lines file, one flushed line per finished task.

    Args:
        path: the RESULTS.jsonl file; created (with its parent folder) if absent. It is read and
            written without following a link on the way (:func:`codur.batch.paths.open_nofollow`):
            a link there raises :class:`codur.batch.paths.LinkRefused`.

    Each line is JSON with ``$`` and backquotes escaped (:func:`codur.batch.paths.shell_inert`).
    A last line cut short by a kill (no closing newline, invalid JSON) is ignored
    on reading and the next append starts on a fresh line, so nothing is lost
    but the torn record.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(os.path.abspath(path))
        make_folders(self.path.parent, "--out")
        self._file: IO[str] | None = None

    def _read(self) -> bytes:
        try:
            fd = open_nofollow(self.path, os.O_RDONLY, "--out")
        except FileNotFoundError:
            return b""
        with os.fdopen(fd, "rb") as file:
            return file.read()

    def records(self) -> list[dict]:
        out: list[dict] = []
        for line in self._read().decode("utf-8").splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill: the task simply runs again
            if isinstance(record, dict):
                out.append(record)
        return out

    def done_ids(self) -> set[str]:
        return {str(r["id"]) for r in self.records() if "id" in r}

    def append(self, record: dict) -> None:
        """Write ``record`` as one JSON line and flush it to disk.

        Raises:
            ValueError: the record has no ``id``.
        """
        if "id" not in record:
            raise ValueError("a batch result record needs an 'id'")
        line = shell_inert(json.dumps(record, ensure_ascii=False, default=str))
        if self._file is None:
            text = self._read()
            torn = bool(text) and not text.endswith(b"\n")
            fd = open_nofollow(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "--out")
            self._file = os.fdopen(fd, "a", encoding="utf-8")
            if torn:
                self._file.write("\n")
        self._file.write(line + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def open_results(out: Path, database_url: str | None) -> ResultStore:
    """Open the result store for a batch whose results file is ``out``.

    Args:
        out: the RESULTS.jsonl path; with a database its stem names the batch.
        database_url: a ``postgresql://`` URL, or None for the JSON Lines file.

    Raises:
        RuntimeError: a database URL is given but ``codur[postgres]`` is not installed.
    """
    if not database_url:
        return JsonlResults(out)
    try:
        from codur.storage.postgres import PostgresResults
    except ImportError as exc:
        raise RuntimeError(
            "a database URL is given but Postgres storage is not available: "
            "install codur[postgres]") from exc
    return PostgresResults(database_url, batch=Path(out).stem)
