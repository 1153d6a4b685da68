"""delegate (engine state Act): start a turn and hand it to the agent the plan chose."""

from __future__ import annotations

from codur.core.events import emit
from codur.core.events.agent import AgentRetry
from codur.graph.coding_agent import agent_names
from codur.graph.context import Run
from codur.graph.nodes import node
from codur.graph.records import AgentOutcome, TurnStatus
from codur.graph.routing import FRESH
from codur.graph.state import CodurState, observation_of, plan_of
from codur.graph.suspects import suspicious_code


def choose_agent(requested: str | None, ctx: Run) -> str:
    """The plan's agent when it exists (built in, configured or an installed entry point),
    else the configured default."""
    known = set(agent_names(ctx))
    if requested in known:
        return requested  # type: ignore[return-value]
    return ctx.config.default_agent if ctx.config.default_agent in known else "coder"


#: Characters of the reverted attempts' diff kept for a fresh retry's prompt.
TRIED_CHARS = 3000


def fresh_start(state: CodurState, ctx: Run) -> dict:
    """A fresh retry's start: the earlier turns' edits put back (the change journal's
    :meth:`~codur.tools.journal.ChangeJournal.restore`), their diff kept for the prompt.

    Independent attempts from the original code, each told what failed before, rather than
    one line of turns piling edits on edits (Agentless, Xia et al. 2024, samples and retries
    from the original; ChatRepair, Xia & Zhang 2024, feeds failed patches back). Emits
    ``agent.retry`` (strategy, turn, reverted files)."""
    journal = ctx.tools.journal
    diff = journal.diff()
    restored, deleted = journal.restore()
    emit(AgentRetry(strategy=FRESH, turn=state.get("turn", 0) + 1, reverted=restored + deleted))
    tried = "\n".join(filter(None, [state.get("tried", ""), diff]))
    return {"tried": tried[-TRIED_CHARS:]}


@node("delegate")
def delegate_node(state: CodurState, ctx: Run) -> dict:
    """Increment the turn and record the chosen agent; a fresh retry first reverts the
    earlier turns' edits (:func:`fresh_start`)."""
    name = choose_agent(plan_of(state).agent, ctx)
    update: dict = {"turn": state.get("turn", 0) + 1, "agent": name,
                    "agent_outcome": AgentOutcome(agent=name, status=TurnStatus.DELEGATED.value)}
    if state.get("retry") == FRESH:
        update.update(fresh_start(state, ctx))
    obs = observation_of(state)
    if ctx.config.localize and obs.tests and obs.tests.failed and obs.suspicious is None:
        # fault-localization hints for the agent's first prompt, unless the patch node left them
        lines, functions = suspicious_code(ctx.tools.ctx)
        update["observation"] = obs.model_copy(update={"suspicious": lines, "functions": functions})
    return update
