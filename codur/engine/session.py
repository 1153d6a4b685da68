"""Session memory as the engine sees it: the stores and entries live in :mod:`codur.memory` (below
the graph, whose Initialize and Observe states use it); this module re-exports them."""

from codur.memory import (
    DIFF_SUMMARY_CHARS,
    HISTORY_LIMIT,
    InMemorySessionStore,
    SessionEntry,
    SessionStore,
    SqliteSessionStore,
    recall,
    summarize_diff,
)

__all__ = ["DIFF_SUMMARY_CHARS", "HISTORY_LIMIT", "InMemorySessionStore", "SessionEntry", "SessionStore",
           "SqliteSessionStore", "recall", "summarize_diff"]
