"""A run of the repo's tests as codur reads it, in two types: :class:`TestRun`, one run
(what the process did: exit code, time limit, wall time, output; and what the repair plugin's
report said: each test by id, line coverage), and :class:`TestRecord`, one test of it. Every run
starts through :func:`codur.testing.runner.run_tests`; the plugin's JSON
(``_runtime/codur_repair_plugin.py``, ``CODUR_REPAIR_OUT``) is read by :func:`read_report`.
Test ids are pytest's node ids (:mod:`codur.testing.ids`). Why a suite could not even start:
:func:`setup_problem`.
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
    """One run of the repo's tests, whoever started it (observe, verify, the ``run_pytest``
    tool, fault localization, a validator's worker).

    Attributes:
        exit_code: the process's exit code (pytest's); None when it was killed (past its
            time limit, cancelled).
        timed_out: stopped at the run's time limit (a worker's pytest run too when a test hit
            the per-test limit: :data:`codur.validate.worker.TEST_TIMEOUT_EXIT`).
        duration_s: wall time, seconds.
        tests: test id -> :class:`TestRecord`, in run order ({} when the plugin wrote no report).
        lines: line coverage, file path -> line -> the test ids that ran it ("" for import
            time); {} unless collected.
        summary: one line, e.g. "3 passed, 1 failed" (:func:`summary_of`), "timed out".
        output: the tail of the console output ("" for a fork server's run, which keeps none).
    """

    __test__ = False

    exit_code: int | None = 0
    timed_out: bool = False
    duration_s: float = 0.0
    tests: dict[str, TestRecord] = field(default_factory=dict)
    lines: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    summary: str = ""
    output: str = ""

    def ids(self, outcome: str) -> list[str]:
        """The ids of the tests whose outcome is ``outcome`` ("passed", "failed", "skipped"), in run order."""
        return [tid for tid, rec in self.tests.items() if rec.outcome == outcome]

    @property
    def passed(self) -> list[str]:
        """Ids of the tests that passed."""
        return self.ids("passed")

    @property
    def failed(self) -> list[str]:
        """Ids of the tests that failed (errors and failed collectors among them)."""
        return self.ids("failed")

    @property
    def skipped(self) -> int:
        """How many tests were skipped (xfailed among them)."""
        return sum(rec.outcome == "skipped" for rec in self.tests.values())

    @property
    def tracebacks(self) -> dict[str, str]:
        """Failing test id -> its failure text (the run's ``--tb`` style)."""
        return {tid: rec.traceback for tid, rec in self.tests.items() if rec.outcome == "failed"}

    @property
    def ok(self) -> bool:
        """The process exited 0."""
        return self.exit_code == 0

    @property
    def collected_none(self) -> bool:
        """pytest collected no test (its exit code 5)."""
        return self.exit_code == NO_TESTS_COLLECTED

    @property
    def status(self) -> str:
        """The run in one word: "timeout" (:attr:`timed_out`), "aborted" (killed otherwise),
        "passed" (exit 0) or "failed"."""
        if self.timed_out:
            return "timeout"
        if self.exit_code is None:
            return "aborted"
        return "passed" if self.exit_code == 0 else "failed"

    def outcomes(self) -> dict[str, str]:
        """Test id -> outcome."""
        return {tid: rec.outcome for tid, rec in self.tests.items()}

    def signature(self) -> str:
        """A stable key for "the same failure": sorted failing ids + each one's error line
        (the first ``E`` line of pytest's traceback, else its last line)."""
        parts = []
        for tid in sorted(self.failed):
            lines = self.tests[tid].traceback.strip().splitlines() or [""]
            error = next((ln for ln in lines if ln.startswith("E ")), lines[-1])
            parts.append(f"{tid}|{error[:160]}")
        return "\n".join(parts) or f"exit={self.exit_code}"

    def render(self, max_tracebacks: int = 3, max_chars: int = 1500, max_ids: int = 30) -> str:
        """The run as the model reads it: the summary, ``passed: [...]`` and
        ``failed: [...]`` test ids (at most ``max_ids`` each), then the tracebacks of
        the first ``max_tracebacks`` failures (``max_chars`` characters each)."""
        if self.exit_code is None:
            return f"pytest timed out after {self.duration_s:.0f}s (an infinite loop?)\n{self.output[-800:]}"
        lines = [f"pytest: {self.summary} (exit code {self.exit_code})"]
        passed, failed = self.passed, self.failed
        for label, ids in (("passed", passed), ("failed", failed)):
            if ids:
                more = [f"... {len(ids) - max_ids} more"] if len(ids) > max_ids else []
                lines.append(f"{label}: {[*ids[:max_ids], *more]}")
        if self.collected_none:
            lines.append("no tests were collected")
        elif self.exit_code not in (0, 1) or not (passed or failed or self.skipped):
            lines.append(self.output[-max_chars:])  # pytest itself failed: show why
        for tid in failed[:max_tracebacks]:
            lines.append(f"FAILED {tid}\n{self.tests[tid].traceback[-max_chars:]}")
        if len(failed) > max_tracebacks:
            lines.append(f"... and {len(failed) - max_tracebacks} more failing tests")
        return "\n".join(lines)


def summary_of(tests: dict[str, TestRecord]) -> str:
    """One line of counts ("3 passed, 1 failed, 2 skipped"), else "no tests ran"."""
    counts = {w: sum(r.outcome == w for r in tests.values()) for w in ("passed", "failed", "skipped")}
    return ", ".join(f"{n} {w}" for w, n in counts.items() if n) or "no tests ran"


def run_of(tests: dict[str, TestRecord] | None, exit_code: int | None, *, timed_out: bool = False,
           duration_s: float = 0.0, output: str = "", lines: dict[str, dict[int, list[str]]] | None = None,
           summary: str = "") -> TestRun:
    """A :class:`TestRun` of ``tests`` (None: no report) whose summary is ``summary``, else
    :func:`summary_of` its tests (``duration_s`` in seconds)."""
    tests = dict(tests or {})
    return TestRun(exit_code, timed_out, duration_s, tests, dict(lines or {}), summary or summary_of(tests), output)


def records_of(passed: list[str] | tuple[str, ...] = (), failed: list[str] | tuple[str, ...] = (),
               tracebacks: dict[str, str] | None = None) -> dict[str, TestRecord]:
    """Test id -> :class:`TestRecord` of the ``passed`` then ``failed`` ids (a failed one with
    its text from ``tracebacks``): a run whose outcomes are known without the plugin's report."""
    out = {tid: TestRecord(tid, "passed") for tid in passed}
    out.update({tid: TestRecord(tid, "failed", traceback=(tracebacks or {}).get(tid, "")) for tid in failed})
    return out


def parse_report(data: dict) -> TestRun:
    """The :class:`TestRun` of the plugin's JSON object ``data`` (``{"tests": {...}, "lines": {...}}``):
    its tests and coverage (the process's fields are the caller's to add).

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
    return run_of(tests, 0, lines=lines)


def read_report(path: Path) -> TestRun | None:
    """The plugin's report at ``path`` (:func:`parse_report`); None when the run wrote none (pytest
    could not start, the run was killed, the plugin could not load) or it does not parse."""
    try:
        return parse_report(json.loads(Path(path).read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


_MISSING_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'")


#: What a process that cannot get memory at start prints (the loader, CPython, the kernel's errno).
_NO_MEMORY_RE = re.compile(r"MemoryError|failed to map segment|Cannot allocate memory|out of memory", re.I)


def setup_problem(report: TestRun, command: TestCommand, root: Path, memory_mb: int | None = None) -> str | None:
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
