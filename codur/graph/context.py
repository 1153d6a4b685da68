"""The runtime context: settings and services a node reads, passed as LangGraph's ``context``.

``codur.run`` builds one per run. LangGraph Studio passes none (or a dict of
settings); :func:`get_context` then builds a default one from the state and keeps
it for the run's lifetime, keyed by run_id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.config import CodurConfig
from codur.engine.budget import Limits
from codur.llm.factory import ConfigModelProvider, ModelProvider
from codur.tools.executor import ToolExecutor


@dataclass
class CodurContext:
    """What nodes need beyond the state.

    Attributes:
        config: the settings.
        models: chat models per role (default: built from config).
        limits: turns, wall time, tokens, cancellation.
        run_dir: this run's folder (trace, diff, originals), or None.
        confirm: asked before a write when the tool policy is confirm_writes.
    """

    config: CodurConfig = field(default_factory=CodurConfig)
    models: ModelProvider | None = None
    limits: Limits | None = None
    run_dir: Path | None = None
    confirm: Callable[[str, dict], bool] | None = None
    _tools: dict[str, ToolExecutor] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.models is None:
            self.models = ConfigModelProvider(self.config)
        if self.limits is None:
            c = self.config
            self.limits = Limits(max_turns=c.max_turns, timeout_s=c.timeout_s, token_budget=c.token_budget)

    def critic_enabled(self, *, has_tests: bool) -> bool:
        """Whether the critic model verifies: ``config.critic`` when set; when unset, on for an
        endpoint, and with the embedded local model only for a repo without tests (with tests
        the suite decides, and a 1.5B critic's advice costs ~20 s a call)."""
        if self.config.critic is not None:
            return self.config.critic
        return not has_tests or not (isinstance(self.models, ConfigModelProvider) and self.models.uses_local_model)

    def tools(self, repo: str | Path) -> ToolExecutor:
        """The run's ToolExecutor for ``repo`` (one per repo, sharing the change journal)."""
        from codur.engine.events import emit

        key = str(repo)
        with self._lock:
            if key not in self._tools:
                c = self.config
                self._tools[key] = ToolExecutor(
                    Path(repo), policy=c.tool_policy, confirm=self.confirm, timeout_s=c.tool_timeout_s,
                    output_chars=c.tool_output_chars, allow_secrets=c.allow_secrets,
                    run_dir=self.run_dir, on_event=emit,
                )
                if self.limits is not None:  # Studio and tests too, not only the runner
                    self._tools[key].bind_cancel(self.limits.cancel)
                self._tools[key].ctx.env_allow = tuple(c.tool_env_allow)
            return self._tools[key]


_DEFAULT_CONTEXTS: dict[str, CodurContext] = {}


def get_context(runtime: Any, state: dict) -> CodurContext:
    """The run's context: the one given to the graph, or a default built once per run_id."""
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, CodurContext):
        return ctx
    run_id = state.get("run_id", "")
    if run_id not in _DEFAULT_CONTEXTS:
        overrides = ctx if isinstance(ctx, dict) else {}
        _DEFAULT_CONTEXTS[run_id] = CodurContext(config=CodurConfig(**overrides))
    return _DEFAULT_CONTEXTS[run_id]


def forget_context(run_id: str) -> None:
    """Drop a default context when its run is done."""
    _DEFAULT_CONTEXTS.pop(run_id, None)
