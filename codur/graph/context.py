"""The runtime context: the services and settings a node reads, passed as LangGraph's ``context``.

One function builds it, :func:`build_context`: the engine calls it once per run
(:class:`codur.engine.LocalEngine`), and :func:`get_context` calls it for a run that
got none (LangGraph Studio passes none, or a dict of settings), keeping the result
for the run's lifetime, keyed by run_id. The services are built once per run:

- the model provider, with the run's usage ledger (every call recorded and priced);
- the root budget (:class:`codur.core.budget.Limits`), which reads that ledger;
- the ToolExecutor per repo (bound to the run's cancel event; its RLM tool gets the
  run's actor model and a child budget cut from what the run has left);
- the confirm callback of the confirm-writes policy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict  # pydantic reads only this one before Python 3.12

from codur.config import CodurConfig
from codur.core.budget import Limits
from codur.llm.factory import ConfigModelProvider, ModelProvider, with_ledger
from codur.testing.command import resolve as resolve_tests
from codur.tools.executor import ToolExecutor


@dataclass
class CodurContext:
    """What nodes need beyond the state (build it with :func:`build_context`).

    Attributes:
        config: the settings.
        models: chat models per role (default: built from config).
        limits: the root budget: turns, wall time, tokens, cancellation.
        run_dir: this run's folder (trace, diff, originals), or None.
        confirm: asked before a write when the tool policy is confirm_writes.
        memory: the session store (:class:`codur.memory.SessionStore`), or None.
        session_id: the run's session ('' for none): Initialize records the run in ``memory``,
            Observe loads the session's earlier runs from it.
    """

    config: CodurConfig = field(default_factory=CodurConfig)
    models: ModelProvider | None = None
    limits: Limits | None = None
    run_dir: Path | None = None
    confirm: Callable[[str, dict], bool] | None = None
    memory: Any = None
    session_id: str = ""
    _tools: dict[str, ToolExecutor] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if not self.session_id:
            self.memory = None  # memory is per session: no session, nothing to record or load
        self.models = with_ledger(self.models or ConfigModelProvider(self.config))
        ledger = self.models.ledger  # the run's one usage ledger: the limits read it
        if self.limits is None:
            r = self.config.runtime  # max_iterations: the Plan→Act→Verify cycles (max_turns)
            self.limits = Limits(max_turns=r.max_iterations, timeout_s=r.timeout_s, token_budget=r.token_budget,
                                 max_cost_usd=r.max_cost_usd, ledger=ledger)
        elif self.limits.ledger is not ledger:
            self.limits = replace(self.limits, ledger=ledger)

    def critic_enabled(self, *, has_tests: bool) -> bool:
        """Whether the critic model verifies: ``config.critic`` when set; when unset, on for an
        endpoint, and with the embedded local model only for a repo without tests (with tests
        the suite decides, and a 1.5B critic's advice costs ~20 s a call). Never when no fixer
        that calls a model is enabled (``fixers=["mutation"]``: the run calls no model)."""
        if not self.config.model_fixers():
            return False
        if self.config.critic is not None:
            return self.config.critic
        return not has_tests or not (isinstance(self.models, ConfigModelProvider) and self.models.uses_local_model)

    def add_tools(self, executor: ToolExecutor) -> ToolExecutor:
        """Use ``executor`` (built by the caller) as the run's ToolExecutor for its root."""
        with self._lock:
            self._tools[str(executor.ctx.root)] = executor
        self._bind(executor)
        return executor

    def tools(self, repo: str | Path) -> ToolExecutor:
        """The run's ToolExecutor for ``repo`` (one per repo, sharing the change journal), with the
        repo's test command resolved once (:func:`codur.testing.command.resolve`; raises its
        TestCommandError for a configured command that is not found)."""
        from codur.core.events import emit

        key = str(Path(repo).resolve())
        with self._lock:
            if key not in self._tools:
                c = self.config
                executor = ToolExecutor(
                    Path(key), policy=c.tool_policy, confirm=self.confirm, timeout_s=c.tool_timeout_s,
                    output_chars=c.tool_output_chars, allow_secrets=c.allow_secrets,
                    run_dir=self.run_dir, on_event=emit,
                )
                executor.ctx.env_allow = tuple(c.tool_env_allow)
                executor.ctx.test_command = resolve_tests(Path(key), c.test_command)
                executor.ctx.memory_mb = c.test_memory_mb or None
                executor.ctx.allow_risky = c.allow_risky_patches
                executor.ctx.network = c.sandbox_network
                executor.ctx.confirm_risky = getattr(self.confirm, "risky", None)  # the CLI's --confirm asks
                self._tools[key] = executor
                self._bind(executor)
            return self._tools[key]

    def _bind(self, executor: ToolExecutor) -> None:
        """Give the executor the run's services: cancel event, actor model, child budget."""
        assert self.limits is not None and self.models is not None
        limits, models = self.limits, self.models
        executor.bind_cancel(limits.cancel)
        if executor.ctx.model is None and executor.ctx.model_factory is None:
            executor.ctx.model_factory = lambda: models.models_for("actor")[0]
        executor.ctx.budget_left = limits.remaining


def build_context(config: CodurConfig | None = None, *, models: ModelProvider | None = None,
                  limits: Limits | None = None, run_dir: Path | None = None,
                  confirm: Callable[[str, dict], bool] | None = None,
                  tools: ToolExecutor | None = None, memory: Any = None, session_id: str = "") -> CodurContext:
    """The run's context, built once per run (the engine's runs and Studio's alike).

    Args:
        config: the settings (default: from the environment).
        models: the model provider (default: ``config.mock_replies`` played by a MockProvider when
            set, else built from config, with its usage ledger).
        limits: the root budget (default: from config); it reads the provider's ledger.
        run_dir: the run's folder, or None.
        confirm: ``confirm(tool_name, args) -> bool`` for the confirm-writes policy.
        tools: a ToolExecutor to use for its repo instead of building one.
        memory, session_id: the session store and the run's session (see :class:`CodurContext`).
    """
    config = config or CodurConfig()
    if models is None and config.mock_replies is not None:
        from codur.llm.scripted import MockProvider

        models = MockProvider(config.mock_replies)
    ctx = CodurContext(config=config, models=models, limits=limits, run_dir=run_dir, confirm=confirm,
                       memory=memory, session_id=session_id)
    if tools is not None:
        ctx.add_tools(tools)
    return ctx


class StudioContext(TypedDict, total=False):
    """The context schema the graph declares: settings a LangGraph Studio / ``langgraph dev`` run may
    pass as its ``context`` (any CodurConfig field is accepted; these are the common ones).
    :func:`get_context` builds the run's :class:`CodurContext` from them with :func:`build_context`;
    the engine passes a built CodurContext instead."""

    base_url: str
    model: str
    max_turns: int
    timeout_s: float
    token_budget: int
    critic: bool
    repair: bool
    fixers: list[str]
    tool_policy: str
    mock_replies: list[str]


_DEFAULT_CONTEXTS: dict[str, CodurContext] = {}


def get_context(runtime: Any, state: dict) -> CodurContext:
    """The run's context: the one given to the graph, or a default built once per run_id."""
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, CodurContext):
        return ctx
    run_id = state.get("run_id") or _thread_id()
    if run_id not in _DEFAULT_CONTEXTS:
        from codur.config import load_config

        overrides = ctx if isinstance(ctx, dict) else {}
        repo = Path(state["repo"]) if state.get("repo") and Path(state["repo"]).is_dir() else None
        _DEFAULT_CONTEXTS[run_id] = build_context(load_config(repo, **overrides))
    return _DEFAULT_CONTEXTS[run_id]


def _thread_id() -> str:
    from codur.core.events import current_run_id

    return current_run_id()


def forget_context(run_id: str) -> None:
    """Drop a default context when its run is done ('' : the run of this thread's graph)."""
    _DEFAULT_CONTEXTS.pop(run_id or _thread_id(), None)
