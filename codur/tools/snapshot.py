"""What a test run in the repo itself changed: the repo's files before and after it.

The repo's own tests run in place (observe, verify, ``run_pytest``), and so do the agent's
scripts and entry points (``run_python_file``, :func:`codur.tools.python.run_entry_point`);
each may write, delete or create files (:func:`noted` wraps every such run). Before each
such run every file of the repo, tracked or not
(:meth:`ToolContext.walk`: not .git, .codur, virtualenvs, caches), is noted by path,
size and mtime, with its bytes and SHA-256 when it is at most :data:`KEEP_BYTES` (and
:data:`KEEP_TOTAL_BYTES` in all are not yet kept); after it, a file whose size or mtime
moved is hashed again. Each change is reported
(``the test suite deleted important.txt``) and its before-content recorded in the change
journal, so the run's diff shows it and ``codur undo`` puts it back. A file above those
bounds is hard-linked into the run folder before the run (:data:`WHOLE_FOLDER`; a copy across
file systems): one the run deleted or replaced is kept whole (:meth:`ChangeJournal.keep_whole`),
whatever its size; only one rewritten in place (the same inode) is reported as not kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import os
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from codur.core.events.tests import TestsChangedFiles

if TYPE_CHECKING:
    from codur.tools.context import ToolContext

#: Files up to this size (bytes) are kept whole before a test run, to be put back ...
KEEP_BYTES = 1_000_000
#: ... until this many bytes are kept in all; later files are noted by size and mtime only.
KEEP_TOTAL_BYTES = 64_000_000

Change = Literal["modified", "deleted", "created"]
#: The folder of a run's folder where the large files are linked before a run.
WHOLE_FOLDER = "whole-before"


@dataclass(frozen=True)
class FileState:
    """One regular file before a run: ``size`` (bytes), ``mtime_ns``, ``data`` (None above
    :data:`KEEP_BYTES`) and its SHA-256 (``digest``, None above it too); ``link``: a hard link to
    it (or a copy) when ``data`` is None and the run has a folder."""

    size: int
    mtime_ns: int
    data: bytes | None
    digest: str | None
    link: Path | None = None


@dataclass(frozen=True)
class FileChange:
    """A change a test run made: ``path`` (repo-relative, POSIX), ``change``, and whether its
    before-content was kept (``restorable``: False past :data:`KEEP_BYTES` or :data:`KEEP_TOTAL_BYTES`)."""

    path: str
    change: Change
    restorable: bool
    by: str = "the test suite"

    @property
    def message(self) -> str:
        return f"{self.by} {self.change} {self.path}" + ("" if self.restorable else " (too large to keep)")


@contextlib.contextmanager
def noted(ctx: ToolContext, by: str = "the test suite") -> Iterator[None]:
    """Run the block (code run in the repo in place: the tests, an agent's script, an entry
    point) between a :func:`take` and :func:`note`, so each change it makes is reported and its
    before-content kept in the change journal (a failed run puts it back, ``codur undo`` can)."""
    before = take(ctx)
    try:
        yield
    finally:
        note(ctx, before, by)


def note(ctx: ToolContext, before: dict[str, FileState], by: str = "the test suite") -> None:
    """Report what changed since ``before``: a ``tests.changed_files`` event (``by`` names the
    code that ran), and each before-content kept in the change journal; under the tool policy
    read_only (``ctx.read_only``) each change is put back at once instead (:func:`put_back`; the
    event says ``"restored": true``), so nothing is left changed."""
    found = [dataclasses.replace(c, by=by) for c in changes(ctx, before)]
    found = [_kept_whole(ctx, c, before[c.path]) if not c.restorable else c for c in found]
    _drop_links(before)
    if not found:
        return
    for change in found:
        if not change.restorable or before.get(change.path, _NO_STATE).link is not None:
            continue
        original = None if change.change == "created" else before[change.path].data
        if ctx.read_only:
            put_back(ctx, change.path, original)
        else:
            ctx.journal.record_original(change.path, original)
            ctx.journal.left(ctx.root / change.path)  # as the run left it: codur's to put back
    message = "; ".join(c.message for c in found) + ("; put back (tool policy read_only)" if ctx.read_only else "")
    if ctx.on_event is None:
        logging.getLogger("codur.tools").warning(message)
        return
    ctx.on_event(TestsChangedFiles(message=message, by=by, restored=ctx.read_only,
                                   changes=[{"path": c.path, "change": c.change, "restorable": c.restorable}
                                            for c in found]))


def note_layer(ctx: ToolContext, found: list[tuple[str, str]], by: str = "the test suite") -> None:
    """Report what a run through a copy-on-write layer wrote there (``found``: (path, change),
    :meth:`codur.sandbox.overlay.Layer.changes`): a ``tests.changed_files`` event with
    ``restored`` true, since the layer is dropped and the repo was never written."""
    if not found:
        return
    message = "; ".join(f"{by} {change} {path}" for path, change in found) + " (in its own layer: dropped, the repo " \
        "is as it was)"
    if ctx.on_event is None:
        logging.getLogger("codur.tools").warning(message)
        return
    ctx.on_event(TestsChangedFiles(message=message, by=by, restored=True,
                                   changes=[{"path": p, "change": c, "restorable": True} for p, c in found]))


_NO_STATE = FileState(0, 0, None, None)


def _kept_whole(ctx: ToolContext, change: FileChange, old: FileState) -> FileChange:
    """``change`` of a large file made restorable when its hard link still holds the original (it
    was deleted or replaced, not rewritten in place) and the journal took it."""
    if old.link is None or change.change == "created":
        return change
    with contextlib.suppress(OSError):
        now = os.stat(ctx.root / change.path)
        if (now.st_dev, now.st_ino) == (os.stat(old.link).st_dev, os.stat(old.link).st_ino):
            return change  # rewritten in place: the link holds the new bytes
    if ctx.journal.keep_whole(change.path, old.link):
        return dataclasses.replace(change, restorable=True)
    return change


def _drop_links(before: dict[str, FileState]) -> None:
    for state in before.values():
        if state.link is not None:
            state.link.unlink(missing_ok=True)


def _link(ctx: ToolContext, path: Path, n: int) -> Path | None:
    """A hard link to ``path`` in the run folder's :data:`WHOLE_FOLDER` (a copy across file
    systems), or None without a run folder."""
    run_dir = ctx.journal.run_dir
    if run_dir is None:
        return None
    folder = run_dir / WHOLE_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{os.getpid()}-{n}"
    target.unlink(missing_ok=True)
    try:
        os.link(path, target)
    except OSError:
        try:
            shutil.copyfile(path, target)
        except OSError:
            return None
    return target


def take(ctx: ToolContext) -> dict[str, FileState]:
    """Every regular file of the repo (see the module doc) by relative path; the bytes of
    those up to :data:`KEEP_BYTES`, while :data:`KEEP_TOTAL_BYTES` are not reached; the others
    hard-linked into the run folder (:func:`_link`)."""
    out, kept = {}, 0
    for path in ctx.walk("."):
        try:
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                continue
            keep = info.st_size <= KEEP_BYTES and kept + info.st_size <= KEEP_TOTAL_BYTES
            data = path.read_bytes() if keep else None
        except OSError:
            continue
        kept += len(data or b"")
        digest = hashlib.sha256(data).hexdigest() if data is not None else None
        link = _link(ctx, path, len(out)) if data is None else None
        out[ctx.rel(path)] = FileState(info.st_size, info.st_mtime_ns, data, digest, link)
    return out


def changes(ctx: ToolContext, before: dict[str, FileState]) -> list[FileChange]:
    """What changed since ``before`` (a :func:`take`), by path."""
    after = {ctx.rel(p): p for p in ctx.walk(".")}
    out = []
    for rel, old in before.items():
        path = after.pop(rel, None)
        if path is None or not path.is_file():
            out.append(FileChange(rel, "deleted", old.data is not None))
        elif _modified(path, old):
            out.append(FileChange(rel, "modified", old.data is not None))
    out += [FileChange(rel, "created", True) for rel, p in after.items() if p.is_file() and not p.is_symlink()]
    return sorted(out, key=lambda c: c.path)


def _modified(path: Path, old: FileState) -> bool:
    try:
        info = os.stat(path)
        if (info.st_size, info.st_mtime_ns) == (old.size, old.mtime_ns):
            return False
        if old.digest is None or info.st_size != old.size:
            return True
        return hashlib.sha256(path.read_bytes()).hexdigest() != old.digest
    except OSError:
        return True


def put_back(ctx: ToolContext, rel: str, original: bytes | None) -> None:
    """Put ``rel`` (repo-relative) back as ``original`` (atomically), or delete it when it
    did not exist before (``original`` None): what a test run changed under the read-only
    tool policy, when no sandbox kept it from writing."""
    from codur.core.files import atomic_write_bytes

    path = ctx.root / rel
    if original is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write_bytes(path, original)
