"""Registered Python agents: classes behind :class:`codur.core.ports.AgentPort`, plugged in
without touching codur.

Two ways to register one:

- an entry point in the group ``codur.agents`` (``[project.entry-points."codur.agents"]``
  ``myagent = "mypkg.agent:MyAgent"`` in the plugin's pyproject.toml); the entry point's
  name is the agent's name, and it is available without any configuration;
- a dotted path in the configuration: ``AgentConfig(kind="python", target="mypkg.agent:MyAgent")``
  (``CODUR_AGENTS='{"myagent": {"kind": "python", "target": "mypkg.agent:MyAgent"}}'``); a
  configured agent of kind ``python`` without a target is looked up among the entry points
  by its name.

The target is an AgentPort instance, or a class (or factory) called with the agent's name
as the keyword ``name``, returning one. The agent gets the turn's
:class:`codur.core.ports.IterationPlan` (``repo_root``, ``prompt``, ``task_type``) and edits
the repo itself; the graph records its edits in the run's change journal, and the
:class:`codur.llm.agent_runner.Executor` drives it with the run's retries like any agent.
"""

from __future__ import annotations

import importlib
import re
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from codur.core.ports import AgentPort, ExecutionResult, IterationPlan

GROUP = "codur.agents"
TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class AgentLoadError(RuntimeError):
    """A registered agent could not be loaded; the message is one line naming it."""


def registered_agents() -> dict[str, EntryPoint]:
    """The agents installed as entry points of the group ``codur.agents``, by name."""
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def _resolve(target: str) -> Any:
    module, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def load_agent(name: str, target: str | None = None) -> AgentPort:
    """The Python agent ``name``: from ``target`` ("pkg.module:Class") or the entry point ``name``.

    Raises:
        AgentLoadError: the target does not import, is not registered, or its object is not an
            AgentPort (it needs a ``name`` and a ``run(plan)`` method).
    """
    where = target or f"entry point {GROUP}:{name}"
    try:
        if target is not None:
            if not TARGET.match(target):
                raise AgentLoadError(f"agent {name}: target {target!r} is not 'package.module:Class'")
            obj = _resolve(target)
        else:
            found = registered_agents().get(name)
            if found is None:
                raise AgentLoadError(f"agent {name}: no entry point {name!r} in the group {GROUP}")
            obj = found.load()
        agent = obj if isinstance(obj, AgentPort) else obj(name=name)
    except AgentLoadError:
        raise
    except Exception as exc:  # noqa: BLE001 - a plugin's own error, named in one line
        raise AgentLoadError(f"agent {name}: cannot load {where}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(agent, AgentPort):
        raise AgentLoadError(f"agent {name}: {where} gave {type(agent).__name__}, not an AgentPort "
                             "(it needs a name and a run(plan) method)")
    return agent


class UnloadableAgent:
    """Stands in for an agent that failed to load: each run fails at once with the reason
    (exit code -1, which the Executor does not retry), so the graph replans or ends."""

    def __init__(self, name: str, error: str) -> None:
        self.name, self.error = name, error

    def run(self, plan: IterationPlan) -> ExecutionResult:
        return ExecutionResult(success=False, output=self.error, exit_code=-1)
