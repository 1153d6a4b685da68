"""``_attempt_local_repair``: the mutation-based repair the execution module's specification
names, as a front door over :func:`codur.repair.repair` (the engine behind ``codur repair``).

No model is called. The graph itself repairs through the candidate-patch pipeline
(:func:`codur.graph.execution.patch.patch_node`), which runs the same mutation search; this
function is for callers that want the specification's ``{"success", "message"}`` answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from codur.config import CodurConfig
from codur.core.contracts import PatchStatus
from codur.repair import repair


class LocalRepair(TypedDict):
    """What :func:`_attempt_local_repair` answers: ``success`` (a patch was found, and written
    unless ``apply`` was False) and ``message`` (the change, or why there is none)."""

    success: bool
    message: str


def _attempt_local_repair(repo: str | Path, *, workers: int = CodurConfig.default("repair_workers"),
                          time_budget_s: float = CodurConfig.default("patch_time_budget_s"),
                          mutant_timeout_s: float = CodurConfig.default("mutant_timeout_s"),
                          apply: bool = True) -> LocalRepair:
    """Repair the failing tests of ``repo`` by mutation search, with ``workers`` parallel workers.

    Args:
        repo: the repository's root directory.
        workers: parallel workers evaluating mutants (the specification's 4: the setting
            ``repair_workers``; each default is the setting's).
        time_budget_s: the whole search's wall-time limit, seconds (``patch_time_budget_s``).
        mutant_timeout_s: per test stage of one mutant, seconds (``mutant_timeout_s``).
        apply: write the patch into ``repo`` (atomically, journaled in a run folder of its own:
            ``codur undo`` puts it back); False leaves it unchanged.

    Returns:
        ``{"success": True, "message": "patched billing.py: billing.py:19 replaced `>` with `>=`"}`` when a
        plausible patch was found; otherwise ``success`` False and the engine's reason
        (no failing tests, nothing found within the budget, the tests could not run).

    Raises:
        NotADirectoryError: ``repo`` is not a directory. ValueError: ``workers`` < 1.

    Method: spectrum-based fault localization (Ochiai) and a GenProg/PraPR-style mutation
    search, as :func:`codur.repair.repair` documents.
    """
    result = repair(Path(repo), workers=workers, time_budget_s=time_budget_s, mutant_timeout_s=mutant_timeout_s,
                    apply=apply)
    if result.status is PatchStatus.PATCHED:
        return {"success": True, "message": f"{result.message}: {result.patch_description}"}
    return {"success": False, "message": f"{result.status.value}: {result.message}"}
