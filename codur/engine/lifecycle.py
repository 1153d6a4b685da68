"""A run's lifecycle helpers: its folder (its id and git-ignore: :mod:`codur.tools.run_folder`),
the signal handlers that cancel it, and the bounded wait for its graph thread (no graph import
here: :mod:`codur.engine.local` uses them)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from codur.core.budget import Limits
from codur.engine.contracts import RunResult
from codur.tools.executor import ToolExecutor
from codur.tools.journal import UNDONE, ChangeJournal, atomic_write_bytes

#: A failed run's attempted diff, in its folder.
ATTEMPT = "attempt.patch"


def run_folder(repo: Path, run_id: str, dry_run: bool) -> tuple[Path, str]:
    """(the run's folder, a note): ``<repo>/.codur/runs/<run_id>``; for a dry run on a repo that
    cannot take it (read-only, ``.codur`` not a folder) a new folder in the temp dir, with the
    note saying why. A real run's folder is created later (its failure is the run's)."""
    run_dir = repo / ".codur" / "runs" / run_id
    if not dry_run:
        return run_dir, ""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if os.access(run_dir, os.W_OK):
            return run_dir, ""
        problem = "not writable"
    except OSError as exc:
        problem = f"{type(exc).__name__}: {exc.strerror or exc}"
    elsewhere = Path(tempfile.mkdtemp(prefix=f"codur-run-{run_id}-"))
    note = f"the repo cannot hold the run's folder ({run_dir}: {problem}); this dry run's folder is {elsewhere}"
    logging.getLogger("codur").warning(note)
    return elsewhere, note


def stop_worker(worker: threading.Thread, tools: ToolExecutor, timeout_s: float) -> bool:
    """Cancel the tools (no call starts, running processes are killed), then wait up to
    ``timeout_s`` seconds for the graph thread to end; a further Ctrl-C ends the wait.
    True when the thread has ended."""
    deadline = time.monotonic() + timeout_s
    with contextlib.suppress(KeyboardInterrupt):
        tools.stop(timeout_s)
        while worker.is_alive() and time.monotonic() < deadline:
            worker.join(0.1)
    return not worker.is_alive()


def wait_for_graph(worker: threading.Thread, cancel: threading.Event, grace_s: float) -> None:
    """Wait for the graph thread in short joins, so that the calling (main) thread keeps taking signals.

    Raises:
        KeyboardInterrupt: a second Ctrl-C, or the graph thread still running ``grace_s`` seconds
            after ``cancel`` was set (the graph did not stop in time: as a second Ctrl-C).
    """
    cancelled_at = None
    while worker.is_alive():
        worker.join(0.1)
        if cancel.is_set():
            cancelled_at = cancelled_at or time.monotonic()
            if time.monotonic() - cancelled_at > grace_s:
                raise KeyboardInterrupt


def cancel_on_signals(limits: Limits) -> Callable[[], None]:
    """Ctrl-C / SIGTERM set the cancel flag: the current model call finishes, no tool call
    starts any more, the next budget check ends the run with status cancelled, and the result
    is written as usual. A second signal raises KeyboardInterrupt in the waiting (main) thread,
    which then stops the tools and waits, bounded, for the graph thread. Only in the main
    thread; returns the function that puts the previous handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: object) -> None:
        if limits.cancel.is_set():
            raise KeyboardInterrupt
        limits.cancel.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    return lambda: [signal.signal(sig, old) for sig, old in previous.items()] and None


def revert_failed(result: RunResult, journal: ChangeJournal, run_dir: Path, *, keep: bool) -> RunResult:
    """Put back the edits of a run that ended without success (any status but ``success``)
    unless ``keep`` (setting ``keep_failed``, a dry run): its diff is written to
    ``<run_dir>/attempt.patch``, every file goes back as it was, atomically, by the journal's
    one way back (:meth:`ChangeJournal.restore`, as ``codur undo`` does), and the undo is
    recorded (``undone.json``). Call it with the repo lock held, once the run's final status
    is known. Returns ``result`` with ``metadata.reverted`` and ``metadata.attempt_path``
    set, or unchanged when nothing was put back."""
    if result.ok or keep or not journal.changed_files:
        return result
    attempt = run_dir / ATTEMPT
    atomic_write_bytes(attempt, result.diff.encode("utf-8", "surrogateescape"))
    restored, deleted = journal.restore()
    journal.record_undo(run_ended=result.status.value, restored=restored, deleted=deleted, overwritten=[])
    meta = result.metadata.model_copy(update={"reverted": True, "attempt_path": attempt})
    return result.model_copy(update={"metadata": meta})


def reopen(run_dir: Path) -> list[str]:
    """A resumed run's folder, before it goes on: the record that its changes were put back
    (``undone.json``: a failed or cancelled first start's revert, or a ``codur undo``) is moved
    aside to ``undone-<UTC time>.json``, so ``codur undo`` sees the resumed run's end and not the
    first start's. Returns the files that record says were put back (restored or deleted), [] when
    there is none."""
    import json

    record = run_dir / UNDONE
    try:
        body = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    with contextlib.suppress(OSError):
        os.replace(record, run_dir / f"undone-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json")
    files = body.get("restored", []) + body.get("deleted", []) if isinstance(body, dict) else []
    return sorted(str(f) for f in files)
