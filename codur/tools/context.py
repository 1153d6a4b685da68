"""ToolContext: what a tool gets from the ToolExecutor — the repo root and safe primitives.

Tools never touch the filesystem or start processes except through these methods,
so the confinement, secret, size, atomic-write and timeout rules live in one place: here
(paths, reads, journaled writes), :mod:`codur.tools.visibility` (which files a tool sees),
:mod:`codur.tools.reading` (bounded reads, source codings) and :mod:`codur.tools.processes`
(the confined process behind :meth:`ToolContext.run`).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.core.events import Event
from codur.core.events.patch import PatchRisky
from codur.core.usage import UsageLedger
from codur.sandbox.process import ProcessResult
from codur.testing.command import TestCommand
from codur.testing.command import resolve as resolve_tests
from codur.tools import risk
from codur.tools.allowlist import own_modules
from codur.tools.errors import ToolError
from codur.tools.gate import CallGate
from codur.tools.journal import ChangeJournal, atomic_write_bytes
from codur.tools.processes import prepare, run_prepared
from codur.tools.reading import MAX_READ_BYTES, decode_source, encode_source, read_bytes_bounded
from codur.tools.visibility import is_secret, walk_files


@dataclass
class ToolContext:
    """Injected into every tool call as ``ctx``.

    Attributes:
        root: the repository root (resolved, absolute).
        journal: records originals before writes, for the run's diff.
        timeout_s: limit for anything that runs code, seconds.
        allow_secrets: let tools read .env files and keys.
        read_only: refuse every write.
        model_factory: ``() -> chat model``: the actor's model for a tool that calls one (the RLM
            tool), built on first use (a run's: the model is started only when a tool needs it,
            and its calls are recorded in the run's usage ledger); None: none given.
        budget_left: () -> (tokens, seconds) the run may still spend; a tool that runs its own
            model loop (the RLM tool) takes it as its child budget.
        run_dir: this run's folder under ``.codur/runs/``, or None.
        env_allow: environment variable names passed to child processes beyond
            :data:`codur.sandbox.bwrap.ENV_ALLOW` (exact names).
        cancel: the run's cancel event: once set, no write and no process starts, and a
            running process is killed.
        on_event: receives the events of what runs here (:mod:`codur.core.events`): a
            ``sandbox.fallback`` once, the first time code runs without bubblewrap; ``tests.run``,
            ``secret.redacted``, ``patch.risky``, ``tests.changed_files``.
        ledger: the run's usage ledger, told the seconds of each test run (:meth:`tests_ran`);
            None: no run's.
        test_command: how the repo's tests and code run (:mod:`codur.testing.command`): the
            run's, resolved from its settings; None: :meth:`tests` resolves the default once.
        memory_mb: the address-space limit (RLIMIT_AS) of every process :meth:`run` starts,
            MiB (config ``test_memory_mb``); None: no limit. Past it an allocation fails
            (a MemoryError in Python), so a test that eats memory fails like any test.
        allow_risky: write a Python file whose change adds risky code (network, processes,
            eval/exec, files outside the repo: :mod:`codur.tools.risk`) without asking
            (config ``allow_risky_patches``); else
        confirm_risky: ``confirm_risky(path, findings) -> bool`` approves such a write (the
            CLI's ``--confirm``); without either the write is refused. Either way a
            ``patch.risky`` event names the path, the findings and whether it was approved.
        network: under bubblewrap, let the processes :meth:`run` starts reach the network
            (config ``sandbox_network``); default none.
        tmp_mb: the size of their private /tmp, MiB (config ``sandbox_tmp_mb``; None: a share of
            the machine's memory, :func:`codur.sandbox.limits.default_tmp_mb`).
    """

    root: Path
    journal: ChangeJournal
    timeout_s: float = 120.0
    allow_secrets: bool = False
    read_only: bool = False
    model_factory: Callable[[], Any] | None = None
    budget_left: Callable[[], tuple[int, float]] | None = None
    run_dir: Path | None = None
    env_allow: tuple[str, ...] = ()
    cancel: threading.Event = field(default_factory=threading.Event)
    on_event: Callable[[Event], None] | None = None
    ledger: UsageLedger | None = None
    gate: CallGate = field(default_factory=CallGate, repr=False)
    test_command: TestCommand | None = None
    memory_mb: int | None = None
    allow_risky: bool = False
    network: bool = False
    tmp_mb: int | None = None
    confirm_risky: Callable[[str, list[str]], bool] | None = None
    fallback_noted: bool = field(default=False, repr=False)  # the sandbox.fallback event was sent
    _tested: threading.local = field(default_factory=threading.local, repr=False, compare=False)

    def tests(self) -> TestCommand:
        """The repo's test command: :attr:`test_command`, else the default one of
        :func:`codur.testing.command.resolve` (resolved once)."""
        if self.test_command is None:
            self.test_command = resolve_tests(self.root)
        return self.test_command

    def tests_ran(self, seconds: float) -> None:
        """A run of the repo's tests took ``seconds`` (wall time): the run's test time, told to
        :attr:`ledger`, and counted for the calling thread (:meth:`tests_seconds`), so the tool
        call around it is not also tool time."""
        self._tested.seconds = self.tests_seconds() + seconds
        if self.ledger is not None:
            self.ledger.spent("tests_s", seconds)

    def tests_seconds(self) -> float:
        """Seconds of test runs this thread has told (:meth:`tests_ran`) so far."""
        return getattr(self._tested, "seconds", 0.0)

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """A write or a process in flight, counted by :attr:`gate`.

        Raises:
            ToolError: the run is cancelled: nothing more is written or started.
        """
        if not self.gate.enter(self.cancel):
            raise ToolError("the run was cancelled: nothing more is changed or run")
        try:
            yield
        finally:
            self.gate.leave()

    def resolve(self, path: str | os.PathLike[str], *, must_exist: bool = False) -> Path:
        """Absolute path of ``path`` (relative to root) after resolving symlinks and '..'.

        Raises:
            ToolError: the path resolves outside the repo, or is missing when ``must_exist``.
        """
        raw = str(path).strip()
        if not raw:
            raise ToolError("empty path")
        if "\0" in raw:
            raise ToolError(f"path contains a NUL character: {raw!r}")
        candidate = Path(raw)
        if candidate.is_absolute() or raw.startswith("~"):
            raise ToolError(f"absolute paths are refused; give a path relative to the repo root: {raw}")
        resolved = (self.root / candidate).resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise ToolError(f"path escapes the repository: {raw}")
        if must_exist and not resolved.exists():
            raise ToolError(f"no such file or directory: {raw}")
        return resolved

    def rel(self, path: Path) -> str:
        """``path`` relative to root, POSIX style."""
        return path.relative_to(self.root).as_posix() or "."

    def read_text(self, path: str, *, max_bytes: int = MAX_READ_BYTES) -> str:
        """Read a text file of the repo: UTF-8, or the coding its first lines declare.

        Args:
            max_bytes: size limit; :data:`MAX_READ_BYTES` (1 MB) unless a caller reads
                only a line range.

        Raises:
            ToolError: missing, a directory, a FIFO or device, a secret, binary, over
                ``max_bytes``, or undecodable.
        """
        p = self.resolve(path, must_exist=True)
        rel = self.rel(p)
        if p.is_dir():
            raise ToolError(f"{rel} is a directory; use list_files")
        if (is_secret(rel) or is_secret(Path(path.strip()).as_posix())) and not self.allow_secrets:
            raise ToolError(f"{rel} may hold secrets and is not read (set allow_secrets to permit)")
        data = read_bytes_bounded(p, max_bytes, rel)
        if b"\0" in data[:8192]:
            raise ToolError(f"{rel} is a binary file")
        return decode_source(data, rel)

    def _check_writable(self, p: Path) -> str:
        rel = self.rel(p)
        if self.read_only:
            raise ToolError("the tool policy is read-only: no file may be changed")
        parts = set(Path(rel).parts)
        if parts & {".git", ".codur"}:
            raise ToolError(f"{rel} is inside .git or .codur and is not changed by tools")
        if is_secret(rel) and not self.allow_secrets:
            raise ToolError(f"{rel} may hold secrets and is not written")
        if p.is_dir():
            raise ToolError(f"{rel} is a directory")
        return rel

    def _no_symlink(self, path: str) -> None:
        if (self.root / Path(str(path).strip())).is_symlink():
            raise ToolError(f"{path} is a symbolic link; tools do not delete or move links")

    def write_many(self, changes: Mapping[str, str | None]) -> list[Path]:
        """Write (str) or delete (None) several files, all or nothing.

        Every path is checked before anything changes; each write is atomic and
        journaled; when one write fails, the files already changed are put back.

        Raises:
            ToolError: a path is outside the repo, read-only, a secret, a directory,
                or missing when it is to be deleted. Nothing has changed then.
        """
        with self.busy():
            return self._write_many(changes)

    def _write_many(self, changes: Mapping[str, str | None]) -> list[Path]:
        targets = self._checked_targets(changes)
        encoded = {p: encode_source(content, self.rel(p)) for p, content in targets if content is not None}
        for p, content in targets:
            if content is not None and p.suffix == ".py":
                self._check_risk(p, content)
        before = {p: p.read_bytes() if p.is_file() else None for p, _ in targets}
        for p, _ in targets:
            self.journal.record(p)
        done: list[Path] = []
        try:
            for p, content in targets:
                if content is None:
                    p.unlink()
                else:
                    atomic_write_bytes(p, encoded[p])
                done.append(p)
        except BaseException:
            _put_back(done, before)
            raise
        for p in done:
            self.journal.left(p)
        return [p for p, _ in targets]

    def _checked_targets(self, changes: Mapping[str, str | None]) -> list[tuple[Path, str | None]]:
        """``changes`` as (absolute path, content or None) once every path may be written or deleted."""
        targets = []
        for path, content in changes.items():
            p = self.resolve(path, must_exist=content is None)
            self._check_writable(p)
            if content is None:
                self._no_symlink(path)
            targets.append((p, content))
        return targets

    def _check_risk(self, p: Path, content: str) -> None:
        """Refuse (ToolError) a write of ``p`` whose ``content`` adds risky code, unless approved."""
        rel = self.rel(p)
        try:
            before = decode_source(p.read_bytes(), rel) if p.is_file() else None
        except (OSError, ToolError):
            before = None
        found = risk.added(before, content, own_modules(self.root, p))
        if not found:
            return
        approved = self.allow_risky or (self.confirm_risky is not None and self.confirm_risky(rel, found))
        if self.on_event:
            self.on_event(PatchRisky(path=rel, findings=found, approved=approved))
        if not approved:
            raise ToolError(f"{rel}: the change adds risky code ({'; '.join(found)}) and was not written; the user "
                            "must approve it (--confirm, or the setting allow_risky_patches)")

    def write_text(self, path: str, content: str) -> Path:
        """Write a file atomically, recording its original in the journal."""
        return self.write_many({path: content})[0]

    def delete(self, path: str) -> Path:
        """Delete a file (not a directory, not a symlink), recording its original."""
        return self.write_many({path: None})[0]

    def move(self, src: str, dst: str) -> Path:
        """Move (rename) a file inside the repo; refuses to overwrite ``dst``. Journaled.

        Raises:
            ToolError: ``src`` missing, a directory or a link; ``dst`` exists; either is refused.
        """
        with self.busy():
            return self._move(src, dst)

    def _move(self, src: str, dst: str) -> Path:
        s = self.resolve(src, must_exist=True)
        d = self.resolve(dst)
        self._check_writable(s)
        self._no_symlink(src)
        if d.exists() or d.is_symlink():
            raise ToolError(f"{dst} already exists; delete it first or choose another name")
        self._check_writable(d)
        self.journal.record(s)
        self.journal.record(d)
        d.parent.mkdir(parents=True, exist_ok=True)
        os.replace(s, d)
        self.journal.left(s)
        self.journal.left(d)
        return d

    def walk(self, start: str = ".", *, visible: bool = False) -> list[Path]:
        """Files under ``start``, skipping .git, .codur, virtualenvs and caches.

        Args:
            visible: only what the model may see: honour every .gitignore (nested
                ones included; ignored directories are not entered) and hide secret
                files unless ``allow_secrets``.
        """
        return walk_files(self.root, self.resolve(start, must_exist=True), visible=visible,
                          allow_secrets=self.allow_secrets)

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None, stdin: str | None = None,
            env: Mapping[str, str] | None = None, writable: Sequence[Path] = (),
            stop_on_output: Callable[[str], bool] | None = None, layer: Sequence[str] = ()) -> ProcessResult:
        """Run ``argv`` in the repo root with a timeout; the whole process group is killed on timeout,
        cancel or Ctrl-C. The environment is the allowlist (:mod:`codur.sandbox.bwrap`) plus
        ``env``; under bubblewrap when it works here (the repo and ``writable`` read-write,
        the rest read-only, a private /tmp, no network), else with a ``sandbox.fallback``
        event once. Output keeps its first and last 200 kB per stream; secrets in it (keys,
        tokens, private keys: :mod:`codur.sandbox.secrets`) are redacted, with a
        ``secret.redacted`` event.

        Args:
            argv: the command; ``argv[0]`` is looked up on PATH.
            timeout_s: limit in seconds; default the context's.
            stdin: text fed to the process.
            env: variables set for the child on top of the allowlist.
            writable: directories outside the repo the child may write (e.g. a report folder).
            stop_on_output: called with the stdout so far as it arrives; True kills the process
                group at once (``ProcessResult.stopped_early``).
            layer: under bubblewrap, mount the repo through this copy-on-write layer's arguments
                (:meth:`codur.sandbox.overlay.Layer.bwrap_args`).

        Raises:
            ToolError: the run is cancelled, or the command is not found or cannot be started.
        """
        with self.busy():
            return run_prepared(self, prepare(self, argv, env, writable, layer), timeout_s, stdin, stop_on_output)


def _put_back(done: list[Path], before: Mapping[Path, bytes | None]) -> None:
    """Undo the writes of ``done``: each file gets its ``before`` bytes again, or is removed when it had none."""
    for p in done:
        old = before[p]
        if old is None:
            p.unlink(missing_ok=True)
        else:
            atomic_write_bytes(p, old)
