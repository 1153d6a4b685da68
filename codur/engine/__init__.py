"""The engine contract: ``await LocalEngine().execute(RunRequest(input=...), EngineComponents(...))``.

- :class:`ExecutionEngine` — the protocol; :class:`LocalEngine` — runs codur's graph in this process.
- :class:`EngineComponents` — models by role, session memory, policies, the
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
    from codur.llm.scripted import MockProvider
    from codur.memory import InMemorySessionStore, SessionEntry, SessionStore, SqliteSessionStore

_LAZY = {
    "RunStatus": "codur.core.contracts", "StopReason": "codur.core.contracts",
    "EngineComponents": "codur.engine.components", "ExecutionEngine": "codur.engine.components",
    "Policies": "codur.engine.components",
    "RunMetadata": "codur.engine.contracts", "RunRequest": "codur.engine.contracts",
    "RunResult": "codur.engine.contracts", "LocalEngine": "codur.engine.local",
    "arun": "codur.engine.runner", "run": "codur.engine.runner",
    "InMemorySessionStore": "codur.memory", "SessionEntry": "codur.memory",
    "SessionStore": "codur.memory", "SqliteSessionStore": "codur.memory",
    "MockProvider": "codur.llm.scripted",
}


from codur._lazy import lazy_exports  # noqa: E402

__getattr__ = lazy_exports("codur.engine", _LAZY, globals())


__all__ = [
    "EngineComponents", "ExecutionEngine", "InMemorySessionStore", "LocalEngine", "MockProvider", "Policies",
    "RunMetadata", "RunRequest", "RunResult", "RunStatus", "SessionEntry", "SessionStore", "SqliteSessionStore",
    "StopReason", "arun", "run",
]
