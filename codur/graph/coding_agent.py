"""The coding agent: how a turn's prompt is written and which AgentPort runs it.

The prompt gives the task, what observe found (failing tests with their
tracebacks), the plan's steps and, on a retry, why the last attempt failed.
"""

from __future__ import annotations

from pathlib import Path

from codur.agents.cli_agent import CommandLineAgent
from codur.core.ports import AgentPort, ExecutionPlan, ExecutionResult
from codur.graph.context import CodurContext
from codur.graph.execution.agent_executor import LLMAgent
from codur.graph.prompts import build_system_prompt
from codur.graph.state import CodurState
from codur.tools.context import ToolError
from codur.tools.executor import ToolExecutor
from codur.tools.registry import TaskType


def turn_prompt(state: CodurState, current: dict[str, str] | None = None) -> str:
    """The user message of the agent's turn.

    Args:
        current: numbered source of files as they are now (on a retry the agent's
            earlier edits are in them); default: observe's copies.
    """
    obs = state.get("observation", {})
    parts = [f"Task: {state['task']}"]
    if session := state.get("session"):
        parts.append("Earlier in this session (the task may build on these runs):\n" + "\n".join(session))
    files = obs.get("files", [])
    if files:
        parts.append("Python files: " + ", ".join(files[:25]))
    if (tests := obs.get("tests")) and not state.get("feedback"):
        parts.append("Test results before any change:\n" + tests["report"])
    for path, numbered in (current or obs.get("sources", {})).items():
        parts.append(f"{path} (now):\n{numbered}")
    if suspicious := obs.get("suspicious"):
        parts.append("Most suspicious lines (fault localization over the tests' coverage):\n" + "\n".join(
            f"- {s['path']}:{s['line']}: {s['text']}" for s in suspicious))
    if (near := (state.get("patch") or {}).get("near_miss")) and not state.get("feedback"):
        parts.append(f"A candidate fix made {near['fixed']} of {near['failing']} failing tests pass without breaking "
                     f"the others; build on it if it helps (it is not applied):\n```diff\n{near['diff'][:1500]}```")
    if steps := state.get("plan", {}).get("steps"):
        parts.append("Plan:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)))
    if feedback := state.get("feedback"):
        parts.append("Your previous attempt did not pass verification:\n" + feedback)
    parts.append("Reply with one tool call in a ```json block.")
    return "\n\n".join(parts)


def current_sources(state: CodurState, ctx: CodurContext) -> dict[str, str]:
    """Observe's source files re-read from disk, numbered (they may hold earlier edits)."""
    tools = ctx.tools(state["repo"])
    out = {}
    for path in state.get("observation", {}).get("sources", {}):
        try:
            out[path] = "\n".join(f"{i:4d}| {line}" for i, line in
                                  enumerate(tools.ctx.read_text(path).splitlines(), 1))
        except ToolError:
            continue
    return out


def execution_plan(state: CodurState, ctx: CodurContext, agent: str) -> ExecutionPlan:
    """The Act step's plan: the turn prompt with the current code."""
    return ExecutionPlan(prompt=turn_prompt(state, current_sources(state, ctx)), repo_root=Path(state["repo"]),
                         agent=agent, task_type=state.get("task_type", TaskType.CODE_FIX.value),
                         run_id=state.get("run_id", ""))


MAX_SNAPSHOT_BYTES = 50_000_000


class JournaledAgent:
    """Wraps an agent that edits files by itself (a command-line agent): the repo's
    visible files are snapshotted before it runs and every change it made is put in
    the run's change journal afterwards, so the run's diff shows it too."""

    def __init__(self, agent: AgentPort, tools: ToolExecutor) -> None:
        self.agent, self.tools, self.name = agent, tools, agent.name

    def _snapshot(self) -> dict[str, bytes]:
        out, total = {}, 0
        for p in self.tools.ctx.walk("."):
            size = p.stat().st_size
            if total + size > MAX_SNAPSHOT_BYTES:
                break
            total += size
            out[self.tools.ctx.rel(p)] = p.read_bytes()
        return out

    def run(self, plan: ExecutionPlan) -> ExecutionResult:
        before = self._snapshot()
        try:
            return self.agent.run(plan)
        finally:
            after = self._snapshot()
            for rel in sorted(set(before) | set(after)):
                if before.get(rel) != after.get(rel):
                    self.tools.journal.record_original(rel, before.get(rel))


def build_agents(state: CodurState, ctx: CodurContext, name: str) -> list[AgentPort]:
    """The agents to try for ``name``, in order: one per model profile of the actor role
    (profile fallback), or the configured command-line agent."""
    cfg = ctx.config.agents.get(name)
    if cfg is not None and cfg.kind == "cli":
        agent = CommandLineAgent(name, cfg.command, timeout_s=cfg.timeout_s)
        return [JournaledAgent(agent, ctx.tools(state["repo"]))]
    task_type = TaskType(cfg.task_types[0]) if cfg and cfg.task_types else TaskType(state.get("task_type", "code_fix"))
    system, specs = build_system_prompt("actor", task_type, extra=cfg.system_prompt if cfg else None)
    tools = ctx.tools(state["repo"])
    base_tokens = state.get("tokens", 0)

    def should_stop(tokens_so_far: int) -> str | None:
        assert ctx.limits is not None
        hit = ctx.limits.stop(tokens=base_tokens + tokens_so_far, turn=state.get("turn", 0))
        return hit.reason if hit else None

    assert ctx.models is not None
    return [LLMAgent(name, model, system, specs, tools, max_iterations=ctx.config.max_iterations,
                     should_stop=should_stop) for model in ctx.models.models_for("actor")]
