"""The run's change judged as a whole at verification, as every candidate of the patch pipeline is:
the footprint rules (:mod:`codur.validate.footprint`: edited tests, emptied or mostly deleted
functions) and the anti-patterns (:mod:`codur.validate.antipatterns`): a refused one fails the
verdict (:func:`refused_verdict`), a held-back one makes a passed verdict ``plausible``
(:func:`plausible_verdict`). Only fix and feature tasks are judged; tests may change when the task
asks for them (:func:`codur.validate.footprint.asks_for_tests`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codur.graph.state import CodurState
from codur.graph.verification.verdict import Evidence, Verdict
from codur.validate import antipatterns, footprint
from codur.validate.antipatterns import Finding

if TYPE_CHECKING:
    from codur.graph.context import Run


def change_texts(state: CodurState, ctx: Run) -> tuple[dict[str, str | None], dict[str, str | None]] | None:
    """The run's change as texts (the change journal's files: original, then now; None for a file
    that did not exist / was deleted), or None when the task is not judged (not a fix or feature)."""
    if state.get("task_type", "code_fix") not in ("code_fix", "code_generation"):
        return None
    tools = ctx.tools
    originals = tools.journal.originals()

    def text(data: bytes | None) -> str | None:
        return None if data is None else data.decode("utf-8", "replace")

    changed = tools.journal.changed_files
    now = {rel: (tools.root / rel).read_bytes() if (tools.root / rel).is_file() else None for rel in changed}
    return {rel: text(originals.get(rel)) for rel in changed}, {rel: text(data) for rel, data in now.items()}


def change_refusal(state: CodurState, ctx: Run, findings: list[Finding] | None = None) -> str | None:
    """Why the run's change (:func:`change_texts`) is refused whatever the tests say
    (:func:`codur.validate.footprint.refusal`, then a refused anti-pattern of ``findings``,
    :func:`codur.validate.antipatterns.refusal`), or None; see the module docstring for the
    tasks judged and when tests may change."""
    change = change_texts(state, ctx)
    if change is None:
        return None
    why = footprint.refusal(*change, tests=footprint.asks_for_tests(state.get("task", "")),
                            new_tests=state.get("task_type") == "code_generation")
    return why or antipatterns.refusal(findings or [])


def change_findings(state: CodurState, ctx: Run) -> list[Finding]:
    """The anti-patterns of the run's change (:func:`codur.validate.antipatterns.judge_files`),
    [] when the task is not judged."""
    change = change_texts(state, ctx)
    return antipatterns.judge_files(*change) if change is not None else []


def plausible_verdict(verdict: Verdict, findings: list[Finding]) -> Verdict:
    """``verdict``, when it passed and ``findings`` hold back the change, with ``plausible``
    saying what they are (:meth:`codur.validate.antipatterns.Finding.describe`, joined by
    ``; also ``); else ``verdict`` itself."""
    held = antipatterns.held_back(findings)
    if not verdict.passed or not held:
        return verdict
    return verdict.model_copy(update={"plausible": "; also ".join(f.describe() for f in held)})


def refused_verdict(verdict: Verdict, why: str) -> Verdict:
    """``verdict`` failed because the change was refused for ``why`` (a
    :func:`codur.validate.footprint.refusal` reason): its evidence says so, its reasoning tells the
    next turn what to do instead, its signature starts with ``refused: <why>``."""
    out = verdict.model_copy(deep=True)
    out.passed, out.refused = False, why
    out.evidence.append(Evidence(command="footprint check", output=f"refused: {why}", ok=False))
    out.reasoning = f"the change was refused: it {why}; {footprint.advice(why)}. {out.reasoning}".strip()
    out.signature = f"refused: {why}\n{out.signature}".strip()
    return out
