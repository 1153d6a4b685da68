"""The engine contract: ``await LocalEngine().execute(RunRequest(input=...), EngineComponents(...))``.

- :class:`ExecutionEngine` — the protocol; :class:`LocalEngine` — runs codur's graph in this process.
- :class:`EngineComponents` — models by role, the ToolExecutor, session memory, policies, the
  event emitter; :class:`MockProvider` — a scripted model for examples and tests.
- :class:`RunRequest` → :class:`RunResult` (status, reason, output_text, turns, metadata).
- :class:`SessionStore` with :class:`InMemorySessionStore` and :class:`SqliteSessionStore`.

``codur.run`` / ``codur.arun`` are the short forms.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.core.contracts import RunStatus, StopReason
    from codur.engine.components import EngineComponents, ExecutionEngine, Policies
    from codur.engine.contracts import RunMetadata, RunRequest, RunResult
    from codur.engine.local import LocalEngine
    from codur.engine.runner import arun, run
    from codur.engine.session import InMemorySessionStore, SessionEntry, SessionStore, SqliteSessionStore
    from codur.llm.scripted import MockProvider

_LAZY = {
    "RunStatus": "codur.core.contracts", "StopReason": "codur.core.contracts",
    "EngineComponents": "codur.engine.components", "ExecutionEngine": "codur.engine.components",
    "Policies": "codur.engine.components",
    "RunMetadata": "codur.engine.contracts", "RunRequest": "codur.engine.contracts",
    "RunResult": "codur.engine.contracts", "LocalEngine": "codur.engine.local",
    "arun": "codur.engine.runner", "run": "codur.engine.runner",
    "InMemorySessionStore": "codur.engine.session", "SessionEntry": "codur.engine.session",
    "SessionStore": "codur.engine.session", "SqliteSessionStore": "codur.engine.session",
    "MockProvider": "codur.llm.scripted",
}


from codur._lazy import lazy_exports  # noqa: E402

__getattr__ = lazy_exports("codur.engine", _LAZY, globals())


__all__ = [
    "EngineComponents", "ExecutionEngine", "InMemorySessionStore", "LocalEngine", "MockProvider", "Policies",
    "RunMetadata", "RunRequest", "RunResult", "RunStatus", "SessionEntry", "SessionStore", "SqliteSessionStore",
    "StopReason", "arun", "run",
]
