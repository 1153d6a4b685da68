"""codur's own tables in PostgreSQL and the connections to them: one autocommit connection whose
rows are dicts (:func:`connect`), the tables created once per process and database under an
advisory lock (:func:`tables`), a connection for one call (:func:`session`). The stores over
them are :mod:`codur.storage.postgres`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.rows import dict_row

from codur.storage.errors import StorageError, redact

#: Seconds to wait for the server when connecting.
CONNECT_TIMEOUT_S = 10
SETUP_WAIT_S = 120.0  # seconds one setup may wait for another process's
#: The advisory lock key every table setup holds (any fixed 64-bit number; "codur" in ASCII).
SETUP_LOCK = 0x636F647572

TABLES = """
CREATE TABLE IF NOT EXISTS codur_sessions (
    id BIGSERIAL PRIMARY KEY, session_id TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL, entry JSON NOT NULL);
CREATE INDEX IF NOT EXISTS codur_sessions_by_session ON codur_sessions (session_id, ts);
CREATE TABLE IF NOT EXISTS codur_batch_results (
    seq BIGSERIAL PRIMARY KEY, batch TEXT NOT NULL, task_id TEXT NOT NULL, record JSON NOT NULL,
    written_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS codur_batch_results_by_batch ON codur_batch_results (batch, seq);
CREATE TABLE IF NOT EXISTS codur_runs (
    run_id TEXT PRIMARY KEY, repo TEXT NOT NULL, run_dir TEXT NOT NULL, task TEXT NOT NULL,
    host TEXT NOT NULL, pid INTEGER NOT NULL, session_id TEXT, started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    ended_at TIMESTAMPTZ, status TEXT NOT NULL DEFAULT 'running', reason TEXT NOT NULL DEFAULT '', result JSON);
ALTER TABLE codur_runs ADD COLUMN IF NOT EXISTS batch TEXT;
ALTER TABLE codur_runs ADD COLUMN IF NOT EXISTS task_id TEXT;
ALTER TABLE codur_runs ADD COLUMN IF NOT EXISTS settings JSON;
CREATE INDEX IF NOT EXISTS codur_runs_by_batch ON codur_runs (batch, task_id);
"""


def connect(url: str) -> psycopg.Connection:
    """A new autocommit connection to ``url`` whose rows are dicts (what PostgresSaver needs).

    Args:
        url: ``postgresql://user:password@host:port/dbname`` (any libpq connection string).

    Raises:
        StorageError: the server cannot be reached or refuses (wrong password, no such database).
    """
    try:
        return psycopg.Connection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                                          connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as exc:
        why = " ".join(str(exc).split())[:300]
        raise StorageError(f"database {redact(url)}: cannot connect ({why})") from None


@contextmanager
def setting_up(conn: psycopg.Connection) -> Iterator[None]:
    """Hold the setup advisory lock on ``conn`` (session level) for the block.

    The lock is tried, not waited for: PostgresSaver's migrations build indexes with ``CREATE
    INDEX CONCURRENTLY``, which waits for every older transaction, and a blocked
    ``pg_advisory_lock`` is one; two processes setting up a fresh database at once (two tasks of
    a batch) then deadlock. A try ends at once, so the holder's index build never waits for it.

    Raises:
        psycopg.errors.LockNotAvailable: another process held the lock for ``SETUP_WAIT_S`` seconds.
    """
    deadline = time.monotonic() + SETUP_WAIT_S
    while not conn.execute("SELECT pg_try_advisory_lock(%s) AS held", (SETUP_LOCK,)).fetchone()["held"]:
        if time.monotonic() > deadline:
            raise psycopg.errors.LockNotAvailable(f"codur's setup lock was held for over {SETUP_WAIT_S:g} s")
        time.sleep(0.05)
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))


_ready: set[str] = set()  # URLs whose codur tables this process has created or found


def tables(conn: psycopg.Connection, url: str) -> None:
    """Create codur's tables (:data:`TABLES`) in ``url``'s database over ``conn`` unless this process
    already did, under the setup advisory lock."""
    if url in _ready:
        return
    with setting_up(conn):
        for statement in filter(str.strip, TABLES.split(";")):
            conn.execute(statement)
    _ready.add(url)


@contextmanager
def session(url: str) -> Iterator[psycopg.Connection]:
    """A connection for one call, codur's tables in place, closed after the block.

    Raises:
        StorageError: the server cannot be reached or refuses.
    """
    conn = connect(url)
    try:
        tables(conn, url)
        yield conn
    finally:
        conn.close()
