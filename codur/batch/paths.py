"""Where a batch writes: only where the user said, never through a link.

A task folder cloned from elsewhere may ship ``results.jsonl -> ../.bashrc`` or a
``results-work -> ~`` link; following either would have codur append result lines to a shell's
startup file or replace the home's ``.ssh`` with a work copy. So the results file and the
working folder are checked component by component (:func:`checked_path`: a link anywhere on
the way is refused) and then opened component by component with ``O_NOFOLLOW``
(:func:`open_nofollow`, :func:`make_folders`), so a link put in place between the check and
the open is refused too. The results file may not be the task file, nor a file a shell reads
at start (:func:`check_results_file`), and a JSON line never holds a ``$`` or a backquote
(:func:`shell_inert`): even sourced by a shell, a task's ``$(...)`` runs nothing.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

#: Files a shell (or a tool that runs one) reads at start: a results file is never one of them.
SHELL_FILES = frozenset({".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
                         ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", ".login",
                         ".logout", ".envrc", ".xprofile", ".xsessionrc", "config.fish", "environment"})


class LinkRefused(OSError):
    """A path codur batch writes to holds a symbolic link; the message names it and what to do."""


def checked_path(path: Path | str, option: str) -> Path:
    """``path`` made absolute (from the working directory, ``~`` expanded, ``..`` folded) once every
    component of it that exists is checked not to be a symbolic link.

    Args:
        path: the path the user gave (``--out``, ``--workdir``) or its default.
        option: the option that gives it, for the message.

    Raises:
        LinkRefused: a component is a link: ``--out: /x/results.jsonl is a symbolic link (to
            ../.bashrc); codur batch does not write through links: give a real path``.
    """
    absolute = Path(os.path.abspath(Path(path).expanduser()))  # getcwd() itself holds no link
    for step in (*reversed(absolute.parents), absolute):
        if step.is_symlink():
            raise LinkRefused(errno.ELOOP, f"{option}: {step} is a symbolic link (to {os.readlink(step)}); codur "
                              "batch does not write through links: give a real path")
    return absolute


def _refused(path: Path, option: str, exc: OSError) -> LinkRefused:
    return LinkRefused(errno.ELOOP, f"{option}: {path} is a symbolic link or not a folder on the way ({exc.strerror});"
                       " codur batch does not write through links: give a real path")


def _walk(folder: Path, *, create: bool, option: str) -> int:
    """A descriptor of ``folder`` (absolute), each component opened with ``O_NOFOLLOW`` from ``/``;
    missing folders are made when ``create``. The caller closes it."""
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in folder.parts[1:]:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                step = os.open(name, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                step = os.open(name, flags, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refused(folder, option, exc) from None
                raise
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_folders(folder: Path, option: str) -> Path:
    """Make ``folder`` (absolute) and its missing parents without following a link; return it.

    Raises:
        LinkRefused: a component is a link or a file.
    """
    os.close(_walk(Path(folder), create=True, option=option))
    return Path(folder)


def open_nofollow(path: Path, flags: int, option: str, mode: int = 0o644) -> int:
    """``os.open(path, flags)`` with no link followed on the way: each folder from ``/`` and the
    file itself are opened with ``O_NOFOLLOW``; with ``O_CREAT`` in ``flags`` missing folders are made.

    Raises:
        LinkRefused: a component, or the file, is a link.
        FileNotFoundError: the file (or, without ``O_CREAT``, a folder) does not exist.
    """
    path = Path(os.path.abspath(path))
    folder = _walk(path.parent, create=bool(flags & os.O_CREAT), option=option)
    try:
        return os.open(path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkRefused(errno.ELOOP, f"{option}: {path} is a symbolic link; codur batch does not write "
                              "through links: give a real path") from None
        raise
    finally:
        os.close(folder)


def check_results_file(out: Path, tasks_file: Path) -> Path:
    """``out`` checked as a batch's results file (:func:`checked_path`), made absolute.

    Raises:
        LinkRefused: a component is a link.
        ValueError: ``out`` is the task file itself (it would be read as results and appended to),
            or a file a shell reads at start (:data:`SHELL_FILES`).
    """
    absolute = checked_path(out, "--out")
    tasks = Path(os.path.abspath(tasks_file))
    if absolute == tasks or (absolute.exists() and tasks.exists() and os.path.samefile(absolute, tasks)):
        raise ValueError(f"--out {out} is the task file itself; give another results file")
    if absolute.name in SHELL_FILES or absolute.parent.name.endswith(("profile.d", "bashrc.d", "rc.d")):
        raise ValueError(f"--out {out} is a file a shell reads at start; codur batch does not write there")
    return absolute


def shell_inert(line: str) -> str:
    """A JSON text with every ``$`` and backquote written as a ``\\u`` escape: the same JSON value,
    but a shell that sources the line finds no command substitution or variable in it (JSON's
    other characters outside strings, ``{ } [ ] : ,``, run nothing either)."""
    return line.replace("$", "\\u0024").replace("`", "\\u0060")
