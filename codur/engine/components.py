"""The engine contract's services: :class:`EngineComponents` and the :class:`ExecutionEngine` protocol."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from codur.config import CodurConfig
from codur.memory import InMemorySessionStore, SessionStore, SqliteSessionStore
from codur.storage import postgres_module

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from codur.engine.contracts import RunRequest, RunResult
    from codur.llm.factory import ModelProvider
    from codur.tools.executor import ToolExecutor


@dataclass
class Policies:
    """How tools may act.

    Attributes:
        tool_policy: ``auto`` (every tool of the task), ``read_only`` (no tool that writes files or
            runs code is offered), ``confirm_writes`` (``confirm`` is asked before each write);
            None keeps the config's.
        confirm: ``confirm(tool_name, args) -> bool``, asked before a write under confirm_writes.
    """

    tool_policy: Literal["auto", "read_only", "confirm_writes"] | None = None
    confirm: Callable[[str, dict], bool] | None = None


@dataclass
class EngineComponents:
    """What an engine runs with.

    Attributes:
        models: chat models by role — a ModelProvider (``models_for(role)``), or a mapping
            ``{"planner"|"actor"|"critic": model or [models]}``; a missing role falls back to actor.
            None: built from the config (an endpoint, or the embedded local model).
        session_store: session memory (:class:`SessionStore`), written and read by every run: its
            Initialize adds the user's message (the task, an entry ``running``), Observe loads the
            session's earlier runs, the end adds the outcome; the session is ``RunRequest.session_id``,
            else the run's own id. None: only for a run with a ``session_id``, PostgreSQL with the
            setting ``database_url``, else SQLite in the repo's ``.codur/sessions.sqlite`` (what the
            ``codur`` command uses). Default: one in memory.
        memory: the engine document's name for ``session_store`` (given, it is the session store).
        tools: the ToolExecutor every tool call of a run goes through (the model's, the patch's,
            the repo's own test runs); None: one built from the config. Given, its root must be the
            request's repo; its class, settings (its policy is the run's ``tool_policy``) and confirm
            callback hold, and each run binds it to its own journal, cancel event and events
            (:meth:`ToolExecutor.for_run`).
        policies: tool policy and the confirm callback.
        emitter: called with every event as it happens (the same envelope as the trace).
        config: settings (default: the engine's, else from the environment).
        checkpointer: a LangGraph checkpointer; None: for runs that write (so they can be resumed),
            PostgreSQL's PostgresSaver with the setting ``database_url``, else SQLite in
            ``<repo>/.codur/checkpoints.sqlite``; False: none.
    """

    models: ModelProvider | Mapping[str, BaseChatModel | Sequence[BaseChatModel]] | None = None
    session_store: SessionStore | None = field(default_factory=InMemorySessionStore)
    policies: Policies = field(default_factory=Policies)
    emitter: Callable[[dict[str, Any]], None] | None = None
    config: CodurConfig | None = None
    checkpointer: Any = None
    memory: SessionStore | None = None
    tools: ToolExecutor | None = None

    def __post_init__(self) -> None:
        """``memory`` is ``session_store``; a role map's values are checked now, not at the first call.

        Raises:
            TypeError: a role map holds something that is neither a chat model, a list of them, nor
                a model provider (one naming the role and what to pass); ``tools`` is not a ToolExecutor.
            ValueError: ``policies.tool_policy`` differs from the given ToolExecutor's policy.
        """
        if self.memory is not None:
            self.session_store = self.memory
        if self.tools is not None:
            from codur.tools.executor import ToolExecutor

            if not isinstance(self.tools, ToolExecutor):
                raise TypeError(f"EngineComponents.tools: a codur ToolExecutor, not {type(self.tools).__name__}")
            wanted = self.policies.tool_policy
            if wanted is not None and wanted != self.tools.policy:
                raise ValueError(f"EngineComponents: policies.tool_policy is {wanted!r} but the tools' policy is "
                                 f"{self.tools.policy!r}; give one (the ToolExecutor's settings hold it)")
        if self.models is None or hasattr(self.models, "models_for"):
            return
        if not isinstance(self.models, Mapping):
            raise TypeError(f"EngineComponents.models: a ModelProvider (e.g. MockProvider([...])) or a "
                            f"{{role: chat model}} map, not {type(self.models).__name__}")
        from langchain_core.language_models import BaseChatModel

        roles: dict[str, Any] = {}
        for role, value in self.models.items():
            if hasattr(value, "models_for"):  # a provider per role: its model for that role
                roles[role] = value.models_for(role)
            elif isinstance(value, BaseChatModel) or (
                    isinstance(value, Sequence) and value and all(isinstance(m, BaseChatModel) for m in value)):
                roles[role] = value
            else:
                raise TypeError(f"EngineComponents.models[{role!r}]: {type(value).__name__} is not a chat model; "
                                "pass a chat model (or a list of them) per role, or one ModelProvider as models=")
        self.models = roles

    def model_provider(self) -> ModelProvider | None:
        """``models`` as a ModelProvider (None when the config should build one)."""
        if self.models is None or hasattr(self.models, "models_for"):
            return self.models  # type: ignore[return-value]
        from codur.llm.factory import StaticModelProvider

        self.models = StaticModelProvider(self.models)  # type: ignore[arg-type]
        return self.models

    def memory_for(self, request: RunRequest, database: str | None = None) -> SessionStore | None:
        """The run's session store: the one given (or the default in-memory one) for every run;
        when None was given, the database's or the repo's (:meth:`session_store_for`) for a run
        with a ``session_id`` only (a lone run of the ``codur`` command keeps no session file).

        Raises:
            codur.storage.StorageError: as :meth:`session_store_for`.
        """
        if self.session_store is None and not request.session_id:
            return None
        return self.session_store_for(request.repo, database)

    def session_store_for(self, repo: Path, database: str | None = None) -> SessionStore:
        """The session store; when none was given, the database's (``database``: a PostgreSQL URL,
        the setting ``database_url``) or else the repo's SQLite one.

        Raises:
            codur.storage.StorageError: ``database`` is given but ``codur[postgres]`` is not installed.
        """
        if self.session_store is None:
            if database:
                self.session_store = postgres_module().PostgresSessionStore(database)
            else:
                self.session_store = SqliteSessionStore.for_repo(repo)
        return self.session_store


@runtime_checkable
class ExecutionEngine(Protocol):
    """Runs a request to its end: ``await engine.execute(request, components) -> RunResult``."""

    async def execute(self, request: RunRequest, components: EngineComponents) -> RunResult:
        """Run ``request`` with ``components``; cancelling the awaiting task cancels the run."""
        ...
