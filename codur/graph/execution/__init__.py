"""The Act and Verify nodes of the graph and the agent's tool loop.

Exports (imported on first use, PEP 562, so importing the package pulls in no node
module and no import cycle can appear through it):

- :func:`delegate_node`, :func:`execute_node`, :func:`review_node`;
- :func:`verification_agent_node` (``verification_agent.py``): the graph's node ``verify``
  (engine state Verify), which runs the verification agent and returns an
  :class:`ExecuteNodeResult` with ``verification_details``;
- :func:`patch_node`, the candidate-patch pipeline's node, also exported as
  :func:`repair_node` (its name in the first design: the mutation-repair step);
- :mod:`codur.graph.execution.repair`: ``_attempt_local_repair``, the mutation repair
  (the main job with the mutation fixer only, 4 workers) answering ``{"success", "message"}``;
- :class:`AgentExecutor`, the agent's tool loop, and :class:`LLMAgent`, the loop behind
  the AgentPort protocol.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codur.graph.execution.agent_executor import AgentExecutor, LLMAgent
    from codur.graph.execution.delegate import delegate_node
    from codur.graph.execution.execute import execute_node
    from codur.graph.execution.patch import patch_node
    from codur.graph.execution.patch import patch_node as repair_node
    from codur.graph.execution.review import review_node
    from codur.graph.execution.verification_agent import verification_agent_node
    from codur.graph.state import ExecuteNodeResult

_LAZY = {
    "AgentExecutor": ("codur.graph.execution.agent_executor", "AgentExecutor"),
    "LLMAgent": ("codur.graph.execution.agent_executor", "LLMAgent"),
    "delegate_node": ("codur.graph.execution.delegate", "delegate_node"),
    "execute_node": ("codur.graph.execution.execute", "execute_node"),
    "patch_node": ("codur.graph.execution.patch", "patch_node"),
    "repair_node": ("codur.graph.execution.patch", "patch_node"),
    "review_node": ("codur.graph.execution.review", "review_node"),
    "verification_agent_node": ("codur.graph.execution.verification_agent", "verification_agent_node"),
    "ExecuteNodeResult": ("codur.graph.state", "ExecuteNodeResult"),
}

__all__ = ["AgentExecutor", "ExecuteNodeResult", "LLMAgent", "delegate_node", "execute_node", "patch_node",
           "repair_node", "review_node", "verification_agent_node"]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
