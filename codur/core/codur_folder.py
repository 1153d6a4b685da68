"""The repo's ``.codur`` folder, where codur writes (lock, checkpoints, sessions, run folders):
always a real folder inside the repo, never reached through a symbolic link.

A cloned repository may ship ``.codur -> ../elsewhere`` or ``.codur/run.lock -> ~/.bashrc``;
following either would have codur write its lock, checkpoints or run folders outside the repo.
Every writer asks :func:`codur_path` for its path: each component from ``.codur`` down to
the path, when it exists, must not be a link (``lstat``), and the missing folders are
created one by one (``mkdir`` does not follow a link in the last component: it fails). At a
run's start :func:`check_codur_tree` walks the whole folder, without following links, and
refuses any link in it (a ``checkpoints.sqlite-wal`` link would be followed by SQLite).
The lock file itself is also opened with ``O_NOFOLLOW`` (:mod:`codur.engine.lock`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

FOLDER = ".codur"


class LinkedCodurFolder(RuntimeError):
    """``.codur`` or something under it is a symbolic link; the message is one line naming the
    link, its target and what to do."""


def _refuse(path: Path, repo: Path) -> None:
    rel = path.relative_to(repo)
    if path.is_symlink():
        raise LinkedCodurFolder(f"{rel} is a symbolic link (to {os.readlink(path)}); codur writes only into a real "
                                f"{FOLDER} folder inside the repo and does not follow links: remove the link")
    raise NotADirectoryError(errno.ENOTDIR, f"{rel} is not a folder; codur keeps its files in {FOLDER}/", str(path))


def codur_path(repo: Path, *parts: str, folder: bool = False) -> Path:
    """``<repo>/.codur/<parts...>``, checked: no component from ``.codur`` on is a link.

    Args:
        repo: the repository (as given; the check starts at its ``.codur``).
        parts: the path under ``.codur``, e.g. ``("runs", run_id)`` or ``("run.lock",)``.
        folder: the path is a folder: it is created too. Otherwise only its parent folders are
            created, and the file itself, when it exists, must not be a link.

    Raises:
        LinkedCodurFolder: a component is a link.
        OSError: a folder cannot be created (a read-only repo); NotADirectoryError: a folder on
            the way is a file.
    """
    repo = Path(repo)
    path = repo / FOLDER
    chain = [path, *(path.joinpath(*parts[:n]) for n in range(1, len(parts) + 1))]
    for n, step in enumerate(chain):
        is_folder = folder or n < len(chain) - 1
        if step.is_symlink():
            _refuse(step, repo)
        if is_folder:
            try:
                step.mkdir()
            except FileExistsError:
                if step.is_symlink() or not step.is_dir():
                    _refuse(step, repo)
    return chain[-1]


def check_codur_tree(repo: Path) -> None:
    """Refuse a ``.codur`` that is a link, or holds one anywhere below it (links are not followed).
    A repo without ``.codur`` passes, and so does a ``.codur`` that is a file (the writers' own
    OSError says it cannot hold codur's folder).

    Raises:
        LinkedCodurFolder: naming the first link found.
    """
    repo = Path(repo)
    root = repo / FOLDER
    if root.is_symlink():
        _refuse(root, repo)
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in (*dirs, *files):
            entry = Path(folder) / name
            if entry.is_symlink():
                _refuse(entry, repo)
