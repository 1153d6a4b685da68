"""Running the repo's tests in the run's tool context: the shared engine of run_pytest, observe and verify.

The command is the run's one test command (:mod:`codur.testing.command`), started by the one
test runner (:func:`codur.testing.runner.run_tests`) through the tool context's confined
process; results come from the repair plugin's report, the one report every test run of
codur writes, not from scraping pytest's console.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

from codur.core.events.tests import TestsMemoryLimit, TestsRun
from codur.sandbox import overlay
from codur.sandbox.bwrap import bwrap_executable, bwrap_problem
from codur.sandbox.lifetime import temp_dir
from codur.testing import runner
from codur.testing.command import TEST_TIMEOUT_S, TestCommand
from codur.testing.report import WHOLE_COMMAND, TestRun, read_report, records_of, run_of
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


def run_tests(ctx: ToolContext, selection: list[str] | None = None) -> TestRun:
    """Run the repo's test command (:meth:`ToolContext.tests`) and read the plugin's report.

    A command that takes pytest's options gets the plugin (:func:`codur.testing.runner.reporting_argv`),
    and ``selection`` replaces its own test paths; any other command
    (``make test``), or a wrapper's (``tox -e py --``) that wrote no report, runs as
    configured and is one test, passed or failed by its exit code.

    Args:
        ctx: the tool context (repo root, timeout, test command).
        selection: test paths or node ids (relative to the repo); None runs everything.

    The whole run may take ``ctx.timeout_s`` seconds: its process group is killed past it (the
    report then has ``exit_code`` None). Each test may take
    :data:`codur.testing.command.TEST_TIMEOUT_S` seconds (commands that take pytest's options):
    a test over it fails with a TimeoutError whose traceback shows the line it was looping on,
    and the run goes on with the next test.

    Under bubblewrap the tests see the repo through a copy-on-write layer
    (:mod:`codur.sandbox.overlay`): what they write, create or delete lands in the layer, is
    reported (a ``tests.changed_files`` event) and dropped, so the repo is never written by the
    suite and what the user saves meanwhile is theirs. Without an overlay, what the run changed in
    the repo is reported and kept for ``codur undo`` (:mod:`codur.tools.snapshot`). Under the tool policy
    read_only (``ctx.read_only``) the repo is mounted read-only for the tests
    (:meth:`ToolContext.run`), and what a run without bubblewrap changed anyway is put back
    at once (the event says ``"restored": true``): a read-only run leaves the repo as it was.

    Raises:
        ToolError: the command is not found or cannot start, or the run was cancelled.
    """
    command = ctx.tests()
    if not ctx.read_only and layered():
        with overlay.layer() as layer:
            try:
                return _run_tests(ctx, command, selection, layer.bwrap_args(ctx.root))
            finally:
                snapshot.note_layer(ctx, layer.changes(ctx.root))
    with snapshot.noted(ctx):
        return _run_tests(ctx, command, selection)


def layered() -> bool:
    """Whether test runs here go through a copy-on-write layer: bubblewrap works and can mount an overlay."""
    return bwrap_problem() is None and overlay.overlay_problem(bwrap_executable() or "bwrap") is None


def _run_tests(ctx: ToolContext, command: TestCommand, selection: list[str] | None,
               layer: list[str] | None = None) -> TestRun:
    with temp_dir("codur-pytest-") as tmp:
        out = tmp / "report.json"
        argv, plugin_env = runner.reporting_argv(command, ctx.root, out, selection=selection,
                                                 test_timeout_s=TEST_TIMEOUT_S)

        def launch(argv: list[str], env: dict[str, str], timeout_s: float | None):
            return ctx.run(argv, timeout_s=timeout_s, env=env, writable=[tmp, *_temp_dirs_named(env)],
                           layer=layer or ())

        proc = runner.run_tests(command, ctx.root, argv, plugin_env, None, launch=launch)
        output = proc.output[-6000:]
        ctx.tests_ran(proc.duration_s)  # the run's test time (observe, verify and the test tools)
        if ctx.on_event is not None:
            ctx.on_event(TestsRun(duration_s=round(proc.duration_s, 3), exit_code=proc.exit_code,
                                  timed_out=proc.timed_out))
        if proc.timed_out:
            return run_of(None, None, timed_out=True, duration_s=proc.duration_s, output=output, summary="timed out")
        found = read_report(out) if command.passes_args else None
    if found is None and not command.is_pytest:  # a whole command: one test, judged by its exit code
        ok = proc.exit_code == 0
        tests = records_of([WHOLE_COMMAND] if ok else [], [] if ok else [WHOLE_COMMAND],
                           {} if ok else {WHOLE_COMMAND: output[-3000:]})
    else:
        tests = found.tests if found is not None else {}
    return _note_memory_limit(ctx, run_of(tests, proc.exit_code, duration_s=proc.duration_s, output=output))


def _note_memory_limit(ctx: ToolContext, run: TestRun) -> TestRun:
    """``run`` with a line under the traceback (what the model reads) of each test that ended in a
    MemoryError under the address-space limit (``ctx.memory_mb``), said by a ``tests.memory_limit``
    event too."""
    if not ctx.memory_mb:
        return run
    hit = sorted(t for t, text in run.tracebacks.items() if "MemoryError" in text)
    if not hit:
        return run
    why = f"(the test process may use {ctx.memory_mb} MiB of address space: setting test_memory_mb)"
    tests = {tid: dataclasses.replace(rec, traceback=f"{rec.traceback}\n{why}") if tid in hit else rec
             for tid, rec in run.tests.items()}
    if ctx.on_event is not None:
        ctx.on_event(TestsMemoryLimit(tests=hit, memory_mb=ctx.memory_mb))
    return dataclasses.replace(run, tests=tests)
