"""The repo's test runs (observe, verify, the test tools)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codur.core.events.base import Event


@dataclass(frozen=True, kw_only=True)
class TestsCommand(Event, kind="tests.command"):
    """The test command the run uses, said once by observe."""

    command: str
    argv: list[str]
    origin: str


@dataclass(frozen=True, kw_only=True)
class TestsOutsideSuite(Event, kind="tests.outside_suite"):
    """Tests the task names that the test command does not collect."""

    tests: list[str]
    message: str


@dataclass(frozen=True, kw_only=True)
class TestsSetupFailed(Event, kind="tests.setup_failed"):
    """The tests could not start (an import error, a missing plugin)."""

    problem: str


@dataclass(frozen=True, kw_only=True)
class TestsRun(Event, kind="tests.run"):
    """One run of the tests ended: its wall time (seconds), exit code (None: it timed out), whether it timed
    out."""

    duration_s: float
    exit_code: int | None
    timed_out: bool


@dataclass(frozen=True, kw_only=True)
class TestsMemoryLimit(Event, kind="tests.memory_limit"):
    """Tests that ended in a MemoryError under the address-space limit (MiB)."""

    tests: list[str]
    memory_mb: int | None


@dataclass(frozen=True, kw_only=True)
class TestsChangedFiles(Event, kind="tests.changed_files"):
    """The repo's tests changed files of the repo (put back when read-only): ``changes`` are ``{path, change,
    restorable}``."""

    message: str
    by: str
    restored: bool
    changes: list[dict[str, Any]]
