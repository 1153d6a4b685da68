"""done (engine state Done): the run's final status, diff and summary.

The summary says what was refused whatever the tests said (:mod:`codur.validate.footprint`):
the patch search's candidates (``refused 2 candidates: 1 edited tests/test_x.py, 1 emptied
parse()``) and the agent's change at its last verification (``refused the change: edited
tests/test_x.py``). A fix or feature task that passed without a test exercising what it asked
ends ``success`` with reason ``unverified`` (:func:`codur.graph.task_scope.behaviour_checked`),
its summary saying why. One whose change has a held-back anti-pattern (a deleted guard, a
negated condition...: :mod:`codur.validate.antipatterns`) ends ``success`` with reason
``plausible``, its summary's first line naming the pattern and its line (``plausible: deletes
the guard at utils.py:6 (...); review whether bad input still needs rejecting``). A run with
no engine behind it (Studio) writes its record here (:mod:`codur.graph.record`).
"""

from __future__ import annotations

from codur.core.contracts import FIXER_NAMES, PatchStatus, RunStatus
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.records import AgentOutcome
from codur.graph.state import CodurState, observation_of, outcome_of, patch_of, scope_of, verdict_of
from codur.graph.task_scope import unrelated_line, unrelated_tests
from codur.tools.registry import TaskType
from codur.validate.footprint import refused_line


def fixed_by(outcome: AgentOutcome) -> str:
    """One line naming the fixer that produced the patch and what the search tried."""
    counts = ", ".join(f"{n} {s}" for s, n in outcome.tried.items() if n)
    judged = f"; judged by {outcome.provenance['judged']}" if outcome.provenance.get("judged") else ""
    return (f"fixed by {FIXER_NAMES.get(outcome.source, outcome.source)}: "
            f"{outcome.summary} ({counts} candidates tested, {outcome.elapsed_s}s{judged})")


@node("done")
def done_node(state: CodurState, ctx: Run) -> dict:
    """Fix the status (a run reaching done still 'running' is a failure) and write the diff."""
    update: dict = {}
    verdict = verdict_of(state)
    if state.get("status", RunStatus.RUNNING) == RunStatus.RUNNING:
        passed = verdict is not None and verdict.passed
        update.update(status=(RunStatus.SUCCESS if passed else RunStatus.FAILED).value,
                      reason="verified" if passed else state.get("reason") or "unverified")
    if (update.get("reason") or state.get("reason")) == "verified" and verdict is not None and verdict.plausible:
        update["reason"] = "plausible"  # it passed, but with a held-back anti-pattern (codur.validate.antipatterns)
    elif (update.get("reason") or state.get("reason")) == "verified" and verdict is not None and verdict.unverified:
        update["reason"] = "unverified"  # it passed, but no test exercised what the task asked
    repo = state.get("repo")
    if repo:
        try:
            journal = ctx.tools.journal
            update.update(diff=journal.diff(), files_changed=journal.changed_files)
        except NotADirectoryError:
            update.update(diff="", files_changed=[])
    update["summary"] = _summary(state, ctx, unverified=update.get("reason") == "unverified",
                                 plausible=update.get("reason") == "plausible")
    if ctx.record is not None and repo:  # no engine keeps this run's record: the graph writes it
        final = {**state, **update, "nodes": [*state.get("nodes", []), "done"]}
        ctx.record.finish(final, ctx.tools.journal, ctx.models.ledger.usage_figures())
    return update


def _summary(state: CodurState, ctx: Run, *, unverified: bool, plausible: bool = False) -> str:
    """The run's summary: the last Act step's words (the patch's fixer and figures), why the tests
    could not start, tests the task named that the suite does not collect, failing tests not the
    task's, what was refused, (``unverified``) what no test exercised, and (``plausible``) the
    applied change's held-back anti-patterns."""
    outcome = outcome_of(state)
    summary = outcome.summary if outcome else ""
    if outcome is not None and outcome.agent == "patch" and outcome.status == PatchStatus.PATCHED:
        summary = fixed_by(outcome)
    tests = observation_of(state).tests
    if not summary and tests is not None and tests.setup_problem:
        summary = f"the tests could not start: {tests.setup_problem}"
    if tests is not None and tests.outside_suite:
        summary = (f"{summary}\nnot run: {', '.join(tests.outside_suite[:5])} (named in the task, but the "
                   "project's test configuration does not collect it)").strip()
    if state.get("repo") and (state.get("task_type") == TaskType.CODE_GENERATION.value or scope_of(state) is not None
                 or (tests is not None and tests.targets)):
        verdict = verdict_of(state)
        unrelated = verdict.ignored_tests if verdict is not None else unrelated_tests(state, ctx)
        if line := unrelated_line(unrelated):  # still failing, and not the task's: said, not "fixed"
            summary = f"{summary}\n{line}".strip()
    verdict = verdict_of(state)
    refused = [refused_line(patch.refused if (patch := patch_of(state)) else []),
               f"refused the change: {verdict.refused}" if verdict is not None and verdict.refused else ""]
    unproven = f"unverified: {verdict.unverified}" if unverified and verdict else ""
    held = f"plausible: {verdict.plausible}" if plausible and verdict else ""
    return "\n".join(filter(None, [held, summary, *refused, unproven]))
