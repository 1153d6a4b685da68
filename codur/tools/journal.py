"""The change journal: what codur changed in the repo, and the unified diff of it.

Before a file is first written, deleted or moved, its original bytes are kept (in
memory and, when a run directory is given, under ``<run_dir>/originals/``). The
run's diff is computed from the originals and the files as they are now, so it
shows exactly what codur did, even in a repo that is not a git repository.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path

from codur.core.files import atomic_write_bytes, unified_diff

#: The file in a run directory holding the state of every changed file at the end of the run.
MANIFEST = "journal.json"
#: The file in a run directory saying its changes were put back (by ``codur undo``, or
#: because the run failed).
UNDONE = "undone.json"


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
        self._lock = threading.Lock()
        if self.store and (self.store / "index.json").exists():
            self._load()

    def _load(self) -> None:
        assert self.store
        index = json.loads((self.store / "index.json").read_text())
        for rel, stored in index.items():
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
            index_path = self.store / "index.json"
            index = json.loads(index_path.read_text()) if index_path.exists() else {}
            index[rel] = name
            atomic_write_bytes(index_path, json.dumps(index, indent=1).encode())

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
        return out

    def diff(self) -> str:
        """Unified diff (a/ b/ prefixes) of every changed file; '' when nothing changed."""
        return "".join(self.file_diff(rel) for rel in self.changed_files)

    def file_diff(self, rel: str) -> str:
        """Unified diff of one recorded file, original → now; '' when it is unchanged."""
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
            names = sorted(self._originals)
        files = {rel: file_state(self._current(rel)) for rel in names}
        path = self.run_dir / MANIFEST
        atomic_write_bytes(path, json.dumps({"version": 1, "files": files}, indent=1).encode())
        return path

    def originals(self) -> dict[str, bytes | None]:
        """The kept originals by relative path (None: the file did not exist before the run)."""
        with self._lock:
            return dict(self._originals)

    def restore(self) -> tuple[list[str], list[str]]:
        """Put every recorded file back as it was before the run, each atomically
        (:func:`atomic_write_bytes`): a changed file gets its original bytes, a file the run
        created is deleted, one it deleted comes back; a file already as it was is left alone.
        The one way back, for ``codur undo``, a failed run and the patch node. Returns
        (restored, deleted): the relative paths rewritten and those deleted, sorted."""
        restored, deleted = [], []
        for rel, orig in sorted(self.originals().items()):
            path = self.root / rel
            if self._current(rel) == orig:
                continue
            if orig is None:
                path.unlink(missing_ok=True)
                deleted.append(rel)
            else:
                atomic_write_bytes(path, orig)
                restored.append(rel)
        return restored, deleted

    def record_undo(self, **fields: object) -> Path | None:
        """Write ``<run_dir>/undone.json`` (:data:`UNDONE`): the time of the undo and ``fields``;
        ``codur undo`` refuses a run that has it. None without a run directory."""
        if self.run_dir is None:
            return None
        record = {"undone_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **fields}
        path = self.run_dir / UNDONE
        atomic_write_bytes(path, json.dumps(record, indent=1).encode())
        return path
