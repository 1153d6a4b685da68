"""Running the repo's tests in the run's tool context: the shared engine of run_pytest, observe and verify.

The command is the run's one test command (:mod:`codur.testing.command`); results come from
pytest's own JUnit XML report, read by :mod:`codur.testing.report`, not from scraping its console.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from codur.sandbox.lifetime import temp_dir
from codur.testing.command import TEST_TIMEOUT_S, TestCommand, own_plugins_off
from codur.testing.report import WHOLE_COMMAND, TestReport, per_test_limit, read_junit
from codur.tools import snapshot
from codur.tools.context import ToolContext


def _temp_dirs_named(env: dict[str, str] | None) -> list[Path]:
    """Folders under the temp directory that ``env`` names files in (e.g. a plugin's report
    path): the sandboxed pytest may write there."""
    tmp = Path(tempfile.gettempdir()).resolve()
    out = []
    for value in (env or {}).values():
        if os.path.isabs(value) and os.pathsep not in value:
            folder = Path(value).resolve().parent
            if folder.is_dir() and folder.is_relative_to(tmp) and folder != tmp:
                out.append(folder)
    return out


def run_tests(ctx: ToolContext, selection: list[str] | None = None, *, timeout_s: float | None = None,
              extra_args: list[str] | None = None, env: dict[str, str] | None = None,
              test_timeout_s: float | None = None) -> TestReport:
    """Run the repo's test command (:meth:`ToolContext.tests`) and read pytest's JUnit XML report.

    A command that takes pytest's options gets the report's and ``extra_args``, and
    ``selection`` replaces its own test paths; any other command (``make test``) runs as
    configured and is one test, passed or failed by its exit code.

    Args:
        ctx: the tool context (repo root, timeout, test command).
        selection: test paths or node ids (relative to the repo); None runs everything.
        timeout_s: limit in seconds of the whole run; default ``ctx.timeout_s``. The process
            group is killed past it (the report then has ``exit_code`` None).
        env: extra environment variables for the test process; under bubblewrap, files they
            name in a temp folder stay writable (and visible to the caller).
        test_timeout_s: per-test limit in seconds (pytest commands; default
            :data:`codur.testing.command.TEST_TIMEOUT_S`, 0: none). A test over it fails with
            a TimeoutError whose traceback shows the line it was looping on, and the run goes
            on with the next test.

    What the run changed in the repo is reported and kept for ``codur undo``
    (:mod:`codur.tools.snapshot`, a ``tests.changed_files`` event).

    Raises:
        ToolError: the command is not found or cannot start, or the run was cancelled.
    """
    command = ctx.tests()
    test_timeout_s = TEST_TIMEOUT_S if test_timeout_s is None else test_timeout_s
    if command.is_pytest and test_timeout_s:
        plugin, limit_env = per_test_limit(test_timeout_s)
        extra_args, env = [*plugin, *(extra_args or [])], {**limit_env, **(env or {})}
    before = snapshot.take(ctx)
    try:
        return _run_tests(ctx, command, selection, timeout_s, extra_args, env)
    finally:
        _note_changes(ctx, before)


def _note_changes(ctx: ToolContext, before: dict[str, snapshot.FileState]) -> None:
    """Report what the run changed in the repo (:mod:`codur.tools.snapshot`): a
    ``tests.changed_files`` event, and each before-content kept in the change journal."""
    found = snapshot.changes(ctx, before)
    if not found:
        return
    for change in found:
        if change.restorable:
            ctx.journal.record_original(change.path, None if change.change == "created" else before[change.path].data)
    message = "; ".join(c.message for c in found)
    if ctx.on_event is None:
        logging.getLogger("codur.tools").warning(message)
        return
    ctx.on_event({"event_type": "tests.changed_files", "message": message,
                  "changes": [{"path": c.path, "change": c.change, "restorable": c.restorable} for c in found]})


def _run_tests(ctx: ToolContext, command: TestCommand, selection: list[str] | None, timeout_s: float | None,
               extra_args: list[str] | None, env: dict[str, str] | None) -> TestReport:
    with temp_dir("codur-pytest-") as tmp:
        xml = tmp / "report.xml"
        flags = ["-q", "--tb=short", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", f"--junitxml={xml}",
                 *(extra_args or [])]
        argv = command.run_argv(ctx.root, flags, selection)
        env = {**own_plugins_off(command.python), **(env or {})}
        proc = ctx.run(argv, timeout_s=timeout_s, env=env, writable=[tmp, *_temp_dirs_named(env)])
        output = (proc.stdout + proc.stderr)[-6000:]
        if ctx.on_event is not None:  # the run's "tests" wall time (observe, verify and the test tools)
            ctx.on_event({"event_type": "tests.run", "duration_s": round(proc.duration_s, 3),
                          "exit_code": proc.exit_code, "timed_out": proc.timed_out})
        if proc.timed_out:
            return TestReport(exit_code=None, summary="timed out", output=output, duration_s=proc.duration_s)
        passed, failed, tracebacks, skipped = read_junit(xml) if xml.exists() else ([], [], {}, 0)
        if not xml.exists() and not command.passes_args:  # a whole command: one test, judged by its exit code
            (passed if proc.exit_code == 0 else failed).append(WHOLE_COMMAND)
            if proc.exit_code != 0:
                tracebacks[WHOLE_COMMAND] = output[-3000:]
    _note_memory_limit(ctx, tracebacks)
    counts = ((len(passed), "passed"), (len(failed), "failed"), (skipped, "skipped"))
    summary = ", ".join(f"{n} {w}" for n, w in counts if n)
    return TestReport(passed, failed, skipped, tracebacks, proc.exit_code,
                      summary or "no tests ran", output, proc.duration_s)


def _note_memory_limit(ctx: ToolContext, tracebacks: dict[str, str]) -> None:
    """Say why a test ended in a MemoryError under the address-space limit (``ctx.memory_mb``):
    a line under its traceback (what the model reads) and a ``tests.memory_limit`` event."""
    if not ctx.memory_mb:
        return
    hit = sorted(t for t, text in tracebacks.items() if "MemoryError" in text)
    why = f"(the test process may use {ctx.memory_mb} MiB of address space: setting test_memory_mb)"
    for tid in hit:
        tracebacks[tid] = f"{tracebacks[tid]}\n{why}"
    if hit and ctx.on_event is not None:
        ctx.on_event({"event_type": "tests.memory_limit", "tests": hit, "memory_mb": ctx.memory_mb})
