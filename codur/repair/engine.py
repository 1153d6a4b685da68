"""The repair pipeline: localize, generate mutants, search them in parallel, patch."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from codur.config import CodurConfig
from codur.core.contracts import PatchStatus
from codur.core.events import Event
from codur.core.events.repair import RepairDone, RepairLocalized, RepairMutant, RepairMutants, RepairPatch, RepairStart
from codur.core.files import unified_diff
from codur.repair import mutants, patch
from codur.repair.evaluate import Evaluation
from codur.repair.search import CandidateQueue, SearchStop
from codur.repair.session import RepairSession
from codur.testing import command as testcmd
from codur.tools.errors import ToolError
from codur.tools.run_folder import write_as_run

OnEvent = Callable[[Event], None]


@dataclass(frozen=True)
class RepairResult:
    """What :func:`repair` found.

    ``status``: patched, no_failing_tests, not_found, cancelled or error (:class:`PatchStatus`).
    ``stopped``: why the search ended (:class:`codur.repair.search.SearchStop`): "found",
    "budget" (the time budget, or the mutant budget ``max_mutants`` / ``max_pairs``, was spent
    with mutants left), "exhausted" (every mutant was tried), "cancelled", or "" when no search ran; ``message`` says it
    in words. ``diff``: unified diff (``a/``, ``b/`` paths relative to the repo), "" if
    none. ``suspicious``: top 10 (file, line, score). ``pairs``: second-order mutants
    queued, at most ``pair_budget``. ``elapsed_s``: wall time in seconds. ``run_id``: the run
    whose change journal holds the written patch (``codur undo <run_id>`` puts it back), "" when
    nothing was written.
    """

    status: PatchStatus
    diff: str = ""
    files_changed: list[str] = field(default_factory=list)
    mutants_tried: int = 0
    elapsed_s: float = 0.0
    failing_tests: list[str] = field(default_factory=list)
    suspicious: list[tuple[str, int, float]] = field(default_factory=list)
    patch_description: str = ""
    message: str = ""
    stopped: SearchStop | str = ""
    pairs: int = 0
    pair_budget: int = 0
    run_id: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", PatchStatus(self.status))


def repair(repo: Path, *, test_cmd: list[str] | testcmd.TestCommand | None = None,
           workers: int = CodurConfig.default("repair_workers"),
           mutant_timeout_s: float = CodurConfig.default("mutant_timeout_s"),
           max_mutants: int = CodurConfig.default("max_mutants"), max_pairs: int = CodurConfig.default("max_pairs"),
           time_budget_s: float = CodurConfig.default("patch_time_budget_s"), apply: bool = True,
           on_event: OnEvent | None = None, cancel: threading.Event | None = None) -> RepairResult:
    """Find and (with ``apply``) write a single-edit patch that makes the failing tests pass.

    ``test_cmd`` is a resolved command or an argv list (default: the repo's interpreter, by
    :func:`codur.testing.command.resolve`, ``-m pytest``). ``workers`` parallel workers evaluate mutants, each at
    most ``mutant_timeout_s`` seconds per test stage; at most ``max_mutants`` are tried
    (of them at most ``max_pairs`` second-order ones) within ``time_budget_s`` seconds.
    ``on_event`` gets progress events (:mod:`codur.core.events.repair`: "repair.start",
    "repair.localized", "repair.mutants" with the counts and the pair budget, "repair.mutant",
    "repair.patch", "repair.done" with ``stopped``); setting ``cancel`` stops the search (status "cancelled"). Why the
    search ended is :attr:`RepairResult.stopped`. The repo is written only
    when a patch is accepted, as a run of its own (:func:`codur.tools.run_folder.write_as_run`:
    checked, atomic, its original in the change journal of the run folder
    ``.codur/runs/<RepairResult.run_id>``, so ``codur undo`` puts it back); on KeyboardInterrupt every subprocess is
    killed, temp dirs are removed and the interrupt is re-raised. After a normal end the
    idle pytest fork server is kept for the next call (``codur.repair.close_warm_runners()``
    ends it; so does exit). Raises NotADirectoryError if ``repo`` is not a directory and
    ValueError for ``workers`` < 1; test-run failures become status "error".
    Method: spectrum-based localization (Ochiai) + GenProg/PraPR-style mutation search.
    """
    start = time.monotonic()
    repo = Path(repo).resolve()
    if not repo.is_dir():
        raise NotADirectoryError(f"not a directory: {repo}")
    if workers < 1:
        raise ValueError("workers must be >= 1")
    emit = on_event or (lambda event: None)
    cancel = cancel or threading.Event()
    deadline = start + time_budget_s
    emit(RepairStart(repo=str(repo), workers=workers))

    def done(status: PatchStatus, **kw) -> RepairResult:
        result = RepairResult(status, elapsed_s=time.monotonic() - start, **kw)
        emit(RepairDone(status=result.status.value, stopped=str(result.stopped), mutants_tried=result.mutants_tried,
                        elapsed_s=round(result.elapsed_s, 3), message=result.message))
        return result

    session = RepairSession(repo, test_cmd=test_cmd, workers=workers, mutant_timeout_s=mutant_timeout_s,
                            deadline=deadline)
    try:
        session.__enter__()
    except (OSError, RuntimeError) as exc:
        return done(PatchStatus.ERROR, message=f"could not run the tests: {exc}")
    with session:
        try:
            return _search(session, done, emit, cancel=cancel, deadline=deadline, max_mutants=max_mutants,
                           max_pairs=max_pairs, time_budget_s=time_budget_s, apply=apply)
        except (OSError, RuntimeError) as exc:  # the test runner died mid-search
            assert session.loc is not None
            return done(PatchStatus.ERROR, message=f"the test runs failed: {exc}",
                        failing_tests=session.loc.failing, suspicious=session.loc.suspicious[:10])


def gave_up(stopped: SearchStop, cut: bool, tried: int, count: int, *, time_budget_s: float, max_mutants: int,
            max_pairs: int) -> tuple[SearchStop, str]:
    """Why a search of ``count`` mutants that found nothing ended, as (``stopped``, message).

    ``stopped`` is the evaluator's ("budget": the deadline passed, "exhausted": the queue
    ran empty, "cancelled"); ``cut``: the budgets ``max_mutants`` / ``max_pairs`` left
    mutants out. A queue run empty with mutants left out is a spent budget too.
    """
    if stopped == SearchStop.CANCELLED:
        return SearchStop.CANCELLED, "search cancelled; repository unchanged"
    if stopped == SearchStop.BUDGET:
        return SearchStop.BUDGET, (f"gave up: the time budget of {time_budget_s:g} s ran out after {tried} of "
                                   f"{count} mutants")
    if cut:
        return SearchStop.BUDGET, (f"gave up: the mutant budget is spent: none of the {count} mutants allowed "
                          f"(max_mutants={max_mutants}, max_pairs={max_pairs}) passes, and more exist")
    return SearchStop.EXHAUSTED, f"gave up: search exhausted: none of the {count} mutants passes, and there are no more"


def _search(session: RepairSession, done: Callable[..., RepairResult], emit: OnEvent, *,
            cancel: threading.Event, deadline: float, max_mutants: int, max_pairs: int,
            time_budget_s: float, apply: bool) -> RepairResult:
    """Generate the mutants, search them, and build (and maybe write) the patch."""
    loc, repo = session.loc, session.repo
    assert loc is not None
    failing, suspicious = loc.failing, loc.suspicious[:10]
    emit(RepairLocalized(failing_tests=failing, suspicious=suspicious[:5], elapsed_s=round(loc.elapsed_s, 3)))
    info: dict = {"failing_tests": failing, "suspicious": suspicious, "pair_budget": max_pairs}
    if not failing:
        message = ("all tests pass; nothing to repair" if loc.tests
                   else f"no tests found ({loc.output.strip()[:200]})")
        return done(PatchStatus.NO_FAILING_TESTS, message=message, **info)
    if cancel.is_set():
        return done(PatchStatus.CANCELLED, stopped=SearchStop.CANCELLED,
                    message="cancelled before the search; repository unchanged", **info)
    # one more of each than the budgets allow: whether a budget cut mutants off
    found, texts = mutants.generate(repo, loc.scores, limit=max_mutants + 1, max_pairs=max_pairs + 1,
                                      hung_loops=loc.hung_loops)
    candidates = ([m for m in found if m.order == 1] + [m for m in found if m.order == 2][:max_pairs])[:max_mutants]
    cut = len(candidates) < len(found)
    session.texts.update(texts)
    info["pairs"] = sum(m.order == 2 for m in candidates)
    emit(RepairMutants(count=len(candidates), pairs=info["pairs"], pair_budget=max_pairs, over_budget=cut))

    def on_result(index, m, evaluation: Evaluation) -> None:
        emit(RepairMutant(index=index, file=m.file, line=m.line, operator=m.operator, description=m.description,
                          result=evaluation.status.value,
                          **({"reason": evaluation.reason} if evaluation.reason else {})))

    outcome = session.search(CandidateQueue.ranked(candidates), deadline=deadline, cancel=cancel,
                             on_result=on_result)
    info["mutants_tried"] = outcome.tried
    if outcome.best is None:
        stopped, message = gave_up(outcome.stopped, cut, outcome.tried, len(candidates),
                                   time_budget_s=time_budget_s, max_mutants=max_mutants, max_pairs=max_pairs)
        status = PatchStatus.CANCELLED if stopped is SearchStop.CANCELLED else PatchStatus.NOT_FOUND
        return done(status, stopped=stopped, message=message, **info)
    best = outcome.best
    new = best.apply(texts[best.file])
    diff = unified_diff(best.file, texts[best.file], new)
    emit(RepairPatch(file=best.file, line=best.line, description=best.description, diff=diff))
    message = "patch found (dry run: repository unchanged)"
    if apply:
        try:
            patch.check_unchanged(repo / best.file, texts[best.file])
            info["run_id"] = write_as_run(repo, {best.file: new}).name
        except (OSError, RuntimeError, ToolError) as exc:
            return done(PatchStatus.ERROR, diff=diff, stopped=SearchStop.FOUND, message=str(exc), **info)
        message = f"patched {best.file}"
    return done(PatchStatus.PATCHED, diff=diff, files_changed=[best.file], patch_description=best.label,
                stopped=SearchStop.FOUND, message=message, **info)
