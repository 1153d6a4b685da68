"""The coding agent: how a turn's prompt is written and which AgentPort runs it.

Agent kinds: the built-in ``coder`` and configured ``kind="llm"`` agents (the tool loop),
``kind="cli"`` (a command) and ``kind="python"`` / entry-point agents (an AgentPort class).

The prompt gives the task, what observe found (failing tests with their
tracebacks), the plan's steps and, on a retry, why the last attempt failed.
"""

from __future__ import annotations

from pathlib import Path

from codur.agents.cli_agent import CommandLineAgent
from codur.agents.plugins import AgentLoadError, UnloadableAgent, load_agent, registered_agents
from codur.config.tables import AgentConfig
from codur.core.events import emit
from codur.core.events.agent import AgentLoadFailed
from codur.core.ports import AgentPort, AgentResult, AgentTask
from codur.graph.context import Run
from codur.graph.execution.agent_executor import AgentExecutor, LLMAgent
from codur.graph.prompts import build_system_prompt
from codur.graph.records import Observation
from codur.graph.state import CodurState, observation_of, patch_of, plan_of
from codur.llm.factory import models_for_profile
from codur.llm.policy import CallPolicy
from codur.patch.splice import functions
from codur.tools.context import ToolError
from codur.tools.executor import ToolExecutor
from codur.tools.registry import TaskType


def turn_prompt(state: CodurState, current: dict[str, str] | None = None) -> str:
    """The user message of the agent's turn.

    Args:
        current: numbered source of files as they are now (on a retry the agent's
            earlier edits are in them); default: observe's copies.
    """
    obs = observation_of(state)
    parts = [f"Task: {state['task']}"]
    if session := state.get("session"):
        parts.append("Earlier in this session (the task may build on these runs):\n" + "\n".join(session))
    if obs.files:
        parts.append("Python files: " + ", ".join(obs.files[:25]))
    fresh = state.get("retry") == "fresh_retry"  # the files are back as they were: the first report holds
    if obs.tests and (fresh or not state.get("feedback")):
        parts.append("Test results before any change:\n" + obs.tests.report)
    for path, numbered in (current or obs.sources).items():
        parts.append(f"{path} (now):\n{numbered}")
    parts += _localization_parts(obs)
    if (near := patch.near_miss if (patch := patch_of(state)) else None) and not state.get("feedback"):
        parts.append(f"A candidate fix made {near.fixed} of {near.failing} failing tests pass without breaking "
                     f"the others; build on it if it helps (it is not applied):\n```diff\n{near.diff[:1500]}```")
    if steps := plan_of(state).steps:
        parts.append("Plan:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)))
    parts += _last_attempt_parts(state, fresh)
    parts.append("Reply with one tool call in a ```json block.")
    return "\n\n".join(parts)


def _localization_parts(obs: Observation) -> list[str]:
    """The prompt's fault localization: the most suspicious lines and functions, when observe found any."""
    parts = []
    if suspicious := obs.suspicious:
        parts.append("Most suspicious lines (fault localization over the tests' coverage):\n" + "\n".join(
            f"- {s['path']}:{s['line']}: {s['text']}" for s in suspicious))
    if functions := obs.functions:
        parts.append("Most suspicious functions, every file (the fix may need more than one):\n" + "\n".join(
            f"- {f['path']}: {f['function']} (lines {f['start']}–{f['end']}), {f['score']:.2f}" for f in functions))
    return parts


def _last_attempt_parts(state: CodurState, fresh: bool) -> list[str]:
    """What the prompt says of the last attempt: after a fresh retry (``fresh``: its edits reverted)
    its diff, what followed and to try another way; else verification's feedback, if any."""
    if fresh:
        return ["An earlier attempt made none of the failing tests pass and was reverted (the files above "
                f"are as they were). It changed:\n```diff\n{state.get('tried', '')}\n```\nAfter it:\n"
                f"{state.get('feedback', '')}\nFix the bug a different way: re-read the failing test's "
                "assertion and the most suspicious functions before editing."]
    if feedback := state.get("feedback"):
        return ["Your previous attempt did not pass verification:\n" + feedback]
    return []


def current_sources(state: CodurState, ctx: Run) -> dict[str, str]:
    """Observe's source files re-read from disk, numbered (they may hold earlier edits)."""
    tools = ctx.tools
    out = {}
    for path in observation_of(state).sources:
        try:
            out[path] = "\n".join(f"{i:4d}| {line}" for i, line in
                                  enumerate(tools.ctx.read_text(path).splitlines(), 1))
        except ToolError:
            continue
    return out


#: Lines of the most suspicious functions' code the prompt shows from files too long to show whole.
SUSPECT_LINES = 120
#: Suspicious functions (best first) whose code the prompt may show.
SUSPECT_FUNCTIONS = 3


def suspect_sources(state: CodurState, ctx: Run, shown: dict[str, str]) -> dict[str, str]:
    """The code of the most suspicious functions (fault localization's best, at most
    :data:`SUSPECT_FUNCTIONS`, :data:`SUSPECT_LINES` lines in all) whose files ``shown`` does not
    hold whole (observe shows files of at most 160 lines in all), numbered as in their file
    and re-found by name as the file is now; keyed ``"<path> lines <a>–<b>, <function>"``.

    On a real project the module under test is often thousands of lines: without this the
    first prompt names the function but shows none of it, and a small model's first tool
    calls go to finding it."""
    out: dict[str, str] = {}
    budget = SUSPECT_LINES
    for f in (observation_of(state).functions or [])[:SUSPECT_FUNCTIONS]:
        if f["path"] in shown or budget <= 0:
            continue
        try:
            text = ctx.tools.ctx.read_text(f["path"])
            spans = [s for s in functions(text, f["path"]) if s.qualname == f["function"]]
        except (ToolError, SyntaxError):
            continue
        start, end = (spans[0].start, spans[0].end) if spans else (f["start"], f["end"])
        lines = text.splitlines()
        end = min(end, start + budget - 1, len(lines))
        if end < start:
            continue
        budget -= end - start + 1
        out[f"{f['path']} lines {start}–{end}, {f['function']}"] = "\n".join(
            f"{i:4d}| {lines[i - 1]}" for i in range(start, end + 1))
    return out


def execution_plan(state: CodurState, ctx: Run, agent: str) -> AgentTask:
    """The Act step's plan: the turn prompt with the current code (whole files, and the most
    suspicious functions of files too long for that: :func:`suspect_sources`)."""
    current = current_sources(state, ctx)
    current.update(suspect_sources(state, ctx, current))
    return AgentTask(prompt=turn_prompt(state, current), repo_root=Path(state["repo"]),
                         agent=agent, task_type=state.get("task_type", TaskType.CODE_FIX.value),
                         run_id=state.get("run_id", ""))


MAX_SNAPSHOT_BYTES = 50_000_000
BUILTIN_AGENTS = ("coder",)


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

    def run(self, plan: AgentTask) -> AgentResult:
        before = self._snapshot()
        try:
            return self.agent.run(plan)
        finally:
            after = self._snapshot()
            for rel in sorted(set(before) | set(after)):
                if before.get(rel) != after.get(rel):
                    self.tools.journal.record_original(rel, before.get(rel))
                    self.tools.journal.left(self.tools.root / rel)  # as the agent left it: codur's


def agent_names(ctx: Run) -> list[str]:
    """Every agent the plan may choose: the default first, then ``coder``, the configured
    agents and the Python agents installed as entry points (group ``codur.agents``)."""
    names = [ctx.config.default_agent, *BUILTIN_AGENTS, *ctx.config.agents, *registered_agents()]
    return list(dict.fromkeys(names))


def agent_task_type(state: CodurState, cfg: AgentConfig | None) -> TaskType:
    """The plan's TaskType when the agent serves it (or lists none), else the agent's first."""
    planned = state.get("task_type", TaskType.CODE_FIX.value)
    if cfg is None or not cfg.task_types or planned in cfg.task_types:
        return TaskType(planned)
    return TaskType(cfg.task_types[0])


def system_prompt(state: CodurState, ctx: Run, name: str) -> str:
    """The system prompt the agent ``name`` gets ("" for a command-line or Python agent, which
    gets the turn's prompt alone); builds no model."""
    cfg = ctx.config.agents.get(name)
    if (cfg is not None and cfg.kind in ("cli", "python")) or (cfg is None and name not in BUILTIN_AGENTS):
        return ""
    system, _ = build_system_prompt("actor", agent_task_type(state, cfg), extra=cfg.system_prompt if cfg else None,
                                    read_only=ctx.config.tool_policy == "read_only")
    return system


def build_agent(state: CodurState, ctx: Run, name: str) -> tuple[AgentPort, bool]:
    """The agent ``name`` as an AgentPort, and whether its model calls carry the model-call
    policy (:mod:`codur.llm.policy`; the AgentRunner then does not retry the whole turn).

    - ``coder`` and ``kind="llm"``: the tool loop with the registry's tools for the TaskType,
      the agent's extra prompt, and its profile's model (else the actor role's chain);
    - ``kind="cli"``: the command-line agent; ``kind="python"`` or an entry point of that name:
      the registered class (:mod:`codur.agents.plugins`). These edit the repo themselves, so
      they are journaled (their edits show in the run's diff).
    """
    cfg = ctx.config.agents.get(name)
    tools = ctx.tools
    if cfg is not None and cfg.kind == "cli":
        return JournaledAgent(CommandLineAgent(name, cfg.command, timeout_s=cfg.timeout_s), tools), False
    if (cfg is not None and cfg.kind == "python") or (cfg is None and name not in BUILTIN_AGENTS):
        try:
            agent: AgentPort = load_agent(name, cfg.target if cfg else None)
        except AgentLoadError as exc:
            emit(AgentLoadFailed(agent=name, error=str(exc)))
            agent = UnloadableAgent(name, str(exc))
        return JournaledAgent(agent, tools), False
    system, specs = build_system_prompt("actor", agent_task_type(state, cfg), extra=cfg.system_prompt if cfg else None,
                                        read_only=ctx.config.tool_policy == "read_only")

    def should_stop() -> str | None:
        hit = ctx.limits.stop(turn=state.get("turn", 0))
        return hit.reason if hit else None

    models = models_for_profile(ctx.models, cfg.profile) if cfg and cfg.profile else ctx.models.models_for("actor")
    loop = AgentExecutor(models, tools, specs, max_iterations=ctx.config.max_iterations, should_stop=should_stop,
                         policy=CallPolicy.for_run(ctx.config, ctx.limits))
    return LLMAgent(name, system, loop), True
