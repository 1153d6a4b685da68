"""Session memory under the engine document's module name: what a run remembers of the earlier runs
of its session. The stores live in :mod:`codur.engine.session`; this module re-exports them."""

from codur.engine.session import InMemorySessionStore, SessionEntry, SessionStore, SqliteSessionStore

__all__ = ["InMemorySessionStore", "SessionEntry", "SessionStore", "SqliteSessionStore"]
