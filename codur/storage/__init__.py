"""Where runs are kept for a team: a PostgreSQL database instead of the repo's SQLite files.

With the setting ``database_url`` (``CODUR_DATABASE_URL=postgresql://...``, or ``[storage] url``
in a config file) :mod:`codur.storage.postgres` keeps

- the LangGraph checkpoints (``langgraph-checkpoint-postgres``'s PostgresSaver; its own tables),
  so a run interrupted on one machine is resumed on any other (``codur --resume RUN_ID``);
- session memory (:class:`~codur.storage.postgres.PostgresSessionStore`, table ``codur_sessions``);
- batch results (:class:`~codur.storage.postgres.PostgresResults`, table ``codur_batch_results``);
- the run list (:class:`~codur.storage.postgres.PostgresRunLog`, table ``codur_runs``), which
  ``codur runs --database`` shows.

The driver (psycopg 3) and the checkpointer come with the optional extra ``codur[postgres]``;
this package imports them only when a database is used. Nothing here imports the engine or the
graph: callers hand in what they need (the checkpoint serializer).
"""

from __future__ import annotations

from types import ModuleType

from codur.storage.errors import StorageError, redact

__all__ = ["StorageError", "postgres_module", "redact"]


def postgres_module() -> ModuleType:
    """:mod:`codur.storage.postgres`, imported on first use.

    Raises:
        StorageError: its packages (psycopg 3, langgraph-checkpoint-postgres) are not installed.
    """
    try:
        from codur.storage import postgres
    except ImportError as exc:
        raise StorageError(f"a database is set (database_url) but Postgres storage is not available ({exc}): "
                           "pip install 'codur[postgres]'") from None
    return postgres
