"""The records the graph state keeps (frozen pydantic models, one per kind of step): observe's
reading of the suite (its :class:`codur.testing.report.TestRun` inside) and observation, the
plan, the task's scope, the last Act step's outcome, an agent's tool call. The state that holds
them, its reducers and readers: :mod:`codur.graph.state`."""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from codur.core.contracts import PatchStatus
from codur.core.fields import FieldAccess
from codur.core.ports import QuotaStatus
from codur.testing.report import TestRecord, TestRun


class Record(FieldAccess, BaseModel):
    """A declared state value: nodes write new ones (``model_copy(update=...)``), never mutate.

    Its fields also read as a mapping (``outcome["status"]``, ``outcome.get("summary")``:
    :class:`codur.core.fields.FieldAccess`), read-only. A field typed with an outcome enum takes
    only its words and keeps the word (the enum's value): the state, the trace and
    ``result.json`` hold the same words as a plain ``str`` field would.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=True, validate_default=True)


#: Failing test ids observe keeps of its run (the patch search starts from them).
MAX_FAILED_IDS = 1000
#: What the agent's first prompt shows of observe's run: tracebacks, characters of each.
REPORT_TRACEBACKS, REPORT_CHARS = 2, 1200


class TestObservation(Record):
    """observe's reading of the test suite: its run (:class:`codur.testing.report.TestRun`, as the
    state keeps it: :func:`kept_run`) and what is not the run's outcome.

    Attributes:
        run: the run; ``summary``, ``exit_code``, ``failed``, ``passed_count``, ``report`` and
            ``duration_s`` read it.
        command: the test command, as said to the user (``.venv/bin/python -m pytest (.venv)``).
        setup_problem: why the suite could not even start ("" when it ran).
        selection: the tests observe ran when the user named some (``--tests``; []: the whole suite).
        targets: the failing tests the task names ([]: every failing test is the task's); the
            other failing tests failed before any change and are not held against the run.
        outside_suite: tests the task named that the project's own test command does not
            collect (its configuration excludes them): never run, said in the summary.
    """

    __test__ = False

    run: TestRun = Field(default_factory=TestRun)
    command: str = ""
    setup_problem: str = ""
    selection: list[str] = Field(default_factory=list)
    targets: list[str] = Field(default_factory=list)
    outside_suite: list[str] = Field(default_factory=list)

    @property
    def summary(self) -> str:
        """The run's one line, e.g. "2 failed, 5 passed"."""
        return self.run.summary

    @property
    def exit_code(self) -> int | None:
        """The run's exit code (None: it timed out)."""
        return self.run.exit_code

    @property
    def duration_s(self) -> float:
        """The run's wall time, seconds."""
        return self.run.duration_s

    @property
    def failed(self) -> list[str]:
        """Failing test ids (at most :data:`MAX_FAILED_IDS`; one placeholder when the run timed out)."""
        failed = self.run.failed
        return failed or (["(the test run timed out)"] if self.run.exit_code is None else [])

    @property
    def passed_count(self) -> int:
        """How many tests passed."""
        return len(self.run.passed)

    @property
    def report(self) -> str:
        """The run as the agent's first prompt shows it: the failures (only the targets' when
        the task names tests) with their tracebacks, cut (:data:`REPORT_TRACEBACKS`, :data:`REPORT_CHARS`)."""
        run = self.run
        if self.targets:
            run = dataclasses.replace(run, tests={t: r for t, r in run.tests.items()
                                                  if r.outcome != "failed" or t in self.targets})
        return run.render(max_tracebacks=REPORT_TRACEBACKS, max_chars=REPORT_CHARS)


def kept_run(run: TestRun, targets: list[str]) -> TestRun:
    """``run`` as the state keeps it (checkpointed at each step): no coverage, the output's
    last :data:`REPORT_CHARS`, the first :data:`MAX_FAILED_IDS` failing tests (and ``targets``),
    each test reduced to its id and outcome but the failures the prompt shows (``targets``, else
    the first :data:`REPORT_TRACEBACKS`), which keep their traceback; wall time to the millisecond."""
    failed = run.failed
    shown = set((targets or failed)[:REPORT_TRACEBACKS])
    keep = set(failed[:MAX_FAILED_IDS]) | set(targets)
    tests = {tid: TestRecord(tid, rec.outcome, traceback=rec.traceback if tid in shown else "")
             for tid, rec in run.tests.items() if rec.outcome != "failed" or tid in keep}
    return dataclasses.replace(run, tests=tests, lines={}, output=run.output[-REPORT_CHARS:],
                               duration_s=round(run.duration_s, 3))


class Observation(Record):
    """What observe found, plus the suspicious lines localization adds later.

    Attributes:
        files: Python files (repo-relative, at most MAX_FILES); file_count: all of them.
        has_tests: the repo has pytest-style test files; tests: the suite's run, when it has.
        sources: numbered source of the modules the failing tests import (path -> text).
        suspicious: top suspicious lines ({path, line, score, text}) for the agent's prompt.
        functions: the most suspicious functions across files ({path, function, start, end,
            score}: :func:`codur.patch.ranking.summary`) for the agent's prompt.
        changed_tests: test files added or changed in the working tree against git HEAD when
            the run started (:func:`codur.graph.task_scope.changed_test_files`).
    """

    files: list[str] = Field(default_factory=list)
    file_count: int = 0
    has_tests: bool = False
    tests: TestObservation | None = None
    sources: dict[str, str] = Field(default_factory=dict)
    suspicious: list[dict[str, Any]] | None = None
    functions: list[dict[str, Any]] | None = None
    changed_tests: list[str] = Field(default_factory=list)


class PlanInfo(Record):
    """The plan node's details.

    Attributes:
        source: "fast_path", "planner" or "fallback" (the planner failed: model_error says why).
        steps: the planner's steps (at most 6); agent: the agent chosen.
    """

    source: str = "fast_path"
    steps: list[str] = Field(default_factory=list)
    agent: str | None = None
    model_error: str | None = None


class TaskScope(Record):
    """Which failing tests are about the task, decided once by the first plan
    (:mod:`codur.graph.planning.scope`); routing, scope and verification read it.

    Attributes:
        plain_fix: the task says "make the failing tests pass" (or "fix the failing test", "fix the bug").
        related: the tests failing at the start that are about the task (the fixers work on them,
            and their passing is the task's proof).
        unrelated: the other tests failing at the start: never fixed for the task, never held against it.
        decided_by: "rules" (:func:`codur.graph.planning.task.relate`), "planner" (the planner
            model's short call), "no_model" (the rules could not tell and no model may decide:
            the tests in doubt are unrelated) or "planner_failed" (the call failed: the same).
        why: one line, for the trace and the summary.
    """

    plain_fix: bool = False
    related: list[str] = Field(default_factory=list)
    unrelated: list[str] = Field(default_factory=list)
    decided_by: str = "rules"
    why: str = ""


class TurnStatus(StrEnum):
    """How an agent's turn ended (:attr:`AgentOutcome.status` of an agent; the patch pipeline's
    is a :class:`codur.core.contracts.PatchStatus` word)."""

    DELEGATED = "delegated"  # handed to the agent, not run yet
    COMPLETED = "completed"  # the agent finished without an error (not: the task is solved)
    FAILED = "failed"  # the turn failed (an outage, an agent error, after the retries)


class AgentOutcome(Record):
    """The last Act step: an agent's turn (execute), the patch pipeline's result (patch), or a
    turn just delegated.

    Attributes:
        agent: the agent's name ("patch" for the pipeline); status: a :class:`TurnStatus` word,
            or the pipeline's :class:`codur.core.contracts.PatchStatus` word (patched, not_found, error, ...).
        summary: the agent's last words (or the patch's label); attempts, exit_code, quota,
            tool_calls, dry_run: the AgentRunner's report; edits: files this step changed.
        stop_reason: how the agent's loop ended (done, no_tool_call, max_iterations, repeating,
            stopped: <limit>); '' when the agent does not say.
        elapsed_s: how long the step took, seconds (an agent's turn or the patch pipeline).
        source, provenance, tried, files, reverted: the patch pipeline's.
    """

    agent: str
    status: TurnStatus | PatchStatus
    summary: str = ""
    attempts: int = 0
    dry_run: bool = False
    exit_code: int = 0
    quota: QuotaStatus = QuotaStatus.OK
    tool_calls: int = 0
    edits: int = 0
    stop_reason: str = ""
    source: str = ""
    provenance: dict[str, Any] = Field(default_factory=dict)
    tried: dict[str, int] = Field(default_factory=dict)
    elapsed_s: float = 0.0
    files: list[str] = Field(default_factory=list)
    reverted: list[str] = Field(default_factory=list)


class ToolCallRecord(Record):
    """One tool call of an agent's turn and its result, as the state keeps it.

    Attributes:
        name: the tool; args: its arguments (string values cut to 200 characters);
        call_id: the model's tool call id; ok: the tool succeeded (the ToolMessage's status);
        output: the start of what the model read back (at most :data:`MAX_MESSAGE_CHARS`).
    """

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    call_id: str = ""
    ok: bool = True
    output: str = ""
