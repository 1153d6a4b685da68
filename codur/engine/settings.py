"""A run's settings: the caller's config and the request merged in one function, once per run.

The engine's three run objects: the :class:`codur.engine.contracts.RunRequest` (what is asked),
the settings (a :class:`codur.config.CodurConfig`, made here), and the run object every node gets
(:class:`codur.graph.context.Run`, built from these settings once, by
:func:`codur.graph.context.build_context`, and handed to the graph as LangGraph's runtime context).
"""

from __future__ import annotations

from typing import Any

from codur.config import CodurConfig, load_config
from codur.engine.components import EngineComponents
from codur.engine.contracts import RunRequest


def run_settings(request: RunRequest, components: EngineComponents, config: CodurConfig | None = None) -> CodurConfig:
    """The run's settings: the components' config, else ``config`` (the engine's), else
    :func:`codur.config.load_config` for the request's repo (its ``codur.toml`` /
    ``pyproject.toml [tool.codur]`` or the user's file, under ``CODUR_*`` variables); then the
    request's limits over it (``max_turns``, ``timeout_s`` in seconds, ``token_budget`` in
    tokens, when given), its ``dry_run`` (or the config's), and the tool policy of the
    components (``policies.tool_policy``, or the given ToolExecutor's own policy).

    Raises:
        codur.config.ConfigError: a setting in a file or a variable does not parse.
        ValueError: ``components.tools`` works on another folder than the request's repo.
    """
    config = components.config or config or load_config(request.repo)
    updates: dict[str, Any] = {"dry_run": request.dry_run or config.dry_run}
    for key in ("max_turns", "timeout_s", "token_budget"):
        if getattr(request, key) is not None:
            updates[key] = getattr(request, key)
    if components.policies.tool_policy is not None:
        updates["tool_policy"] = components.policies.tool_policy
    if components.tools is not None:  # the caller's executor: its policy is the run's
        if components.tools.root != request.repo:
            raise ValueError(f"EngineComponents.tools works on {components.tools.root}, not on the "
                             f"request's repo {request.repo}")
        updates["tool_policy"] = components.tools.policy
    return config.model_copy(update=updates)
