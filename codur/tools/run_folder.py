"""A run's folder in the repo (``<repo>/.codur/runs/<run id>``), and a change written as a run
of its own: journaled in such a folder, so ``codur undo`` puts it back."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from codur.core.codur_folder import codur_path
from codur.core.files import atomic_write_bytes
from codur.tools.context import ToolContext
from codur.tools.journal import ChangeJournal


def new_run_id() -> str:
    """A new run id: ``YYYYmmdd-HHMMSS-`` (UTC) and six hex digits."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def ignore_in_git(repo: Path) -> None:
    """Make git ignore ``<repo>/.codur/`` without touching the user's ``.gitignore``: the folder
    gets its own ``.gitignore`` holding ``*`` (itself included), written once, atomically.

    Raises:
        OSError: the folder cannot be created or written (a read-only repo).
        codur.core.codur_folder.LinkedCodurFolder: ``.codur`` or its ``.gitignore`` is a symbolic link.
    """
    codur_path(repo, folder=True)
    gitignore = codur_path(repo, ".gitignore")
    if not gitignore.exists():
        atomic_write_bytes(gitignore, b"*\n")


def write_as_run(repo: Path, changes: Mapping[str, str]) -> Path:
    """Write ``changes`` (path relative to ``repo`` -> new text) into ``repo`` as a run of its
    own, for a caller outside any run (:func:`codur.repair.repair` with ``apply``).

    The run's folder ``<repo>/.codur/runs/<run id>`` is made (git-ignored); the files are written
    by a :class:`ToolContext` (every path checked, the originals kept in the folder's change
    journal, atomic, all or nothing); then the journal's manifest and ``diff.patch`` are written,
    so ``codur undo <run id>`` puts the originals back. ``repo`` must be resolved (no symlink).

    Returns:
        The run's folder (its name is the run id).

    Raises:
        ToolError: a path is refused (outside the repo, in ``.git`` / ``.codur``, a secret) or a
            text does not fit its file's coding; nothing is changed then.
        OSError: the folder or a file cannot be written (a failed batch puts back what it wrote).
    """
    ignore_in_git(repo)
    run_dir = codur_path(repo, "runs", new_run_id(), folder=True)
    journal = ChangeJournal(repo, run_dir)
    ToolContext(repo, journal, run_dir=run_dir, allow_risky=True).write_many(changes)
    journal.write_manifest()
    atomic_write_bytes(run_dir / "diff.patch", journal.diff().encode())
    return run_dir
