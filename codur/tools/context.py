"""ToolContext: what a tool gets from the ToolExecutor — the repo root and safe primitives.

Tools never touch the filesystem or start processes except through these methods,
so the confinement, secret, size, atomic-write and timeout rules live in one place.
"""

from __future__ import annotations

import fnmatch
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.tools.journal import ChangeJournal, atomic_write_bytes

MAX_READ_BYTES = 1_000_000
SECRET_PATTERNS = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "*.p12", ".netrc", ".pypirc")
SECRET_ENV_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")
IGNORED_DIRS = {".git", ".codur", ".venv", "venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules", ".tox"}


class ToolError(Exception):
    """A tool failure the model can read and act on (bad path, no match, timeout...)."""


@dataclass(frozen=True)
class ProcessResult:
    """Outcome of :meth:`ToolContext.run`. ``exit_code`` is None on timeout."""

    argv: tuple[str, ...]
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False


def is_secret(rel: str) -> bool:
    """True for files that commonly hold credentials (.env, keys, certificates)."""
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(name, pat) for pat in SECRET_PATTERNS)


def scrubbed_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without API keys, tokens and passwords, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not any(m in k.upper() for m in SECRET_ENV_MARKERS)}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def kill_process_group(proc: subprocess.Popen, grace_s: float = 1.0) -> None:
    """SIGTERM then SIGKILL the whole process group of ``proc`` (started with start_new_session)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=grace_s)
            if sig == signal.SIGKILL:
                return
        except subprocess.TimeoutExpired:
            continue


@dataclass
class ToolContext:
    """Injected into every tool call as ``ctx``.

    Attributes:
        root: the repository root (resolved, absolute).
        journal: records originals before writes, for the run's diff.
        timeout_s: limit for anything that runs code, seconds.
        allow_secrets: let tools read .env files and keys.
        read_only: refuse every write.
        model: the actor's chat model, for tools that call a model (e.g. the RLM tool).
        run_dir: this run's folder under ``.codur/runs/``, or None.
    """

    root: Path
    journal: ChangeJournal
    timeout_s: float = 120.0
    allow_secrets: bool = False
    read_only: bool = False
    model: Any = None
    run_dir: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def resolve(self, path: str | os.PathLike[str], *, must_exist: bool = False) -> Path:
        """Absolute path of ``path`` (relative to root) after resolving symlinks and '..'.

        Raises:
            ToolError: the path resolves outside the repo, or is missing when ``must_exist``.
        """
        raw = str(path).strip()
        if not raw:
            raise ToolError("empty path")
        candidate = Path(raw)
        if candidate.is_absolute():
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

    def read_text(self, path: str) -> str:
        """Read a UTF-8 text file of the repo.

        Raises:
            ToolError: missing, a directory, a secret, binary, or over 1 MB.
        """
        p = self.resolve(path, must_exist=True)
        rel = self.rel(p)
        if p.is_dir():
            raise ToolError(f"{rel} is a directory; use list_files")
        if is_secret(rel) and not self.allow_secrets:
            raise ToolError(f"{rel} may hold secrets and is not read (set allow_secrets to permit)")
        size = p.stat().st_size
        if size > MAX_READ_BYTES:
            raise ToolError(f"{rel} is {size} bytes, over the {MAX_READ_BYTES}-byte limit; read a line range or grep")
        data = p.read_bytes()
        if b"\0" in data[:8192]:
            raise ToolError(f"{rel} is a binary file")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(f"{rel} is not UTF-8 text ({exc.reason})") from None

    def _check_writable(self, p: Path) -> str:
        rel = self.rel(p)
        if self.read_only:
            raise ToolError("the tool policy is read-only: no file may be changed")
        parts = set(Path(rel).parts)
        if parts & {".git", ".codur"}:
            raise ToolError(f"{rel} is inside .git or .codur and is not changed by tools")
        if is_secret(rel) and not self.allow_secrets:
            raise ToolError(f"{rel} may hold secrets and is not written")
        return rel

    def write_text(self, path: str, content: str) -> Path:
        """Write a file atomically, recording its original in the journal."""
        p = self.resolve(path)
        self._check_writable(p)
        if p.is_dir():
            raise ToolError(f"{self.rel(p)} is a directory")
        self.journal.record(p)
        atomic_write_bytes(p, content.encode("utf-8"))
        return p

    def delete(self, path: str) -> Path:
        """Delete a file (not a directory), recording its original."""
        p = self.resolve(path, must_exist=True)
        self._check_writable(p)
        if p.is_dir():
            raise ToolError(f"{self.rel(p)} is a directory; only files are deleted")
        self.journal.record(p)
        p.unlink()
        return p

    def walk(self, start: str = ".") -> list[Path]:
        """Files under ``start``, skipping .git, .codur, virtualenvs and caches."""
        base = self.resolve(start, must_exist=True)
        if base.is_file():
            return [base]
        out = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS and not d.endswith(".egg-info"))
            out.extend(Path(dirpath) / f for f in sorted(filenames))
        return out

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None, stdin: str | None = None,
            env: Mapping[str, str] | None = None, cwd: str = ".",
            on_start: Callable[[subprocess.Popen], None] | None = None) -> ProcessResult:
        """Run ``argv`` in the repo with a timeout; the whole process group is killed on timeout
        or Ctrl-C. The environment has API keys removed.

        Args:
            argv: the command; ``argv[0]`` is looked up on PATH.
            timeout_s: limit in seconds; default the context's.
            stdin: text fed to the process.
        """
        limit = self.timeout_s if timeout_s is None else timeout_s
        t0 = time.monotonic()
        try:
            proc = subprocess.Popen(
                list(argv), cwd=self.resolve(cwd, must_exist=True), env=scrubbed_env(env),
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                start_new_session=True,
            )
        except FileNotFoundError:
            raise ToolError(f"command not found: {argv[0]}") from None
        if on_start:
            on_start(proc)
        try:
            out, err = proc.communicate(stdin, timeout=limit)
        except subprocess.TimeoutExpired:
            kill_process_group(proc)
            out, err = proc.communicate()
            return ProcessResult(tuple(argv), None, out, err, time.monotonic() - t0, timed_out=True)
        except BaseException:
            kill_process_group(proc)
            raise
        return ProcessResult(tuple(argv), proc.returncode, out, err, time.monotonic() - t0)
