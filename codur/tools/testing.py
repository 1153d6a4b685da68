"""Running the repo's tests and reading the result: the shared engine of run_pytest, observe and verify.

The command is the run's one test command (:mod:`codur.testing.command`); results come from
pytest's own JUnit XML report, not from scraping its console.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from codur.sandbox.lifetime import temp_dir
from codur.sandbox.secrets import redact
from codur.testing.command import PLUGIN, RUNTIME_DIR, TEST_TIMEOUT_S, TestCommand, own_plugins_off
from codur.tools import snapshot
from codur.tools.context import ToolContext

NO_TESTS_COLLECTED = 5
#: The one test of a command that reports no test ids (``make test``): passed or failed by its exit code.
WHOLE_COMMAND = "(the test command)"


@dataclass(frozen=True)
class TestReport:
    """A pytest run.

    Attributes:
        passed / failed: test ids (``path::name``); errors are counted in failed.
        tracebacks: test id → short failure text (pytest's --tb=short).
        exit_code: pytest's exit code; None on timeout.
        summary: one line, e.g. "3 passed, 1 failed".
        output: the tail of the console output.
        duration_s: seconds.
    """

    __test__ = False

    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: int = 0
    tracebacks: dict[str, str] = field(default_factory=dict)
    exit_code: int | None = 0
    summary: str = ""
    output: str = ""
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def collected_none(self) -> bool:
        return self.exit_code == NO_TESTS_COLLECTED

    def signature(self) -> str:
        """A stable key for "the same failure": sorted failing ids + each one's error line
        (the first ``E`` line of pytest's traceback, else its last line)."""
        parts = []
        for tid in sorted(self.failed):
            lines = self.tracebacks.get(tid, "").strip().splitlines() or [""]
            error = next((ln for ln in lines if ln.startswith("E ")), lines[-1])
            parts.append(f"{tid}|{error[:160]}")
        return "\n".join(parts) or f"exit={self.exit_code}"

    def render(self, max_tracebacks: int = 3, max_chars: int = 1500, max_ids: int = 30) -> str:
        """The report as the model reads it: the summary, ``passed: [...]`` and
        ``failed: [...]`` test ids (at most ``max_ids`` each), then the tracebacks of
        the first ``max_tracebacks`` failures (``max_chars`` characters each)."""
        if self.exit_code is None:
            return f"pytest timed out after {self.duration_s:.0f}s (an infinite loop?)\n{self.output[-800:]}"
        lines = [f"pytest: {self.summary} (exit code {self.exit_code})"]
        for label, ids in (("passed", self.passed), ("failed", self.failed)):
            if ids:
                more = [f"... {len(ids) - max_ids} more"] if len(ids) > max_ids else []
                lines.append(f"{label}: {[*ids[:max_ids], *more]}")
        if self.collected_none:
            lines.append("no tests were collected")
        elif self.exit_code not in (0, 1) or not (self.passed or self.failed or self.skipped):
            lines.append(self.output[-max_chars:])  # pytest itself failed: show why
        for tid in self.failed[:max_tracebacks]:
            lines.append(f"FAILED {tid}\n{self.tracebacks.get(tid, '')[-max_chars:]}")
        if len(self.failed) > max_tracebacks:
            lines.append(f"... and {len(self.failed) - max_tracebacks} more failing tests")
        return "\n".join(lines)


def _test_id(case: ET.Element) -> str:
    classname = case.get("classname", "")
    file = case.get("file")
    name = case.get("name", "")
    if file:
        parts = classname.split(".")
        module = Path(file).with_suffix("").as_posix().replace("/", ".")
        cls = ".".join(parts[len(module.split(".")):]) if classname.startswith(module) else ""
        return f"{file}::{cls}::{name}" if cls else f"{file}::{name}"
    module, _, cls = classname.rpartition(".")
    if module and cls[:1].isupper():
        return f"{module.replace('.', '/')}.py::{cls}::{name}"
    return f"{classname.replace('.', '/')}.py::{name}"


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


def per_test_limit(seconds: float) -> tuple[list[str], dict[str, str]]:
    """pytest options and environment that load the repair plugin with a per-test limit of
    ``seconds``: a test running longer fails with a TimeoutError raised where it loops."""
    path = os.pathsep.join(p for p in (str(RUNTIME_DIR), os.environ.get("PYTHONPATH", "")) if p)
    return ["-p", PLUGIN], {"PYTHONPATH": path, "CODUR_REPAIR_TEST_TIMEOUT": f"{seconds:g}"}


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
        passed, failed, tracebacks, skipped = [], [], {}, 0
        if xml.exists():
            for case in ET.parse(xml).getroot().iter("testcase"):
                tid = _test_id(case)
                bad = case.find("failure") if case.find("failure") is not None else case.find("error")
                if bad is not None:
                    failed.append(tid)
                    tracebacks[tid] = redact((bad.text or bad.get("message") or "").strip()).text
                elif case.find("skipped") is not None:
                    skipped += 1
                else:
                    passed.append(tid)
        elif not command.passes_args:  # a whole command: one test, judged by its exit code
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


_MISSING_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'")


def setup_problem(report: TestReport, command: TestCommand, root: Path) -> str | None:
    """Why the suite could not even start, in one line naming the command; None when it ran.

    The suite did not start when pytest is missing from the interpreter, pytest stopped with
    an internal or usage error (exit 3 or 4: a bad option in the test command), or no test
    passed and every failure (collection errors included) is a module that is not the repo's
    own and is not installed (a missing dependency). A failure in the repo's own code, even
    at import, is a bug to fix, not this.
    """
    where = f"tests run with: {command.describe(root)}"
    if report.exit_code is None:
        return None
    if "No module named pytest" in report.output and not (report.passed or report.failed):
        return f"pytest is not installed for {command.interpreter}; install it there or set test_command ({where})"
    if report.exit_code in (3, 4) and not report.passed:
        lines = [ln for ln in report.output.strip().splitlines() if ln.strip()]
        return f"the test command stopped with exit code {report.exit_code}: {(lines or [''])[-1][:200]} ({where})"
    if report.passed or not report.failed:
        return None
    missing = []
    for tid in report.failed:
        found = _MISSING_RE.search(report.tracebacks.get(tid, ""))
        if found is None or _own_module(root, found.group(1)):
            return None
        missing.append(found.group(1))
    first = report.failed[0]
    return (f"every test fails at import: No module named '{missing[0]}' ({len(report.failed)} of "
            f"{len(report.failed)}, first: {first}); is a dependency missing from the environment? ({where})")


def _own_module(root: Path, name: str) -> bool:
    """True when ``name``'s top-level package or module is the repo's own (or under src/)."""
    top = name.split(".")[0]
    return any((base / top).is_dir() or (base / f"{top}.py").is_file() for base in (root, root / "src"))
