"""delegate (engine state Act): start a turn and hand it to the agent the plan chose."""

from __future__ import annotations

from codur.graph.coding_agent import agent_names
from codur.graph.context import RunContext
from codur.graph.nodes import node
from codur.graph.state import AgentOutcome, CodurState, TurnStatus, observation_of, plan_of
from codur.graph.suspects import suspicious_code


def choose_agent(requested: str | None, ctx: RunContext) -> str:
    """The plan's agent when it exists (built in, configured or an installed entry point),
    else the configured default."""
    known = set(agent_names(ctx))
    if requested in known:
        return requested  # type: ignore[return-value]
    return ctx.config.default_agent if ctx.config.default_agent in known else "coder"


@node("delegate")
def delegate_node(state: CodurState, ctx: RunContext) -> dict:
    """Increment the turn and record the chosen agent."""
    name = choose_agent(plan_of(state).agent, ctx)
    update: dict = {"turn": state.get("turn", 0) + 1, "agent": name,
                    "agent_outcome": AgentOutcome(agent=name, status=TurnStatus.DELEGATED.value)}
    obs = observation_of(state)
    if ctx.config.localize and obs.tests and obs.tests.failed and obs.suspicious is None:
        # fault-localization hints for the agent's first prompt, unless the patch node left them
        lines, functions = suspicious_code(ctx.tools.ctx)
        update["observation"] = obs.model_copy(update={"suspicious": lines, "functions": functions})
    return update
