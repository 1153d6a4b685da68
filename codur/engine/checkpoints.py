"""Where a run is kept so it can be resumed: its checkpointer and the point it resumes from.

A run that writes checkpoints every node (LangGraph's checkpointer, thread id = run id): in
``<repo>/.codur/checkpoints.sqlite`` (SQLite), or with the setting ``database_url`` in that
PostgreSQL database (:mod:`codur.storage`), so any machine can resume it. A dry run keeps none.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codur.config import CodurConfig
from codur.core.codur_folder import codur_path
from codur.engine.contracts import RunStatus
from codur.storage import postgres_module

#: The graph's step limit, given in the run config (not to ``compile()``).
RECURSION_LIMIT = 200


class ResumeError(ValueError):
    """A run cannot be resumed (no checkpoint of it in the repo); the message is one line."""


def open_checkpointer(given: Any, config: CodurConfig, repo: Path,
                      serde: Callable[[], Any]) -> tuple[Any, Callable[[], None] | None]:
    """(checkpointer or None, the function that closes it or None).

    Args:
        given: the components' checkpointer (``False``: none; None: choose one here).
        config: the run's settings (``dry_run``, ``database_url``).
        repo: the repository, whose ``.codur/checkpoints.sqlite`` holds SQLite checkpoints.
        serde: ``() -> serializer`` for the checkpoints (the graph state's, which may load its records).

    Returns:
        ``given`` when set; else for a run that writes the database's checkpointer (PostgreSQL,
        with the setting ``database_url``) or SQLite in ``<repo>/.codur/``; a dry run none.

    Raises:
        codur.storage.StorageError: the database cannot be used.
    """
    if given is not None:
        return (None if given is False else given), None
    if config.dry_run:
        return None, None
    url = config.database()
    if url:
        return postgres_module().open_checkpointer(url, serde=serde())
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = codur_path(repo, "checkpoints.sqlite")  # no link on the way (codur.core.codur_folder)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
    return SqliteSaver(conn, serde=serde()), conn.close


#: The nodes that take the last verdict as it stands instead of checking the repo: a resume before
#: one of them verifies again first (the repo may have changed since: a cancel puts the edits back).
TRUST_THE_VERDICT = frozenset({"review", "done"})


@dataclass(frozen=True)
class ResumePoint:
    """Where a resumed run goes on.

    Attributes:
        config: the run config of the checkpoint to continue from (``recursion_limit`` and the
            run id set).
        checkpoint_id: the id of the checkpoint the run was interrupted after.
        next: the node(s) the interrupted run would have run next.
        rechecked: "" or why the run verifies again before going on (it was interrupted after its
            verification: the verdict is of the repo as it was then).
    """

    config: dict[str, Any]
    checkpoint_id: str
    next: tuple[str, ...]
    rechecked: str = ""


def resume_point(graph: Any, run_config: dict[str, Any], repo: Path, run_id: str, *,
                 in_database: bool) -> ResumePoint:
    """The last checkpoint whose state was still running and had a next node: the run continues
    from its last completed node. A checkpoint written for the repo at another path (another
    machine, through the database) gets ``repo`` first (a new checkpoint after it, the same next
    node). A run interrupted after its verification (next: review or done, :data:`TRUST_THE_VERDICT`)
    verifies again first (a new checkpoint as if ``execute`` had just ended: next verify), so
    nothing is claimed of a repo the run has not checked as it is now (a cancel put its edits back,
    the user changed a file).

    Args:
        graph: the compiled graph, with the run's checkpointer.
        run_config: the run config (thread id = ``run_id``).
        in_database: the checkpoints are the database's (said in the error).

    Raises:
        ResumeError: no checkpoint of this run id (no checkpointer, or an unknown run).
    """
    for snapshot in graph.get_state_history(run_config):
        if snapshot.next and snapshot.values.get("status", "running") == RunStatus.RUNNING.value:
            config = snapshot.config
            was = snapshot.values.get("repo")
            if was and Path(was).resolve() != Path(repo).resolve():
                # resumed from a database on another machine (or after a move): this copy of the repo
                config = graph.update_state(config, {"repo": str(repo)})
            rechecked = ""
            if set(snapshot.next) & TRUST_THE_VERDICT and snapshot.values.get("verification_details") is not None:
                rechecked = (f"interrupted before {', '.join(snapshot.next)}: the repo is verified again as it is "
                             "now, not taken from the verdict of the first start")
                config = graph.update_state(config, {}, as_node="execute")  # next: verify
            config = {**config, "recursion_limit": RECURSION_LIMIT}
            config["configurable"] = {**config["configurable"], "codur_run_id": run_id}
            return ResumePoint(config, str(snapshot.config["configurable"].get("checkpoint_id", "")),
                               tuple(snapshot.next), rechecked)
    where, runs = ("the database", "`codur runs --database`") if in_database else (
        f"{repo}/.codur/", "`codur runs`")
    raise ResumeError(f"--resume {run_id}: no checkpoint to resume from in {where} "
                      f"(a finished run keeps none; {runs} lists the runs)")
