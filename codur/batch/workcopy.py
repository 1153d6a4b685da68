"""The working copy a batch task runs on: a copy, a clone, or (opt-in) the user's folder."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from codur.batch.tasks import BatchTask, is_git_url, is_plain_name
from codur.core.files import copy_ignore

_IGNORE = copy_ignore(keep={".git"})  # the copy keeps its history


def prepare_workcopy(task: BatchTask, root: Path, *, in_place: bool = False) -> Path:
    """Give ``task`` a folder of its own under ``root`` and return it.

    A folder repo is copied (without virtualenvs, caches and codur's run folders:
    :func:`codur.core.files.copy_ignore`, .git kept); a git
    URL is cloned and ``commit`` checked out; with ``in_place`` a folder repo is
    used as it is. An existing copy for the same id is replaced (a link in its place is
    removed, not followed).

    Raises:
        FileNotFoundError: a folder repo does not exist.
        ValueError: the id would put the copy outside ``root`` (:func:`workcopy_path`).
        RuntimeError: ``git clone`` or ``git checkout`` failed (git's message included).
    """
    if not is_git_url(task.repo):
        source = Path(task.repo).expanduser().resolve()
        if not source.is_dir():
            raise FileNotFoundError(f"task {task.id!r}: repo folder {source} does not exist")
        if in_place:
            return source
    dest = workcopy_path(task.id, root)
    if dest.is_symlink():
        dest.unlink()  # the link only, never what it points to
    elif dest.exists():
        shutil.rmtree(dest)
    if not is_git_url(task.repo):
        shutil.copytree(source, dest, ignore=_IGNORE, symlinks=True)
        return dest
    _git(["clone", "--quiet", task.repo, str(dest)], task)
    if task.commit:
        _git(["checkout", "--quiet", task.commit], task, cwd=dest)
    return dest


def workcopy_path(task_id: str, root: Path) -> Path:
    """``<root>/<task_id>``, checked to be a folder directly inside ``root`` (``root`` is created
    and resolved first, so a linked ``root`` is fine, but an id that climbs, is absolute or holds
    a separator is not): nothing outside ``root`` is ever replaced.

    Raises:
        ValueError: ``task_id`` is not a plain name (:func:`codur.batch.tasks.is_plain_name`) or
            the path does not stay in ``root``.
    """
    base = Path(root)
    base.mkdir(parents=True, exist_ok=True)
    base = base.resolve()
    dest = base / task_id
    if not is_plain_name(task_id) or dest.parent != base or os.path.normpath(dest) != str(dest):
        raise ValueError(f"task {task_id!r}: a task id is a plain name; its working copy would not be inside {base}")
    return dest


def _git(args: list[str], task: BatchTask, cwd: Path | None = None) -> None:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"task {task.id!r}: git {args[0]} failed: {done.stderr.strip()}")
