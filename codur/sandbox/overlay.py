"""A copy-on-write layer over the repo for a test run: the suite's writes land in it, not in the repo.

The repo's own tests run in place, and a suite may write, create or delete files there. Had
they landed in the repo, codur could not tell them from what the user saved in an editor
meanwhile: both would be "changed by the test suite", and a failed run would revert the
user's save. Under bubblewrap the tests instead see the repo through an overlay mount
(bubblewrap's ``--overlay-src``/``--overlay``: the repo the read-only lower layer, a folder of
codur's the upper one). What the suite wrote is in the upper folder: :meth:`Layer.changes`
reads it (a regular file is created or modified, an overlay whiteout is a deletion, an opaque
folder hides what the repo had under it), codur reports it and drops the folder. The repo
itself is never written by the suite, so nothing of it is ever put back, and the user's writes
during the run land in the repo untouched.

Needs bubblewrap 0.8 or later and overlayfs in a user namespace (Linux 5.11 or later):
:func:`overlay_problem` tries it once; without it the tests write the repo and codur notes
each file's state around the run (:mod:`codur.tools.snapshot`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from codur.core.files import IGNORED_DIRS
from codur.sandbox.lifetime import make_temp_dir, temp_dir

#: Extended attributes overlayfs marks an opaque folder with (as root, and in a user namespace).
OPAQUE = ("trusted.overlay.opaque", "user.overlay.opaque")


@dataclass(frozen=True)
class Layer:
    """The upper and work folders of one overlay over a repo."""

    upper: Path
    work: Path

    def bwrap_args(self, root: Path) -> list[str]:
        """bubblewrap's arguments that mount ``root`` read-write through this layer."""
        return ["--overlay-src", str(root), "--overlay", str(self.upper), str(self.work), str(root)]

    def changes(self, root: Path) -> list[tuple[str, str]]:
        """What the run wrote through the layer: (repo-relative POSIX path, ``created`` |
        ``modified`` | ``deleted``), sorted; codur's and git's folders, virtualenvs and caches
        (:data:`codur.core.files.IGNORED_DIRS`) left out."""
        out: list[tuple[str, str]] = []
        self._walk(self.upper, Path(root), "", out)
        return sorted(out)

    def _walk(self, upper: Path, lower: Path, prefix: str, out: list[tuple[str, str]]) -> None:
        try:
            entries = list(os.scandir(upper))
        except OSError:
            return
        for entry in entries:
            if entry.name in IGNORED_DIRS:
                continue
            rel, below = f"{prefix}{entry.name}", lower / entry.name
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:  # a whiteout: deleted
                out += [(r, "deleted") for r in _files(below, rel)]
            elif stat.S_ISDIR(info.st_mode):
                if _opaque(Path(entry.path)) and below.is_dir():
                    kept = {r for r, _ in _upper_files(Path(entry.path), rel)}
                    out += [(r, "deleted") for r in _files(below, rel) if r not in kept]
                self._walk(Path(entry.path), below, rel + "/", out)
            else:
                out.append((rel, "modified" if below.is_file() or below.is_symlink() else "created"))


def _opaque(folder: Path) -> bool:
    for name in OPAQUE:
        with contextlib.suppress(OSError):
            if os.getxattr(folder, name, follow_symlinks=False) == b"y":
                return True
    return False


def _files(path: Path, rel: str) -> list[str]:
    """The files at or under ``path`` (lower layer), as repo-relative paths under ``rel``."""
    if not path.is_dir() or path.is_symlink():
        return [rel] if path.exists() or path.is_symlink() else []
    return [f"{rel}/{p.relative_to(path).as_posix()}" for p in path.rglob("*") if not p.is_dir()]


def _upper_files(path: Path, rel: str) -> list[tuple[str, str]]:
    return [(f"{rel}/{p.relative_to(path).as_posix()}", "") for p in path.rglob("*") if not p.is_dir()]


@contextlib.contextmanager
def layer() -> Iterator[Layer]:
    """A fresh :class:`Layer` in codur's temp area, removed when the block ends."""
    with temp_dir("codur-layer-") as folder:
        (folder / "upper").mkdir()
        (folder / "work").mkdir()
        try:
            yield Layer(folder / "upper", folder / "work")
        finally:
            with contextlib.suppress(OSError):  # overlayfs leaves work/work without permissions
                (folder / "work" / "work").chmod(0o700)


@functools.cache
def overlay_problem(bwrap: str) -> str | None:
    """Why ``bwrap`` cannot mount an overlay here (too old, no overlayfs in a user namespace),
    or None: one trial mount, once per process."""
    folder = make_temp_dir("codur-overlay-check-")
    try:
        for name in ("lower", "upper", "work"):
            (folder / name).mkdir()
        (folder / "lower" / "f").write_text("lower\n")
        lower = folder / "lower"
        done = subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               *Layer(folder / "upper", folder / "work").bwrap_args(lower), "--unshare-pid",
                               "--die-with-parent", "--", "sh", "-c", f"echo upper > {lower}/f"],
                              capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            return f"bubblewrap cannot mount an overlay here: {(done.stderr or done.stdout).strip()[:200]}"
        if (lower / "f").read_text() != "lower\n":
            return "the overlay let a write through to the lower folder"
        return None
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot mount an overlay here: {exc}"
    finally:
        with contextlib.suppress(OSError):
            (folder / "work" / "work").chmod(0o700)
        shutil.rmtree(folder, ignore_errors=True)
