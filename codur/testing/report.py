"""A test run's report as codur reads it: :class:`TestReport` (passed and failed test ids, the
failures' tracebacks), read from pytest's JUnit XML (:func:`read_junit`, test ids by
:func:`codur.testing.ids.junit_test_id`), and why a suite could not even start
(:func:`setup_problem`). The run itself: :func:`codur.tools.testing.run_tests`.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from codur.sandbox.secrets import redact
from codur.testing.command import PLUGIN, RUNTIME_DIR, TestCommand
from codur.testing.ids import junit_test_id

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


def read_junit(xml: Path) -> tuple[list[str], list[str], dict[str, str], int]:
    """(passed ids, failed ids, failed id → traceback (secrets redacted), skipped count) of a
    JUnit XML report; errors count as failures."""
    passed, failed, tracebacks, skipped = [], [], {}, 0
    for case in ET.parse(xml).getroot().iter("testcase"):
        tid = junit_test_id(case)
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is not None:
            failed.append(tid)
            tracebacks[tid] = redact((bad.text or bad.get("message") or "").strip()).text
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed.append(tid)
    return passed, failed, tracebacks, skipped


def per_test_limit(seconds: float) -> tuple[list[str], dict[str, str]]:
    """pytest options and environment that load the repair plugin with a per-test limit of
    ``seconds``: a test running longer fails with a TimeoutError raised where it loops."""
    path = os.pathsep.join(p for p in (str(RUNTIME_DIR), os.environ.get("PYTHONPATH", "")) if p)
    return ["-p", PLUGIN], {"PYTHONPATH": path, "CODUR_REPAIR_TEST_TIMEOUT": f"{seconds:g}"}


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
