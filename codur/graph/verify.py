"""verify (engine state Verify): the verification agent checks the repo after the agent's turn."""

from __future__ import annotations

from codur.graph.context import CodurContext
from codur.graph.nodes import node
from codur.graph.state import CodurState
from codur.graph.verification_agent import critique, verify_repo
from codur.llm.policy import CallPolicy, with_policy


@node("verify")
def verify_node(state: CodurState, ctx: CodurContext) -> dict:
    """Run the inferred verification strategy; on failure ask the critic for reasons."""
    tools = ctx.tools(state["repo"])
    obs = state.get("observation", {})
    verdict = verify_repo(
        tools.ctx, task=state["task"], task_type=state.get("task_type", "code_fix"),
        changed=tools.journal.changed_files, has_tests=bool(obs.get("has_tests")),
        answer=state.get("agent_outcome", {}).get("summary", ""),
    )
    update: dict = {}
    if not verdict.passed and ctx.critic_enabled and not ctx.config.dry_run:
        assert ctx.models is not None
        try:
            critic = with_policy(ctx.models.models_for("critic"), CallPolicy.for_run(ctx.config, ctx.limits),
                                 role="critic")  # the one model-call policy: retries, then the next profile
            verdict, tokens = critique(critic, verdict, state["task"])
            update.update(llm_calls=1, tokens=tokens)
        except Exception as exc:  # noqa: BLE001 - the critic is advice; its failure is not the run's
            verdict.reasoning += f" (critic unavailable: {type(exc).__name__})"
    update["verification"] = verdict.as_dict()
    if not verdict.passed:
        update["failure_signatures"] = [verdict.signature]
    return update
