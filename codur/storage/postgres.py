"""Runs kept in PostgreSQL: checkpoints, session memory, batch results and the run list.

Needs the optional extra ``codur[postgres]`` (psycopg 3 and ``langgraph-checkpoint-postgres``);
importing this module without it raises ImportError. Every table is created on first use
(``CREATE TABLE IF NOT EXISTS``, under a PostgreSQL advisory lock so that workers starting
together on several machines do not race), in the database's default schema:

- the checkpointer's own tables (``checkpoints``, ``checkpoint_blobs``, ``checkpoint_writes``,
  ``checkpoint_migrations``: :meth:`PostgresSaver.setup`), thread id = run id;
- ``codur_sessions``: session memory, one row per :class:`~codur.memory.SessionEntry`;
- ``codur_batch_results``: batch results, one row per appended record, keyed by batch name;
- ``codur_runs``: one row per run (where and when it started, its RunResult once it ended; the
  ``batch`` and ``task_id`` of a batch task's run; the ``settings`` it started with, which
  ``--resume`` takes back).

Connections are psycopg's, in autocommit mode: each write is committed when the call returns.
Errors connecting are :class:`~codur.storage.StorageError` (one line, password hidden).
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from typing import Any

import psycopg
from langgraph.checkpoint.postgres import PostgresSaver

from codur.memory import HISTORY_LIMIT, SessionEntry
from codur.storage.errors import StorageError, redact
from codur.storage.schema import connect, session, setting_up, tables


def check(url: str) -> dict[str, Any]:
    """Connect to ``url``, create codur's tables and the checkpointer's where missing, and say what
    is there: ``server`` (PostgreSQL's version), ``database``, ``user``, ``tables`` (codur's and the
    checkpointer's, sorted), ``runs``, ``resumable`` (runs with checkpoints kept), ``batches``,
    ``batch_results`` and ``sessions`` (counts).

    Raises:
        StorageError: the server cannot be reached, refuses, or the tables cannot be created.
    """
    saver, close = open_checkpointer(url)
    close()
    with session(url) as db:
        one = db.execute("SELECT current_setting('server_version') AS server, current_database() AS database, "
                         "current_user AS user").fetchone()
        tables = sorted(r["name"] for r in db.execute(
            "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND "
            r"(tablename LIKE 'codur\_%' OR tablename LIKE 'checkpoint%')").fetchall())
        counts = db.execute(
            "SELECT (SELECT count(*) FROM codur_runs) AS runs, "
            "(SELECT count(DISTINCT thread_id) FROM checkpoints) AS resumable, "
            "(SELECT count(DISTINCT batch) FROM codur_batch_results) AS batches, "
            "(SELECT count(*) FROM codur_batch_results) AS batch_results, "
            "(SELECT count(DISTINCT session_id) FROM codur_sessions) AS sessions").fetchone()
    return {**one, "tables": tables, **{k: int(v) for k, v in counts.items()}}


# checkpoints ----------------------------------------------------------------------------------

def open_checkpointer(url: str, serde: Any = None) -> tuple[PostgresSaver, Callable[[], None]]:
    """A PostgresSaver on its own connection, its tables set up (``.setup()``), and the function
    that closes it. The saver serializes its calls with a lock: the graph's thread may use it.

    Args:
        url: the database (see :func:`connect`).
        serde: the checkpoint serializer (codur's state serializer); None: LangGraph's default.

    Raises:
        StorageError: the database cannot be reached, or the setup fails.
    """
    conn = connect(url)
    try:
        with setting_up(conn):
            saver = PostgresSaver(conn, serde=serde)
            saver.setup()
    except psycopg.Error as exc:
        conn.close()
        raise StorageError(f"database {redact(url)}: checkpoint tables: {' '.join(str(exc).split())[:300]}") from None
    return saver, conn.close


# session memory -------------------------------------------------------------------------------

class PostgresSessionStore:
    """Session memory in PostgreSQL (table ``codur_sessions``): the :class:`codur.memory.SessionStore`
    of :class:`codur.memory.SqliteSessionStore`, for sessions that go on across machines. One
    connection per call, so any thread or process may use it.

    Args:
        url: the database (see :func:`connect`); the table is created on the first call.
    """

    def __init__(self, url: str) -> None:
        self.url = url

    def history(self, session_id: str, limit: int = HISTORY_LIMIT) -> list[SessionEntry]:
        """The session's latest ``limit`` entries, oldest first.

        Raises:
            StorageError: the database cannot be reached.
        """
        with session(self.url) as db:
            rows = db.execute("SELECT entry::text AS entry FROM codur_sessions WHERE session_id = %s "
                              "ORDER BY ts DESC, id DESC LIMIT %s", (session_id, limit)).fetchall()
        return [SessionEntry(**json.loads(r["entry"])) for r in reversed(rows)]

    def append(self, session_id: str, entry: SessionEntry) -> None:
        """Record a run of the session starting or ending.

        Raises:
            StorageError: the database cannot be reached.
        """
        with session(self.url) as db:
            db.execute("INSERT INTO codur_sessions (session_id, ts, entry) VALUES (%s, %s, %s)",
                       (session_id, entry.ts, entry.model_dump_json()))


# batch results --------------------------------------------------------------------------------

class PostgresResults:
    """A batch's results in PostgreSQL (table ``codur_batch_results``): the
    :class:`codur.batch.results.ResultStore` of the JSON Lines file, readable from any machine.

    Each :meth:`append` is one committed row, so a killed batch loses at most the tasks in
    flight; a restart with the same batch name sees every id already written. Records are kept
    as JSON text, as given (key order too).

    Args:
        url: the database (see :func:`connect`).
        batch: the batch's name (the results file's stem), which keeps batches apart.

    Raises:
        StorageError: the database cannot be reached.
    """

    def __init__(self, url: str, batch: str) -> None:
        self.url, self.batch = url, batch
        self._conn: psycopg.Connection | None = connect(url)
        tables(self._conn, url)

    def _db(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed:
            self._conn = connect(self.url)
        return self._conn

    def records(self) -> list[dict]:
        """Every record of the batch, in the order written."""
        rows = self._db().execute("SELECT record::text AS record FROM codur_batch_results WHERE batch = %s "
                                  "ORDER BY seq", (self.batch,)).fetchall()
        return [json.loads(r["record"]) for r in rows]

    def done_ids(self) -> set[str]:
        """Ids of the batch's tasks that already have a result."""
        rows = self._db().execute("SELECT DISTINCT task_id FROM codur_batch_results WHERE batch = %s",
                                  (self.batch,)).fetchall()
        return {r["task_id"] for r in rows}

    def append(self, record: dict) -> None:
        """Store ``record`` (committed when this returns).

        Raises:
            ValueError: the record has no ``id``.
        """
        if "id" not in record:
            raise ValueError("a batch result record needs an 'id'")
        self._db().execute("INSERT INTO codur_batch_results (batch, task_id, record) VALUES (%s, %s, %s)",
                           (self.batch, str(record["id"]), json.dumps(record, ensure_ascii=False, default=str)))

    def close(self) -> None:
        """Close the connection (a later call opens a new one)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


# the run list ---------------------------------------------------------------------------------

class PostgresRunLog:
    """The runs kept in PostgreSQL (table ``codur_runs``): a row when a run starts (its repo,
    folder, task, host and pid), its RunResult when it ends. One connection per call.

    Args:
        url: the database (see :func:`connect`).
    """

    def __init__(self, url: str) -> None:
        self.url = url

    def started(self, run_id: str, *, repo: str, run_dir: str, task: str, session_id: str | None = None,
                batch: str | None = None, task_id: str | None = None, settings: dict | None = None) -> None:
        """Record that ``run_id`` started (or was resumed) on this machine, in this process;
        ``batch`` and ``task_id`` name the batch task it runs (None outside a batch); ``settings``
        (JSON data, :func:`codur.engine.resume.saved_settings`) are kept from its first start.

        Raises:
            StorageError: the database cannot be reached.
        """
        with session(self.url) as db:
            db.execute("INSERT INTO codur_runs (run_id, repo, run_dir, task, host, pid, session_id, batch, task_id, "
                       "settings) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (run_id) DO UPDATE SET "
                       "repo = EXCLUDED.repo, run_dir = EXCLUDED.run_dir, host = EXCLUDED.host, pid = EXCLUDED.pid, "
                       "ended_at = NULL, status = 'running', reason = '', "
                       "settings = COALESCE(codur_runs.settings, EXCLUDED.settings)",
                       (run_id, repo, run_dir, task, socket.gethostname(), os.getpid(), session_id, batch, task_id,
                        None if settings is None else json.dumps(settings)))

    def ended(self, run_id: str, result: dict) -> None:
        """Record how ``run_id`` ended: ``result`` is its RunResult as JSON data (``status``, ``reason``).

        Raises:
            StorageError: the database cannot be reached.
        """
        with session(self.url) as db:
            db.execute("UPDATE codur_runs SET ended_at = now(), status = %s, reason = %s, result = %s "
                       "WHERE run_id = %s", (str(result.get("status", "unknown")), str(result.get("reason", "")),
                                             json.dumps(result, default=str), run_id))

    def matching(self, prefix: str, limit: int = 10) -> list[dict[str, Any]]:
        """The runs whose id is ``prefix`` or starts with it (the exact id alone when it is one), at
        most ``limit``, each a dict: ``run_id``, ``task``, ``session_id``, ``settings`` (JSON data or None).

        Raises:
            StorageError: the database cannot be reached.
        """
        with session(self.url) as db:
            rows = db.execute("SELECT run_id, task, session_id, settings::text AS settings FROM codur_runs "
                              "WHERE left(run_id, length(%s)) = %s ORDER BY run_id LIMIT %s",
                              (prefix, prefix, limit)).fetchall()
        exact = [r for r in rows if r["run_id"] == prefix]
        for row in rows:
            row["settings"] = json.loads(row["settings"]) if row["settings"] else None
        return exact or rows

    def runs(self, limit: int = 20) -> list[dict[str, Any]]:
        """The latest ``limit`` runs, newest first, each a dict: ``run_id``, ``repo``, ``run_dir``,
        ``task``, ``host``, ``pid``, ``session_id``, ``batch``, ``task_id``, ``started_at`` and ``ended_at`` (aware
        datetimes, ``ended_at`` None for a run without an end), ``status`` (``running`` until
        it ends), ``reason``, ``result`` (the RunResult as JSON data, or None) and
        ``resumable`` (checkpoints of the run are kept: ``codur --resume RUN_ID`` goes on from them).

        Raises:
            StorageError: the database cannot be reached.
        """
        with session(self.url) as db:
            rows = db.execute("SELECT run_id, repo, run_dir, task, host, pid, session_id, batch, task_id, "
                              "started_at, ended_at, "
                              "status, reason, result::text AS result FROM codur_runs "
                              "ORDER BY started_at DESC, run_id DESC LIMIT %s", (limit,)).fetchall()
            kept: set[str] = set()
            if rows and db.execute("SELECT to_regclass('checkpoints') IS NOT NULL AS ok").fetchone()["ok"]:
                kept = {r["thread_id"] for r in db.execute(
                    "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id = ANY(%s)",
                    ([r["run_id"] for r in rows],)).fetchall()}
        for row in rows:
            row["result"] = json.loads(row["result"]) if row["result"] else None
            row["resumable"] = row["run_id"] in kept
        return rows

