"""``_attempt_local_repair``: the mutation-based repair the execution module's specification
names, as the main job with the mutation fixer only (what ``codur repair`` runs).

No model is called. The graph itself repairs through the candidate-patch pipeline
(:func:`codur.graph.execution.patch.patch_node`); this function is for callers that want the
specification's ``{"success", "message"}`` answer. It runs the same job as ``codur run``
(:func:`codur.run`, reached through the package's public front door, not the engine's
package: the graph never imports the engine), so the patch is verified by the whole suite,
written through the change journal and kept in a run folder (``codur undo`` puts it back).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from codur.config import CodurConfig, load_config

#: The task the mutation-only job is given (``codur repair``'s too).
TASK = "make the failing tests pass"


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
        apply: write the patch into ``repo`` (atomically, journaled in the run's folder:
            ``codur undo`` puts it back); False leaves it unchanged (the run's write is refused,
            as ``codur repair --dry-run`` does).

    Returns:
        ``{"success": True, "message": "patched billing.py: billing.py:19 replaced `>` with `>=`"}`` when a
        plausible patch was found; otherwise ``success`` False and the run's status and reason,
        with why the search stopped when it did (``failed: no_plausible_patch: budget: gave up: ...``).

    Raises:
        NotADirectoryError: ``repo`` is not a directory. ValueError: ``workers`` < 1.
        codur.config.ConfigError: the repo's settings do not parse.

    Method: spectrum-based fault localization (Ochiai) and a GenProg/PraPR-style mutation
    search (the mutation fixer of the candidate-patch pipeline).
    """
    import codur  # the public front door: codur.run, as `codur run` and `codur repair`

    repo = Path(repo).expanduser()
    if not repo.is_dir():
        raise NotADirectoryError(f"not a directory: {repo}")
    if workers < 1:
        raise ValueError("workers must be >= 1")
    config = load_config(repo, fixers=["mutation"], critic=False, repair_workers=workers,
                         patch_time_budget_s=time_budget_s, mutant_timeout_s=mutant_timeout_s,
                         **({} if apply else {"tool_policy": "confirm_writes"}))
    proposed: list[str] = []
    labels: list[str] = []

    def propose_only(tool: str, args: dict) -> bool:
        """``apply=False``: the patch the run would write is kept here and refused."""
        if tool == "apply_patch":
            proposed.append(str(args.get("patch", "")))
        return False

    def on_event(event: dict) -> None:
        if event.get("event_type") == "patch.found":  # the winning candidate's label
            labels.append(str(event.get("label") or ""))

    request = codur.RunRequest(task=TASK, repo=repo, timeout_s=max(config.timeout_s, time_budget_s + 120.0))
    result = codur.run(request, config=config, on_event=on_event, confirm=None if apply else propose_only)
    label = labels[-1] if labels else result.output_text
    if proposed:
        return {"success": True, "message": f"patch found (dry run: repository unchanged): {label}"}
    if result.ok:
        return {"success": True, "message": f"patched {', '.join(result.files_changed)}: {label}"}
    search = result.metadata.stop.get("search")
    why = f": {search['stopped']}: {search['message']}" if search else ""
    return {"success": False, "message": f"{result.status.value}: {result.reason}{why}"}
