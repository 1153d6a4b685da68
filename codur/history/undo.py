"""Undo a run: put back the files it changed, from its change journal.

A changed file gets its original bytes, a file the run created is deleted, a file it
deleted comes back; each file is written atomically (``atomic_write_bytes``). Before
touching anything, every file is compared with the run's manifest
(``<run_dir>/journal.json``, :meth:`ChangeJournal.write_manifest`; for a run without
one, its ``diff.patch``): a file changed after the run is not overwritten unless
forced, and a forced undo first copies those files to ``<run_dir>/before-undo/<UTC time>/``.
The repo lock is held from that check to the last write. The undo is recorded in
``<run_dir>/undone.json``, so a second undo of the same run is refused.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from codur.history.runs import RunInfo
from codur.tools.journal import MANIFEST, UNDONE, ChangeJournal, file_state


class UndoRefused(RuntimeError):
    """The undo was not done; the message is one line saying why.

    Attributes:
        files: the files that changed after the run (empty for the other reasons).
    """

    def __init__(self, message: str, files: list[str] | None = None) -> None:
        super().__init__(message)
        self.files = files or []


@dataclass
class UndoReport:
    """What an undo did: files rewritten with their originals, files deleted (the run created
    them), the files that had changed after the run (put back anyway, with force), and the
    folder keeping those files as they were just before the undo (None when none was kept)."""

    restored: list[str]
    deleted: list[str]
    overwritten: list[str]
    backup: Path | None = None


def undo(repo: Path, run: RunInfo, *, force: bool = False) -> UndoReport:
    """Put back the files ``run`` changed in ``repo``.

    Args:
        repo: the repository the run worked on.
        run: the run (from :func:`codur.history.runs.find_run`).
        force: put files back even when they changed after the run (or the run left no record of
            its end state: neither journal.json nor diff.patch).

    Raises:
        UndoRefused: already undone; the run changed no files, or they are all back as before it;
            a journal path outside the repo;
            files changed after the run (``files`` names them) or no record of the end state,
            without force;
            another codur run holds the repo; with force, the copy of the files it would overwrite
            cannot be written.
    """
    from codur.engine.lock import RepoLock, RepoLocked

    done = run.run_dir / UNDONE
    if done.exists():
        when = _read_json(done).get("undone_at", "earlier")
        raise UndoRefused(f"run {run.run_id} was already undone ({when})")
    repo = Path(repo).resolve()
    journal = ChangeJournal(repo, run.run_dir)
    originals, whole = journal.originals(), journal.kept_whole()
    if not originals and not whole:
        raise UndoRefused(f"run {run.run_id} changed no files: nothing to undo")
    if not set(whole) & set(journal.changed_files) and all(
            _current(repo / rel) == original for rel, original in originals.items()):
        raise UndoRefused(f"run {run.run_id}'s files are as they were before it: nothing to undo")
    for rel in [*originals, *whole]:
        target = (repo / rel).resolve()
        if not target.is_relative_to(repo) or target == repo:
            raise UndoRefused(f"run {run.run_id}'s journal names a path outside the repo: {rel}")
    try:  # held from the check to the last write: no run changes the files in between
        lock = RepoLock.acquire(repo, f"undo-{run.run_id}")
    except RepoLocked as exc:
        raise UndoRefused(str(exc)) from None
    try:
        after = _changed_since_run(journal, run)
        if after is None and not force:
            raise UndoRefused(f"run {run.run_id} has neither {MANIFEST} nor diff.patch (it ended before writing "
                              "them): cannot tell whether its files changed since; --force puts them back anyway")
        if after and not force:
            raise UndoRefused(f"changed since run {run.run_id}: {', '.join(after)} (--force puts them back "
                              "anyway)", after)
        try:  # before the first write: the edits made since the run are not lost
            backup = _back_up(repo, run.run_dir, after or [])
        except OSError as exc:
            raise UndoRefused(f"run {run.run_id}: cannot keep a copy of the files --force would overwrite "
                              f"({exc}); nothing was changed") from None
        report = UndoReport(*journal.restore(theirs=True), after or [], backup)  # the checks above decided
        journal.record_undo(forced=force, restored=report.restored, deleted=report.deleted,
                            overwritten=report.overwritten, **({"backup": str(backup)} if backup else {}))
    finally:
        lock.release()
    return report


#: The folder of a run's folder that keeps, per forced undo, the files it overwrote.
BACKUP = "before-undo"


def _back_up(repo: Path, run_dir: Path, rels: list[str]) -> Path | None:
    """Copy each of ``rels`` that exists in ``repo`` to ``<run_dir>/before-undo/<UTC time>/<rel>``
    (atomically) and return that folder; None when there is nothing to keep.

    Raises:
        OSError: the run folder cannot be written (nothing has been restored yet).
    """
    from codur.core.files import atomic_write_bytes

    kept = {rel: data for rel in rels if (data := _current(repo / rel)) is not None}
    if not kept:
        return None
    folder = run_dir / BACKUP / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for rel, data in kept.items():
        atomic_write_bytes(folder / rel, data)
    return folder


def _changed_since_run(journal: ChangeJournal, run: RunInfo) -> list[str] | None:
    """Files whose state differs from the end of the run, from the manifest; without one
    (a run from before it was written), files whose diff against the original is not the one
    in the run's diff.patch (a file back at its original needs nothing and is not listed).
    None when the run left neither."""
    manifest = _read_json(run.run_dir / MANIFEST).get("files")
    originals = journal.originals()
    if isinstance(manifest, dict):
        return sorted(rel for rel in originals if manifest.get(rel) != file_state(_current(journal.root / rel)))
    try:
        patch = (run.run_dir / "diff.patch").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return sorted(rel for rel in originals if (chunk := journal.file_diff(rel)) and chunk not in patch)


def _current(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
