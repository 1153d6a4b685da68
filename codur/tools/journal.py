"""The change journal: what codur changed in the repo, and the unified diff of it.

Before a file is first written, deleted or moved, its original bytes are kept (in
memory and, when a run directory is given, under ``<run_dir>/originals/``). The
run's diff is computed from the originals and the files as they are now, so it
shows exactly what codur did, even in a repo that is not a git repository.

A file too large to keep in memory that a script deleted or replaced is kept whole instead, by
a hard link (or, across file systems, a copy) renamed into ``<run_dir>/originals/``
(:meth:`ChangeJournal.keep_whole`): it is put back like any original, whatever its size, and the
diff names it without its bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path

from codur.core.files import atomic_write_bytes, unified_diff

#: The file in a run directory holding the state of every changed file at the end of the run.
MANIFEST = "journal.json"
#: The file in a run directory saying its changes were put back (by ``codur undo``, or
#: because the run failed).
UNDONE = "undone.json"
#: The file in a run's ``originals/`` holding the state codur last left each file in (:meth:`ChangeJournal.left`).
LEFT = "left.json"


def file_state(data: bytes | None) -> str:
    """A file's state as the manifest writes it: ``"sha256:<hex>"``, or ``"absent"`` for None."""
    return "absent" if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


class ChangeJournal:
    """Originals of every file changed under ``root``; thread-safe."""

    def __init__(self, root: Path, run_dir: Path | None = None) -> None:
        self.root = root
        self.run_dir = run_dir
        self.store = run_dir / "originals" if run_dir else None
        self._originals: dict[str, bytes | None] = {}
        self._whole: dict[str, Path] = {}  # large originals kept as files (keep_whole)
        self._left: dict[str, str] = {}  # the state codur last left each file in (left)
        self._lock = threading.Lock()
        if self.store and (self.store / "index.json").exists():
            self._load()

    def _load(self) -> None:
        """The originals, and the states codur left the files in, of the run folder's earlier start
        (a resumed run's journal goes on from them)."""
        assert self.store
        if (self.store / LEFT).is_file():
            self._left = dict(json.loads((self.store / LEFT).read_text()))
        index = json.loads((self.store / "index.json").read_text())
        for rel, stored in index.items():
            if isinstance(stored, dict):
                self._whole[rel] = self.store / stored["whole"]
            else:
                self._originals[rel] = None if stored is None else (self.store / stored).read_bytes()

    def record(self, path: Path) -> None:
        """Keep ``path``'s current bytes (None if absent) unless already kept."""
        rel = path.relative_to(self.root).as_posix()
        with self._lock:
            if rel in self._originals:
                return
            self._keep(rel, path.read_bytes() if path.is_file() else None)

    def record_original(self, rel: str, data: bytes | None) -> None:
        """Keep ``data`` as the original of ``rel`` (None: the file did not exist), unless
        one is kept already. For changes made outside the tools, e.g. by a command-line agent."""
        with self._lock:
            if rel not in self._originals:
                self._keep(rel, data)

    def _keep(self, rel: str, data: bytes | None) -> None:
        """Store an original (caller holds the lock)."""
        self._originals[rel] = data
        if self.store:
            self.store.mkdir(parents=True, exist_ok=True)
            name = None
            if data is not None:
                name = f"{len(self._originals):04d}.orig"
                (self.store / name).write_bytes(data)
            self._index(rel, name)

    def _index(self, rel: str, stored: str | dict | None) -> None:
        assert self.store
        index_path = self.store / "index.json"
        index = json.loads(index_path.read_text()) if index_path.exists() else {}
        index[rel] = stored
        atomic_write_bytes(index_path, json.dumps(index, indent=1).encode())

    def keep_whole(self, rel: str, link: Path) -> bool:
        """Keep ``link`` (a hard link to, or copy of, ``rel``'s original, taken before a script ran)
        as the original of ``rel``, moved into ``<run_dir>/originals/`` by a rename: a file of any
        size is put back whole by :meth:`restore`. False (nothing kept) without a run directory or
        when ``rel`` has an original already."""
        with self._lock:
            if self.store is None or rel in self._originals or rel in self._whole:
                return False
            self.store.mkdir(parents=True, exist_ok=True)
            name = f"{len(self._originals) + len(self._whole) + 1:04d}.whole"
            os.replace(link, self.store / name)
            self._whole[rel] = self.store / name
            self._index(rel, {"whole": name})
            return True

    def left(self, path: Path) -> None:
        """Note the state codur leaves ``path`` in now (after its write, or after a run of code it
        started): a later change of the file is someone else's (:meth:`changed_by_others`)."""
        rel = path.relative_to(self.root).as_posix()
        with self._lock:
            self._left[rel] = file_state(self._current(rel))
            if self.store and self.store.is_dir():  # kept for a resumed run (its end's manifest, its revert)
                atomic_write_bytes(self.store / LEFT, json.dumps(self._left, indent=1).encode())

    def changed_by_others(self) -> list[str]:
        """Files changed since codur last left them (:meth:`left`): while no codur write or run of
        codur's was touching them, so by someone else (the user's editor). :meth:`restore` leaves them."""
        with self._lock:
            left = dict(self._left)
        return sorted(rel for rel, state in left.items() if file_state(self._current(rel)) != state)

    def kept_whole(self) -> dict[str, Path]:
        """The originals kept as files (:meth:`keep_whole`), by relative path."""
        with self._lock:
            return dict(self._whole)

    def snapshot(self) -> dict[str, bytes | None]:
        """Current bytes of every recorded file (None: absent), to compare with later."""
        with self._lock:
            names = list(self._originals)
        return {rel: self._current(rel) for rel in names}

    def changed_since(self, snapshot: dict[str, bytes | None]) -> list[str]:
        """Files whose bytes differ from ``snapshot``; a file recorded after it is compared
        with its original (which is what it held when the snapshot was taken)."""
        with self._lock:
            items = list(self._originals.items())
        return sorted(rel for rel, orig in items if self._current(rel) != snapshot.get(rel, orig))

    def _current(self, rel: str) -> bytes | None:
        p = self.root / rel
        return p.read_bytes() if p.is_file() else None

    @property
    def changed_files(self) -> list[str]:
        """Paths (relative, POSIX) whose content differs from the original."""
        out = []
        for rel, orig in sorted(self._originals.items()):
            p = self.root / rel
            now = p.read_bytes() if p.is_file() else None
            if now != orig:
                out.append(rel)
        return sorted(out + [rel for rel, kept in self.kept_whole().items() if not _same_file(self.root / rel, kept)])

    def diff(self) -> str:
        """Unified diff (a/ b/ prefixes) of every changed file; '' when nothing changed."""
        return "".join(self.file_diff(rel) for rel in self.changed_files)

    def file_diff(self, rel: str) -> str:
        """Unified diff of one recorded file, original → now; '' when it is unchanged. A file kept
        whole (:meth:`keep_whole`) is named, not shown (git's line for a binary change)."""
        if rel in self._whole:
            if _same_file(self.root / rel, self._whole[rel]):
                return ""
            gone = not (self.root / rel).is_file()
            return (f"diff --git a/{rel} b/{rel}\n" + ("deleted file mode 100644\n" if gone else "")
                    + f"Binary files a/{rel} and {'/dev/null' if gone else 'b/' + rel} differ "
                    f"({self._whole[rel].stat().st_size} bytes before, kept whole in {self._whole[rel]})\n")
        orig = self._originals[rel]
        now = self._current(rel)
        if now == orig:
            return ""
        return unified_diff(rel, None if orig is None else orig.decode("utf-8", "replace"),
                            None if now is None else now.decode("utf-8", "replace"))

    def write_manifest(self) -> Path | None:
        """Write ``<run_dir>/journal.json``: every recorded file's state at the end of the run.

        The layout is ``{"version": 1, "files": {rel: "sha256:<hex>" | "absent"}}``, rel being
        the POSIX path under the repo. ``codur undo`` compares the files with it to refuse
        putting back files the user changed after the run. Call it when the run ends (later
        calls overwrite it). Returns the manifest's path, or None without a run directory.
        """
        if self.run_dir is None:
            return None
        with self._lock:
            names, left = sorted(self._originals), dict(self._left)
        # the state codur left a file in, not the one it has now: an edit of the user's during the
        # run is then "changed since the run" for `codur undo`, not codur's to put back
        files = {rel: left.get(rel) or file_state(self._current(rel)) for rel in names}
        path = self.run_dir / MANIFEST
        atomic_write_bytes(path, json.dumps({"version": 1, "files": files}, indent=1).encode())
        return path

    def originals(self) -> dict[str, bytes | None]:
        """The kept originals by relative path (None: the file did not exist before the run)."""
        with self._lock:
            return dict(self._originals)

    def restore(self, *, theirs: bool = False) -> tuple[list[str], list[str]]:
        """Put every recorded file back as it was before the run, each atomically
        (:func:`atomic_write_bytes`): a changed file gets its original bytes, a file the run
        created is deleted, one it deleted comes back; a file already as it was is left alone,
        and so is a file changed since codur last left it (:meth:`changed_by_others`: the user's
        edit during the run), unless ``theirs`` (``codur undo --force``). The one way back, for
        ``codur undo``, a failed run and the patch node. Returns (restored, deleted): the
        relative paths rewritten and those deleted, sorted."""
        restored, deleted = [], []
        others = set() if theirs else set(self.changed_by_others())
        for rel, kept in sorted(self.kept_whole().items()):
            if not _same_file(self.root / rel, kept):
                _put_whole(kept, self.root / rel)
                restored.append(rel)
        for rel, orig in sorted(self.originals().items()):
            path = self.root / rel
            if self._current(rel) == orig or rel in others:
                continue
            if orig is None:
                path.unlink(missing_ok=True)
                deleted.append(rel)
            else:
                atomic_write_bytes(path, orig)
                restored.append(rel)
            self.left(path)
        return sorted(restored), deleted

    def record_undo(self, **fields: object) -> Path | None:
        """Write ``<run_dir>/undone.json`` (:data:`UNDONE`): the time of the undo and ``fields``;
        ``codur undo`` refuses a run that has it. None without a run directory."""
        if self.run_dir is None:
            return None
        record = {"undone_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **fields}
        path = self.run_dir / UNDONE
        atomic_write_bytes(path, json.dumps(record, indent=1).encode())
        return path


def _same_file(path: Path, kept: Path) -> bool:
    """Whether ``path`` still holds what ``kept`` holds: the same inode, or the same bytes."""
    try:
        a, b = os.stat(path), os.stat(kept)
    except OSError:
        return False
    if (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):
        return True
    if a.st_size != b.st_size:
        return False
    with path.open("rb") as x, kept.open("rb") as y:
        while True:
            one, two = x.read(1 << 20), y.read(1 << 20)
            if one != two:
                return False
            if not one:
                return True


def _put_whole(kept: Path, path: Path) -> None:
    """``path`` becomes a copy of ``kept`` (a hard link first, so no byte is copied on one file system)."""
    import shutil

    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.codur-restore")
    temp.unlink(missing_ok=True)
    try:
        os.link(kept, temp)
    except OSError:
        shutil.copyfile(kept, temp)
    os.replace(temp, path)
