"""The run object (:class:`Run`): the services and settings a node reads, passed as LangGraph's ``context``.

One function builds it, :func:`build_context`, once per run: the engine for its runs
(:class:`codur.engine.LocalEngine`), and :class:`StudioRun` for a ``langgraph dev`` run
(which passes no run object, or a dict of settings). Everything in it is built there, once:

- the model provider (the caller's, or the configured one), with the run's one usage ledger
  (every model call recorded and priced);
- the root budget (:class:`codur.core.budget.Limits`), which reads that ledger and the run's
  cancel event;
- the run's one ToolExecutor for its repo (settings from config, the run's cancel event, the
  actor model and the run's remaining budget for its RLM tool, the repo's test command), or the
  caller's (``EngineComponents.tools``) bound to the run with :meth:`ToolExecutor.for_run`;
- the confirm callback of the confirm-writes policy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict  # pydantic reads only this one before Python 3.12

from codur.config import CodurConfig
from codur.core.budget import Limits
from codur.llm.factory import ConfigModelProvider, ModelProvider, with_ledger
from codur.testing.command import resolve as resolve_tests
from codur.tools.executor import ToolExecutor, ToolSettings


@dataclass(frozen=True)
class Run:
    """The run: what nodes need beyond the state, built once per run by :func:`build_context`
    (in the engine, :class:`codur.engine.LocalEngine`) and handed to the graph as LangGraph's
    runtime context (``graph.stream(..., context=run)``; a node reads ``runtime.context``).

    Attributes:
        repo: the repository (resolved), or None when the request named no directory (the run
            then ends at initialize).
        config: the settings.
        models: chat models per role.
        limits: the root budget: turns, wall time, tokens, cancellation.
        run_dir: this run's folder (trace, diff, originals), or None.
        confirm: asked before a write when the tool policy is confirm_writes.
        memory: the session store (:class:`codur.memory.SessionStore`), or None.
        session_id: the run's session ('' for none): Initialize records the run in ``memory``,
            Observe loads the session's earlier runs from it.
        executor: the run's ToolExecutor for ``repo`` (None without a repo); read it as :attr:`tools`.
        record: the run's own record (:class:`codur.graph.record.RunRecord`) when no engine
            keeps one (a Studio run, ``codur.build_graph().invoke``); None for the engine's runs.
    """

    repo: Path | None
    config: CodurConfig
    models: ModelProvider
    limits: Limits
    run_dir: Path | None = None
    confirm: Callable[[str, dict], bool] | None = None
    memory: Any = None
    session_id: str = ""
    executor: ToolExecutor | None = None
    record: Any = None

    @property
    def tools(self) -> ToolExecutor:
        """The run's ToolExecutor (one per run, holding the change journal).

        Raises:
            NotADirectoryError: the run has no repository.
        """
        if self.executor is None:
            raise NotADirectoryError(f"repository not found: {self.repo}")
        return self.executor

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


def build_context(repo: Path | str | None, config: CodurConfig | None = None, *, models: ModelProvider | None = None,
                  cancel: threading.Event | None = None, run_dir: Path | None = None,
                  confirm: Callable[[str, dict], bool] | None = None, memory: Any = None,
                  session_id: str = "", record: Any = None, tools: ToolExecutor | None = None) -> Run:
    """The run object, built once per run (the engine's runs and Studio's alike).

    Args:
        repo: the repository; None, or a path that is not a directory: a run object without
            tools (for a request initialize refuses).
        config: the run's settings (default: the defaults; the engine merges them with the
            request once, :func:`codur.engine.settings.run_settings`).
        models: the caller's model provider (default: ``config.mock_replies`` played by a
            MockProvider when set, else built from config); either way given the run's one usage
            ledger, here.
        cancel: the run's cancel event (default: a new one), read by the root budget and the
            configured models' calls.
        run_dir: the run's folder, or None.
        confirm: ``confirm(tool_name, args) -> bool`` for the confirm-writes policy (its attribute
            ``risky``, when set, approves writes that add risky code).
        memory, session_id: the session store and the run's session (see :class:`Run`);
            without a store no memory is kept (the engine gives the run's id as the session of
            a run without one).
        tools: the caller's ToolExecutor (``EngineComponents.tools``), bound to this run
            (:meth:`ToolExecutor.for_run`) instead of a new one; its root must be ``repo``.
        record: the run's own record (a :class:`codur.graph.record.RunRecord`; its folder is
            then the run's folder), or None when the caller keeps the record (the engine).

    Raises:
        codur.testing.command.TestCommandError: the configured ``test_command`` is not found.
        ValueError: ``tools`` works on another folder than ``repo``.
    """
    from codur.core.events import emit

    config = config or CodurConfig()
    if record is not None:
        run_dir = record.run_dir
    if models is None and config.mock_replies is not None:
        from codur.llm.scripted import MockProvider

        models = MockProvider(config.mock_replies)
    cancel = cancel or threading.Event()
    models = with_ledger(models or ConfigModelProvider(config, cancel=cancel))
    r = config.runtime  # max_iterations: the Plan→Act→Verify cycles (max_turns)
    # the root budget, built once: it reads the run's one usage ledger (every model call)
    limits = Limits(max_turns=r.max_iterations, timeout_s=r.timeout_s, token_budget=r.token_budget,
                    max_cost_usd=r.max_cost_usd, cancel=cancel, ledger=models.ledger)
    root = Path(repo).expanduser().resolve() if repo and str(repo).strip() else None
    executor = None
    if root is not None and root.is_dir():
        provider = models
        services: dict[str, Any] = dict(run_dir=run_dir, on_event=emit, cancel=limits.cancel,
                                        model_factory=lambda: provider.models_for("actor")[0],
                                        budget_left=limits.remaining,
                                        test_command=resolve_tests(root, config.test_command), ledger=models.ledger)
        if tools is not None:
            if tools.root != root:
                raise ValueError(f"the ToolExecutor works on {tools.root}, not on the run's repo {root}")
            executor = tools.for_run(**services)
        else:
            executor = ToolExecutor(root, ToolSettings.from_config(config), confirm=confirm, **services)
    return Run(repo=root, config=config, models=models, limits=limits, run_dir=run_dir, confirm=confirm,
                        memory=memory if session_id else None, session_id=session_id, executor=executor,
                        record=record)


class StudioSettings(TypedDict, total=False):
    """The context schema the graph declares: settings a LangGraph Studio / ``langgraph dev`` run may
    pass as its ``context`` (any CodurConfig field is accepted; these are the common ones).
    :class:`StudioRun` builds the run's :class:`Run` from them with :func:`build_context`;
    the engine passes a built Run instead."""

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


class StudioRun:
    """The run objects of the graph run without an engine: ``langgraph dev`` / Studio (see
    :func:`codur.graph.builder.studio_graph`), or ``codur.build_graph().invoke(...)``. Each
    run's object is built by its first node from the run's settings (a :class:`StudioSettings`
    dict, or none) and the state's repo, with the run's own record
    (:class:`codur.graph.record.RunRecord`: folder, trace, journal, result, as the CLI's), and
    handed to every later node of that run (found by the state's ``run_id``)."""

    #: Run objects kept at most (the oldest is dropped: its run has ended long ago).
    KEEP = 32

    def __init__(self) -> None:
        self._runs: dict[str, Run] = {}
        self._lock = threading.Lock()

    def __call__(self, given: Any, state: dict) -> Run:
        """The run's object: ``given`` when it is one, else the one this run built."""
        if isinstance(given, Run):
            return given
        with self._lock:
            run_id = str(state.get("run_id") or "")
            if run_id in self._runs:
                return self._runs[run_id]
            ctx = self._build(given, state, run_id)
            key = run_id or (ctx.record.run_id if ctx.record is not None else "")
            self._runs[key] = ctx
            while len(self._runs) > self.KEEP:
                self._runs.pop(next(iter(self._runs)))
            return ctx

    @staticmethod
    def _build(given: Any, state: dict, run_id: str) -> Run:
        from codur.config import load_config
        from codur.graph.record import RunRecord

        repo = Path(state.get("repo") or "").expanduser() if (state.get("repo") or "").strip() else None
        repo = repo.resolve() if repo is not None and repo.is_dir() else None
        config = load_config(repo, **(given if isinstance(given, dict) else {}))
        record = None
        if repo is not None and (state.get("task") or "").strip() and not config.dry_run:
            safe = run_id if run_id and all(c.isalnum() or c in "-_." for c in run_id) else None
            try:
                record = RunRecord(repo, str(state.get("task")), safe)
            except OSError:  # a repo it cannot write: the run's own failure says so
                record = None
        return build_context(repo, config, record=record)


def given_context(given: Any, state: dict) -> Run:
    """The run object the caller passed as the graph's ``context`` (the engine's).

    Raises:
        TypeError: the context is not a :class:`Run` (a ``langgraph dev`` run goes through
            :func:`codur.graph.builder.studio_graph`, which builds one).
    """
    if not isinstance(given, Run):
        raise TypeError(f"codur's graph runs with a Run as its context (build_context), not "
                        f"{type(given).__name__}; langgraph dev runs codur.graph.builder:studio_graph")
    return given
