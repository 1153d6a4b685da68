"""A run's folder in the repo (``<repo>/.codur/runs/<run id>``): its id, and git ignoring it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

from codur.core.codur_folder import codur_path
from codur.core.files import atomic_write_bytes


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
