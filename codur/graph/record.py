"""The run record a graph run writes itself when no engine started it.

A run through :class:`codur.engine.LocalEngine` (the CLI, ``codur.run``, ``codur batch``) gets
its folder from the engine. A run of the graph alone — ``langgraph dev`` / Studio, the
server's HTTP API, ``codur.build_graph().invoke({"task": ..., "repo": ...})`` — gets the same
from :class:`RunRecord`, opened by the run's object (:class:`codur.graph.context.StudioRun`):

- ``<repo>/.codur/.gitignore`` (``*``: git ignores the folder; the user's ``.gitignore`` is untouched);
- ``<repo>/.codur/runs/<run_id>/trace.jsonl``: ``run.start``, every event of the run (each node
  writes the events it emits, :func:`codur.core.events.recording`), ``run.end``;
- ``originals/`` and ``journal.json`` (the change journal, its manifest), ``diff.patch`` and
  ``result.json`` (the RunResult's fields), written by the done node (:meth:`RunRecord.finish`).

So ``codur runs``, ``codur show`` and ``codur undo`` see it as any other run. A failed run's
edits are kept (as with ``keep_failed``): the graph alone holds no repo lock to put them back
under.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from codur.core.events import TraceWriter, wire
from codur.core.events.run import RunEnd, RunStart
from codur.core.files import atomic_write_bytes
from codur.tools.journal import ChangeJournal
from codur.tools.run_folder import ignore_in_git, new_run_id


class RunRecord:
    """One graph run's folder, trace and result (see the module docstring).

    Args:
        repo: the repository (resolved).
        task: the task, as the run got it.
        run_id: the run's id (default: a new one, :func:`codur.tools.run_folder.new_run_id`).

    Raises:
        OSError: the folder cannot be created (a read-only repo).
    """

    def __init__(self, repo: Path, task: str, run_id: str | None = None) -> None:
        self.repo, self.task = repo, task
        self.run_id = run_id or new_run_id()
        ignore_in_git(repo)
        self.run_dir = repo / ".codur" / "runs" / self.run_id
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.started = time.monotonic()
        self.finished = False
        self._lock = threading.Lock()
        self.trace = TraceWriter(self.run_dir / "trace.jsonl")
        self.trace.write(wire(RunStart(task=task, repo=str(repo), run_dir=str(self.run_dir), source="graph"),
                              self.run_id))

    def write(self, event: dict[str, Any]) -> None:
        """Append one event to the trace, under this run's id (Studio's events carry its thread id)."""
        with self._lock:
            self.trace.write({**event, "run_id": self.run_id})

    def finish(self, final: dict[str, Any], journal: ChangeJournal, usage: dict[str, Any]) -> None:
        """Write the journal's manifest, ``diff.patch``, ``result.json`` and ``run.end``; once.

        Args:
            final: the run's final state (status, reason, summary, nodes, verification, turn).
            journal: the run's change journal (its originals are in the run's folder).
            usage: the run's model usage figures (:meth:`codur.core.usage.UsageLedger.usage_figures`).
        """
        if self.finished:
            return
        self.finished = True
        diff = journal.diff()
        verdict = final.get("verification")
        verdict = verdict.model_dump(mode="json") if hasattr(verdict, "model_dump") else dict(verdict or {})
        result = {"run_id": self.run_id, "status": final.get("status", "error"), "reason": final.get("reason", ""),
                  "output_text": final.get("summary", ""), "turns": final.get("turn", 0),
                  "duration_s": round(time.monotonic() - self.started, 3),
                  "metadata": {"diff": diff, "files_changed": journal.changed_files, "nodes": final.get("nodes", []),
                               "usage": usage, "verdict": verdict, "run_dir": str(self.run_dir),
                               "trace_path": str(self.run_dir / "trace.jsonl"), "source": "graph"}}
        journal.write_manifest()
        atomic_write_bytes(self.run_dir / "diff.patch", diff.encode())
        atomic_write_bytes(self.run_dir / "result.json", json.dumps(result, indent=2, default=str).encode())
        self.write(wire(RunEnd(status=result["status"], reason=result["reason"]), self.run_id))
        self.trace.close()
