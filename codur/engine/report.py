"""What a run's result says: gathered from its events as they pass and from its final state.

The usage ledger keeps the figures and the time split, told by the calls that spend them
(:class:`codur.core.usage.UsageLedger`); the report adds what the events tell about the repo's
tests and risky writes, and turns the graph's final state into the :class:`RunResult` (status,
reason, fixer, diff, metadata).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codur.core.budget import Limits
from codur.core.contracts import FIXER_NAMES, PatchStatus, StopReason
from codur.core.events import parse
from codur.core.events.patch import PatchRisky
from codur.core.events.tests import TestsChangedFiles
from codur.core.usage import UsageLedger
from codur.engine.contracts import RunMetadata, RunRequest, RunResult, RunStatus
from codur.patch.contracts import PatchOutcome
from codur.tools.journal import ChangeJournal


class RunReport:
    """One run's report.

    Args:
        run_id: the run's id.
        request: what was asked (its task, session and metadata go into the result).
        limits: the run's limits (their values and the elapsed time go into the result).
        ledger: the run's usage ledger (tokens, cost, seconds; the time split).
        run_dir: the run's folder (its ``trace.jsonl``).
    """

    def __init__(self, run_id: str, request: RunRequest, limits: Limits, ledger: UsageLedger, run_dir: Path) -> None:
        self.run_id, self.request, self.limits, self.ledger, self.run_dir = run_id, request, limits, ledger, run_dir
        self.tests_changed: list[dict[str, Any]] = []  # what the repo's tests changed (tests.changed_files)
        self.risky_patches: list[dict[str, Any]] = []  # writes that added risky code (patch.risky)

    def note(self, record: dict[str, Any]) -> None:
        """Take one event of the run, as its wire record (:func:`codur.core.events.wire`): the
        tests' changes (``tests.changed_files``) and risky writes (``patch.risky``)."""
        event = parse(record)
        if isinstance(event, TestsChangedFiles):
            # each change once: a suite run through its layer does the same again on every run
            self.tests_changed += [c for c in event.changes if c not in self.tests_changed]
        elif isinstance(event, PatchRisky):
            self.risky_patches.append({"path": event.path, "findings": event.findings, "approved": event.approved})

    def result(self, final: dict[str, Any], journal: ChangeJournal, resumed_from: str | None,
               endpoints_down: dict[str, str] | None = None) -> RunResult:
        """The run's result from the graph's ``final`` state (``{}`` when it ended before one) and
        the ``journal`` of its writes. A cancel ends it ``cancelled`` wherever it found the run
        (what the graph would have said is kept in ``metadata.stop["before_cancel"]``); a graph
        that stopped while still running ends ``error``. A run that failed (not refused) while a
        model endpoint was given up (``endpoints_down``: the circuit breaker's
        :meth:`codur.llm.deadline.CircuitBreaker.down`) ends ``model_unavailable`` naming it: its
        ``no_progress`` or ``max_turns`` was the endpoint's doing (the graph's reason is kept in
        ``metadata.stop["before_model_unavailable"]``). A run the patch search ended
        ``no_plausible_patch`` keeps why that search stopped in ``metadata.stop["search"]``
        (:meth:`codur.patch.contracts.SearchEnd.as_dict`: budget / exhausted / cancelled, the figures)."""
        limits = self.limits
        total_s = limits.elapsed_s()
        usage, timings = self.ledger.usage_figures(), self.ledger.timings(total_s)
        patch = PatchOutcome.of(final.get("patch"))
        status = RunStatus(final.get("status", RunStatus.ERROR.value))
        fixer = FIXER_NAMES.get(patch.source, "") if patch is not None and patch.status is PatchStatus.PATCHED else ""
        if not fixer and status is RunStatus.SUCCESS and journal.changed_files:
            fixer = "agent"
        metadata = RunMetadata(
            diff=journal.diff(), files_changed=journal.changed_files, nodes=final.get("nodes", []), usage=usage,
            timings=timings, fixer=fixer, verdict=_dump(final.get("verification_details")),
            stop=final.get("stop") or {},
            limits={"max_turns": limits.max_turns, "timeout_s": limits.timeout_s,
                    "token_budget": limits.token_budget, "max_cost_usd": limits.max_cost_usd},
            session_id=self.request.session_id, resumed_from=resumed_from,
            trace_path=self.run_dir / "trace.jsonl", run_dir=self.run_dir, request=self.request.metadata,
            tests_changed=self.tests_changed, risky_patches=self.risky_patches)
        reason = final.get("reason", "")
        if reason == "no_plausible_patch" and patch is not None and patch.end is not None:  # why it stopped
            metadata.stop = {**metadata.stop, "search": patch.end.as_dict()}
        if limits.cancel.is_set() and status is not RunStatus.CANCELLED:
            # cancelled is how the run ended, wherever the cancel found it (a test run, mutation search,
            # a model call); what the graph would have said instead is kept beside it
            metadata.stop = {**metadata.stop, "before_cancel": f"{status.value}/{reason}"}
            status, reason = RunStatus.CANCELLED, StopReason.CANCELLED.value
        if status is RunStatus.RUNNING:
            status, reason = RunStatus.ERROR, "the graph stopped before done"
        if status is RunStatus.FAILED and endpoints_down and not reason.startswith(("refused", "model_unavailable")):
            metadata.stop = {**metadata.stop, "before_model_unavailable": reason}
            url, why = next(iter(endpoints_down.items()))
            reason = f"model_unavailable ({url}: {why})"
        return RunResult(run_id=self.run_id, status=status, reason=reason, output_text=final.get("summary", ""),
                         turns=final.get("turn", 0), duration_s=round(total_s, 3), metadata=metadata)


def _dump(value: Any) -> dict[str, Any]:
    """A state record as plain JSON data ({} for none)."""
    if value is None:
        return {}
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else dict(value)


def result_json(result: RunResult) -> bytes:
    """``result`` as ``result.json`` holds it (indented JSON, ASCII: a non-UTF-8 file name's
    surrogate escapes are written as ``\\udcXX``, which JSON readers take back)."""
    return json.dumps(result.model_dump(mode="json"), indent=2).encode()
