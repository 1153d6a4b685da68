"""verify (engine state Verify): the verification agent checks the repo after a turn.

:func:`verification_agent_node` is the graph's node ``verify``; it returns an
:class:`~codur.graph.state.ExecuteNodeResult` whose ``verification_details`` is the
:class:`~codur.graph.verification.verdict.Verdict` (passed, strategy, evidence, reasoning,
suggestions) — the names of the execution module's specification.

Which verifier runs:

- a question (no change): the deterministic ``answer`` check (did the loop end with an answer);
- a dry run, or the critic off (:meth:`Run.critic_enabled`): the deterministic verifier;
- tests in the repo: the suite decides; on a failure the critic model's verification loop
  explains it (reasoning, suggestions) and a model that says "passed" is overruled;
- no tests: the critic model's verdict, overruled by a changed file that does not parse;
  a reply that is no verdict (or a model error), or a "passed" without a check that ran,
  falls back to the deterministic verifier.

A feature task (code_generation) passes only when what it names exists after the run, and a
test that failed before the run and does not belong to the task is not held against it
(:func:`codur.graph.task_scope.scoped_verdict`).

A fix or feature task whose change edits a test (unless the task asks for tests), empties a
function or class, guts a function, deletes more than 20 lines, leaves code unreachable,
duplicates a block or adds an unconditional early exit fails, whatever the tests say: the same
checks as every candidate of the patch pipeline (:func:`codur.graph.change_verdict.change_refusal`,
:mod:`codur.validate.footprint`, :mod:`codur.validate.antipatterns`). A passed change with a
held-back anti-pattern (a deleted guard, ``raise`` or call, a weakened guard, a negated or constant condition)
gets ``Verdict.plausible``: the run ends ``success`` with reason ``plausible``. The suite still
runs (its figures stay honest); the critic model is not asked; the verdict's ``refused``
names the refusal and its reasoning tells the next turn what to do instead.

A fix or feature task is verified only when a test exercised what it asked
(:func:`codur.graph.task_scope.behaviour_checked`: a failing test about the task that passes
now, a test the task names, a test file the user changed before the run). A verdict that
passes without one is ``unverified``: the critic model, unless switched off, judges the diff
against the task (its "failed" sends the run back to the agent), and a run that ends on it
is ``success`` with reason ``unverified``, never ``verified``.

Events: ``verify.unverified`` {why, passed, judged} (a passed change no test exercised),
``verify.start`` {task_type, has_tests, model}, ``verify.overruled`` {model_said,
overruled}, ``verify.verdict`` {passed, strategy, source, overruled, fallback, refused, plausible}.
"""

from __future__ import annotations

from codur.core.events import emit
from codur.core.events.verify import VerifyOverruled, VerifyStart, VerifyUnverified, VerifyVerdict
from codur.graph.change_verdict import change_findings, change_refusal, plausible_verdict, refused_verdict
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.records import AgentOutcome
from codur.graph.state import CodurState, ExecuteNodeResult, observation_of, outcome_of
from codur.graph.task_scope import scoped_verdict
from codur.graph.verification.deterministic import QUESTION_TASKS, syntax_checks, verify_repo
from codur.graph.verification.judge import judged_unproven, unusable, with_tests, without_tests
from codur.graph.verification.llm import ChangeUnderReview, ModelRun, run_model_verifier
from codur.graph.verification.verdict import Verdict
from codur.llm.policy import CallPolicy


def loop_ending(outcome: AgentOutcome | None) -> str:
    """How the agent's last turn ended: its loop's stop reason, or "dry_run"."""
    if outcome is None:
        return ""
    return "dry_run" if outcome.dry_run else outcome.stop_reason


def model_verification(state: CodurState, ctx: Run, changed: list[str]) -> ModelRun:
    """The critic model's verification loop; a model error becomes a ModelRun without verdict."""
    limits, turn = ctx.limits, state.get("turn", 0)

    def should_stop() -> str | None:
        hit = limits.stop(turn=turn)
        return hit.reason if hit else None

    try:
        return run_model_verifier(  # the critic chain under the one model-call policy: retries, then the next
            ctx.models.models_for("critic"), ctx.tools,
            ChangeUnderReview(task=state["task"], task_type=state.get("task_type", "code_fix"), changed=changed,
                              summary=outcome.summary if (outcome := outcome_of(state)) else "",
                              diff=ctx.tools.journal.diff()),
            should_stop=should_stop, policy=CallPolicy.for_run(ctx.config, ctx.limits))
    except Exception as exc:  # noqa: BLE001 - the critic is one opinion; its failure is not the run's
        return ModelRun(problem=f"critic unavailable: {type(exc).__name__}: {str(exc)[:200]}")


def judge_allowed(ctx: Run) -> bool:
    """Whether the critic model may judge a change no test exercised: a fixer that calls a model
    is enabled, the critic is not switched off (``critic = false``) and the run is no dry run."""
    return bool(ctx.config.model_fixers()) and ctx.config.critic is not False and not ctx.config.dry_run


@node("verify")
def verification_agent_node(state: CodurState, ctx: Run) -> ExecuteNodeResult:
    """Verify the turn (see the module docstring).

    Args:
        state: the run's state (its task, observation and the last agent outcome are read).
        ctx: the run's context (its ToolExecutor, models, limits, config).

    Returns:
        ``{"verification_details": Verdict}``, plus ``failure_signatures: [signature]`` when
        the verdict failed (the critic's model calls are in the run's usage ledger).
    """
    tools = ctx.tools
    has_tests = observation_of(state).has_tests
    task_type = state.get("task_type", "code_fix")
    changed = tools.journal.changed_files
    outcome = outcome_of(state)
    use_model = (not (task_type in QUESTION_TASKS and not changed) and not ctx.config.dry_run
                 and ctx.critic_enabled(has_tests=has_tests))
    emit(VerifyStart(task_type=task_type, has_tests=has_tests, model=use_model))

    def deterministic() -> Verdict:
        return verify_repo(tools, task=state["task"], task_type=task_type, changed=changed, has_tests=has_tests,
                           answer=outcome.summary if outcome else "", ended=loop_ending(outcome))

    findings = change_findings(state, ctx)
    refused = change_refusal(state, ctx, findings)
    run = ModelRun()
    if not use_model or refused:
        verdict = scoped_verdict(state, ctx, deterministic())
    elif has_tests:
        verdict = scoped_verdict(state, ctx, deterministic())
        if not verdict.passed:
            run = model_verification(state, ctx, changed)
            verdict = with_tests(verdict, run)
    else:
        run = model_verification(state, ctx, changed)
        verdict = scoped_verdict(state, ctx, without_tests(run, syntax_checks(tools.ctx, changed),
                                                           deterministic() if unusable(run) else None))
    if refused:
        verdict = refused_verdict(verdict, refused)
    elif verdict.passed and verdict.unverified and run.verdict is None and judge_allowed(ctx):
        run = model_verification(state, ctx, changed)  # no test shows it: the critic reads the diff
        verdict = judged_unproven(verdict, run)
    verdict = plausible_verdict(verdict, findings)
    if verdict.unverified:
        emit(VerifyUnverified(why=verdict.unverified, passed=verdict.passed, judged=run.verdict is not None))
    if verdict.overruled:
        emit(VerifyOverruled(model_said=run.verdict.passed if run.verdict else None, overruled=verdict.overruled))
    emit(VerifyVerdict(passed=verdict.passed, strategy=verdict.strategy, source=verdict.source,
                       overruled=verdict.overruled, fallback=verdict.fallback, refused=verdict.refused,
                       **({"plausible": verdict.plausible} if verdict.plausible else {})))
    update = ExecuteNodeResult(verification_details=verdict)
    if not verdict.passed:
        update["failure_signatures"] = [verdict.signature]
    return update
