"""The working copy a batch task runs on: a copy, a clone, or (opt-in) the user's folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from codur.batch.tasks import BatchTask, is_git_url
from codur.core.files import copy_ignore

_IGNORE = copy_ignore(keep={".git"})  # the copy keeps its history


def prepare_workcopy(task: BatchTask, root: Path, *, in_place: bool = False) -> Path:
    """Give ``task`` a folder of its own under ``root`` and return it.

    A folder repo is copied (without virtualenvs, caches and codur's run folders:
    :func:`codur.core.files.copy_ignore`, .git kept); a git
    URL is cloned and ``commit`` checked out; with ``in_place`` a folder repo is
    used as it is. An existing copy for the same id is replaced.

    Raises:
        FileNotFoundError: a folder repo does not exist.
        RuntimeError: ``git clone`` or ``git checkout`` failed (git's message included).
    """
    if not is_git_url(task.repo):
        source = Path(task.repo).expanduser().resolve()
        if not source.is_dir():
            raise FileNotFoundError(f"task {task.id!r}: repo folder {source} does not exist")
        if in_place:
            return source
    dest = Path(root) / task.id
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not is_git_url(task.repo):
        shutil.copytree(source, dest, ignore=_IGNORE, symlinks=True)
        return dest
    _git(["clone", "--quiet", task.repo, str(dest)], task)
    if task.commit:
        _git(["checkout", "--quiet", task.commit], task, cwd=dest)
    return dest


def _git(args: list[str], task: BatchTask, cwd: Path | None = None) -> None:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"task {task.id!r}: git {args[0]} failed: {done.stderr.strip()}")
