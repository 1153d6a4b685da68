"""The working copy a batch task runs on: a copy, a clone, or (opt-in) the user's folder.

A copy carries a marker, ``.codur/batch-workcopy`` (codur's folder, which no copy of a repo
takes along), that names the copy's own path: an existing folder in a copy's place is replaced
only when it is such a copy, never a folder of the user's (``--workdir .`` with a task id
``docs``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from codur.batch.paths import checked_path, make_folders, open_nofollow
from codur.batch.tasks import BatchTask, is_git_url, is_plain_name
from codur.core.codur_folder import codur_path
from codur.core.files import atomic_write_bytes, copy_ignore

_IGNORE = copy_ignore(keep={".git"})  # the copy keeps its history
#: The marker of a work copy, under its ``.codur`` folder.
MARKER = "batch-workcopy"


def prepare_workcopy(task: BatchTask, root: Path, *, in_place: bool = False) -> Path:
    """Give ``task`` a folder of its own under ``root`` and return it.

    A folder repo is copied (without virtualenvs, caches and codur's run folders:
    :func:`codur.core.files.copy_ignore`, .git kept); a git
    URL is cloned and ``commit`` checked out; with ``in_place`` a folder repo is
    used as it is. An existing copy for the same id is replaced (a link in its place is
    removed, not followed); any other folder there is left alone and the task refused. A folder
    repo that holds ``root`` is copied without it.

    Raises:
        FileNotFoundError: a folder repo does not exist.
        ValueError: the id would put the copy outside ``root`` (:func:`workcopy_path`), a folder
            that is not a work copy is in its place, or the repo is that folder or inside it.
        codur.batch.paths.LinkRefused: ``root`` or a folder above it is a link.
        RuntimeError: ``git clone`` or ``git checkout`` failed (git's message included).
    """
    if not is_git_url(task.repo):
        source = Path(task.repo).expanduser().resolve()
        if not source.is_dir():
            raise FileNotFoundError(f"task {task.id!r}: repo folder {source} does not exist")
        if in_place:
            return source
    dest = workcopy_path(task.id, root)
    if not is_git_url(task.repo) and source.is_relative_to(dest):
        raise ValueError(f"task {task.id!r}: the repo {source} is its own working copy's folder; give another "
                         "--workdir")
    if dest.is_symlink():
        dest.unlink()  # the link only, never what it points to
    elif dest.exists():
        if not is_workcopy(dest):
            raise ValueError(f"task {task.id!r}: {dest} exists and is not a codur work copy (no .codur/{MARKER}); "
                             "codur batch never replaces it: move it away or give another --workdir")
        shutil.rmtree(dest)
    if not is_git_url(task.repo):
        shutil.copytree(source, dest, ignore=_without(dest.parent), symlinks=True)
    else:
        _git(["clone", "--quiet", "--", task.repo, str(dest)], task)  # "--": the URL is never an option
        if task.commit:
            _git(["checkout", "--quiet", task.commit], task, cwd=dest)
    atomic_write_bytes(codur_path(dest, MARKER), json.dumps({"workcopy": str(dest), "task": task.id}).encode())
    return dest


def is_workcopy(folder: Path) -> bool:
    """Whether ``folder`` is a batch work copy: its marker names ``folder`` itself."""
    try:
        fd = open_nofollow(folder / ".codur" / MARKER, os.O_RDONLY, "--workdir")
    except OSError:
        return False
    with os.fdopen(fd, "rb") as file:
        try:
            return json.loads(file.read(4096)).get("workcopy") == str(folder)
        except (ValueError, AttributeError):
            return False


def _without(root: Path):
    """The copy's ``ignore``: :data:`_IGNORE`, and ``root`` itself when the repo holds it (a task
    whose repo is the task file's folder, the working folder beside the task file)."""
    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = _IGNORE(directory, names)
        if Path(directory) == root.parent and root.name in names:
            skipped.add(root.name)
        return skipped
    return ignore


def workcopy_path(task_id: str, root: Path) -> Path:
    """``<root>/<task_id>``, checked to be a folder directly inside ``root`` (``root`` is checked
    to hold no link and created first, :func:`codur.batch.paths.checked_path`; an id that climbs,
    is absolute or holds a separator is refused): nothing outside ``root`` is ever replaced.

    Raises:
        ValueError: ``task_id`` is not a plain name (:func:`codur.batch.tasks.is_plain_name`) or
            the path does not stay in ``root``.
        codur.batch.paths.LinkRefused: ``root`` or a folder above it is a link.
    """
    base = make_folders(checked_path(root, "--workdir"), "--workdir")
    dest = base / task_id
    if not is_plain_name(task_id) or dest.parent != base or os.path.normpath(dest) != str(dest):
        raise ValueError(f"task {task_id!r}: a task id is a plain name; its working copy would not be inside {base}")
    return dest


def _git(args: list[str], task: BatchTask, cwd: Path | None = None) -> None:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"task {task.id!r}: git {args[0]} failed: {done.stderr.strip()}")
