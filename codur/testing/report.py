"""A test run's report as codur reads it, one format for every run: the repair plugin's JSON
(``_runtime/codur_repair_plugin.py``, ``CODUR_REPAIR_OUT``), read by :func:`read_report` into a
:class:`TestRun` of :class:`TestRecord` keyed by test id (pytest's node id,
:mod:`codur.testing.ids`); :class:`TestReport`, what observe, verify and the ``run_pytest``
tool say of a run (passed and failed ids, the failures' tracebacks, built by
:func:`report_from`); and why a suite could not even start (:func:`setup_problem`). Every
run that writes it starts through :func:`codur.testing.runner.run_tests`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from codur.sandbox.secrets import redact
from codur.testing.command import TestCommand

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


@dataclass(frozen=True)
class TestRecord:
    """One test (or collector that failed) of a run, as the plugin recorded it.

    Attributes:
        nodeid: the test id (pytest's node id; a failed collector's id is its file).
        outcome: "passed", "failed" (an error in setup or teardown, a failed collector, a
            strict xpass too) or "skipped" (xfailed, a skipped module too).
        duration: seconds, every phase.
        path: the test's file; absolute as the plugin writes it, relative to the repo in a
            :class:`codur.validate.localize.Localization` ("" when unknown).
        timed_out: stopped by the per-test time limit.
        message: a failed test's exception, pytest's short form (assertions rewritten: the values).
        traceback: a failed test's report text in the run's ``--tb`` style, secrets redacted.
        frames / hang: (file, line) of the failure's traceback / of the stack where the time
            limit found the test, outermost first.
    """

    __test__ = False

    nodeid: str
    outcome: str
    duration: float = 0.0
    path: str = ""
    timed_out: bool = False
    message: str = ""
    traceback: str = ""
    frames: tuple[tuple[str, int], ...] = ()
    hang: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class TestRun:
    """A run's report: ``tests`` by test id, in run order; ``lines``: file path -> line ->
    the test ids that ran it ("" for import time; only when coverage was collected)."""

    __test__ = False

    tests: dict[str, TestRecord] = field(default_factory=dict)
    lines: dict[str, dict[int, list[str]]] = field(default_factory=dict)

    def outcomes(self) -> dict[str, str]:
        """Test id -> outcome."""
        return {tid: rec.outcome for tid, rec in self.tests.items()}


def parse_report(data: dict) -> TestRun:
    """The :class:`TestRun` of the plugin's JSON object ``data`` (``{"tests": {...}, "lines": {...}}``).

    Raises:
        KeyError, TypeError, ValueError: ``data`` is not such a report.
    """
    def frames(items) -> tuple[tuple[str, int], ...]:
        return tuple((str(p), int(n)) for p, n in items or ())

    tests = {tid: TestRecord(tid, rec["outcome"], float(rec.get("duration") or 0.0), rec.get("path") or "",
                             bool(rec.get("timed_out")), rec.get("message") or "",
                             redact(rec["traceback"]).text.strip() if rec.get("traceback") else "",
                             frames(rec.get("frames")), frames(rec.get("hang")))
             for tid, rec in data["tests"].items()}
    lines = {path: {int(n): list(ids) for n, ids in by_line.items()} for path, by_line in data.get("lines", {}).items()}
    return TestRun(tests, lines)


def read_report(path: Path) -> TestRun | None:
    """The plugin's report at ``path``; None when the run wrote none (pytest could not start,
    the run was killed, the plugin could not load) or it does not parse."""
    try:
        return parse_report(json.loads(Path(path).read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def report_from(run: TestRun | None, exit_code: int | None, output: str, duration_s: float) -> TestReport:
    """The :class:`TestReport` of a pytest run whose plugin report is ``run`` (None: no test
    reported), ``exit_code`` (None: timed out), console ``output`` and ``duration_s`` seconds."""
    records = list(run.tests.values()) if run is not None else []
    passed = [r.nodeid for r in records if r.outcome == "passed"]
    failed = [r.nodeid for r in records if r.outcome == "failed"]
    skipped = sum(r.outcome == "skipped" for r in records)
    return report_of(passed, failed, skipped, {r.nodeid: r.traceback for r in records if r.outcome == "failed"},
                     exit_code, output, duration_s)


def report_of(passed: list[str], failed: list[str], skipped: int, tracebacks: dict[str, str],
              exit_code: int | None, output: str, duration_s: float) -> TestReport:
    """A :class:`TestReport` with its one-line summary ("3 passed, 1 failed", else "no tests ran")."""
    counts = ((len(passed), "passed"), (len(failed), "failed"), (skipped, "skipped"))
    summary = ", ".join(f"{n} {w}" for n, w in counts if n)
    return TestReport(passed, failed, skipped, tracebacks, exit_code, summary or "no tests ran", output, duration_s)


_MISSING_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'")


#: What a process that cannot get memory at start prints (the loader, CPython, the kernel's errno).
_NO_MEMORY_RE = re.compile(r"MemoryError|failed to map segment|Cannot allocate memory|out of memory", re.I)


def setup_problem(report: TestReport, command: TestCommand, root: Path, memory_mb: int | None = None) -> str | None:
    """Why the suite could not even start, in one line naming the command; None when it ran.

    The suite did not start when no test ran and the output says memory could not be had under
    the address-space limit ``memory_mb`` (MiB; the setting ``test_memory_mb``: named in the
    message), when pytest is missing from the interpreter, pytest stopped with
    an internal or usage error (exit 3 or 4: a bad option in the test command), or no test
    passed and every failure (collection errors included) is a module that is not the repo's
    own and is not installed (a missing dependency). A failure in the repo's own code, even
    at import, is a bug to fix, not this.
    """
    where = f"tests run with: {command.describe(root)}"
    if report.exit_code is None:
        return None
    nothing_ran = not (report.passed or report.failed) and report.exit_code not in (0, 5)
    if memory_mb and nothing_ran and (found := _NO_MEMORY_RE.search(report.output)):
        line = next((ln.strip() for ln in report.output.splitlines() if found.group(0) in ln), found.group(0))
        return (f"the test command cannot start under the memory limit of {memory_mb} MiB (test_memory_mb; raise "
                f"it, or 0 for none): {line[:200]} ({where})")
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
