"""codur's main job as a subprocess, and the per-bug figures read from its ``--json`` events.

Shared by bench/real/run.py and bench/bigsuite/run.py. The command is the codur of the
checkout this file belongs to (not the one an editable install of the interpreter points
at), started without ``PYTHONPATH``, which would reach the test processes codur starts.

The figures (:func:`figures`) come from these events of codur's ``--json`` stream, each
with ``ts`` (wall-clock seconds) and written to the run's trace too
(``.codur/runs/<id>/trace.jsonl``):

- ``patch.localized``: ``elapsed_s``, the candidate-patch pipeline's localization (the
  repair session's workers and warm test runner started, the suite or its selection run
  with per-test coverage, the lines ranked); ``tests_run``;
- ``patch.mutants``: ``seconds``, the mutation phase's mutant generation; ``count``;
- ``patch.candidate``: one per tested candidate, the first one's ``ts`` gives the seconds
  to the first candidate;
- ``patch.sample``: one per model patch sample drawn, with its ``seconds`` and ``outcome``;
- ``patch.fill``: one per model fill of a masked line (the cloze fixer), the same fields;
- ``run.result``: the last line, ``metadata.fixer``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from codur.core.contracts import FIXER_NAMES

ROOT = Path(__file__).resolve().parents[2]
TASK = "make the failing tests pass"
#: ``python -c LAUNCH ROOT ARGS...``: codur's console entry point, imported from ROOT.
LAUNCH = "import sys; sys.path.insert(0, sys.argv.pop(1)); from codur._entry import main; main()"
#: Seconds a run may overrun its ``--timeout`` before it is killed.
GRACE_S = 120.0
#: What ``metadata.fixer`` says (the summary's words) -> the fixer's name (mutation, cloze,
#: sampling, hybrid, agent).
FIXER_BY_WORDS = {words: name for name, words in FIXER_NAMES.items()}
#: Outcomes of a model reply (``patch.sample``, ``patch.fill``) that gave nothing new: the code
#: back unchanged, or no code at all.
ECHOES = ("unchanged", "no_code")


def codur_command() -> list[str]:
    """argv that starts the codur of this checkout with the current interpreter."""
    return [sys.executable, "-c", LAUNCH, str(ROOT)]


@dataclass
class CodurRun:
    """One codur process: its events (each with ``t``, seconds from ``start``), its wall
    seconds, ``start`` (``time.time()`` just before the process started), its exit code
    (None: killed after ``--timeout`` + :data:`GRACE_S`) and the end of its stderr."""

    events: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    start: float = 0.0
    returncode: int | None = None
    stderr: str = ""

    def result(self) -> dict:
        """The ``run.result`` event, else a stand-in with status ``killed`` or ``error``."""
        found = next((e for e in reversed(self.events) if e.get("event_type") == "run.result"), None)
        if found is not None:
            return found
        if self.returncode is None:
            return {"status": "killed", "reason": f"no result {self.seconds:.0f} s after start"}
        return {"status": "error", "reason": f"exit {self.returncode}, no run.result: {self.stderr}"}


def run_codur(repo: Path, timeout: float, env: dict[str, str] | None = None, *, codur_env: bool = True) -> CodurRun:
    """Run ``codur TASK --repo repo --json --timeout timeout`` in ``repo``.

    Args:
        timeout: codur's own limit, seconds; the process group is killed :data:`GRACE_S` later.
        env: variables to set on top of this process's environment, from which
            ``VIRTUAL_ENV`` and ``PYTHONPATH`` are removed.
        codur_env: False: this process's ``CODUR_*`` settings are removed too (only ``env``'s count).
    """
    cmd = [*codur_command(), TASK, "--repo", str(repo), "--json", "--timeout", str(timeout)]
    full = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")
            and (codur_env or not k.startswith("CODUR_"))} | (env or {})
    start = time.time()
    proc = subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full,
                            start_new_session=True)
    killed = False
    try:
        out, err = proc.communicate(timeout=timeout + GRACE_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        killed = True
    return CodurRun(read_events(out, start), round(time.time() - start, 1), start,
                    None if killed else proc.returncode, err.strip()[-300:])


def read_events(stdout: str, start: float) -> list[dict]:
    """The JSON event lines of ``stdout``, each given ``t``: its ``ts`` minus ``start``, seconds."""
    events = []
    for line in stdout.splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            event = json.loads(line)
            if isinstance(event, dict):
                event["t"] = round(float(event.get("ts", start)) - start, 2)
                events.append(event)
    return events


def _first(events: list[dict], kind: str) -> dict | None:
    return next((e for e in events if e.get("event_type") == kind), None)


def figures(events: list[dict]) -> dict:
    """The per-bug figures of one run's events (as given by :func:`read_events`).

    Returns a dict (None where the run never got there): ``first_candidate_s`` (seconds
    from the start to the first ``patch.candidate``), ``localize_s`` and ``localized_tests``
    (the first ``patch.localized``'s ``elapsed_s`` and ``tests_run``), ``mutants_s`` and
    ``mutants`` (the first ``patch.mutants``'s ``seconds`` and ``count``), ``samples`` (how many
    ``patch.sample`` events: model patch samples drawn), ``sample_s`` (their mean seconds),
    ``candidates`` (how many ``patch.candidate`` events), ``fixer`` (``run.result``'s
    ``metadata.fixer``, '' for none), ``fixed_by`` (that fixer's name: mutation, cloze,
    sampling, hybrid or agent; '' for none) and the model figures of :func:`model_figures`.
    """
    first = _first(events, "patch.candidate")
    localized = _first(events, "patch.localized") or {}
    generated = _first(events, "patch.mutants") or {}
    samples = [float(e.get("seconds") or 0.0) for e in events if e.get("event_type") == "patch.sample"]
    result = _first(events, "run.result") or {}
    fixer = (result.get("metadata") or {}).get("fixer", "")
    return {"first_candidate_s": first["t"] if first else None,
            "localize_s": localized.get("elapsed_s"), "localized_tests": localized.get("tests_run"),
            "mutants_s": generated.get("seconds"), "mutants": generated.get("count"),
            "samples": len(samples), "sample_s": round(sum(samples) / len(samples), 1) if samples else None,
            "candidates": sum(1 for e in events if e.get("event_type") == "patch.candidate"),
            "fixer": fixer, "fixed_by": FIXER_BY_WORDS.get(fixer, fixer), **model_figures(events)}


def model_figures(events: list[dict]) -> dict:
    """What the candidate-patch pipeline's model replies gave: the ``patch.sample`` and
    ``patch.fill`` events (the tool-loop agent's calls are not among them).

    Returns ``fills`` (``patch.fill`` events), ``replies`` (samples and fills that got a
    reply: every one but an ``error``), ``echoes`` (replies that gave the code back unchanged
    or no code, :data:`ECHOES`), ``echo_share`` (echoes / replies, None without a reply),
    ``model_candidates`` (replies whose outcome is ``candidate``: distinct, new code, tested),
    ``model_s`` (the seconds of every sample and fill, errors included) and
    ``candidates_per_model_min`` (model_candidates per 60 model seconds, None without model
    time).
    """
    drawn = [e for e in events if e.get("event_type") in ("patch.sample", "patch.fill")]
    replies = [e for e in drawn if e.get("outcome") != "error"]
    echoes = sum(1 for e in replies if e.get("outcome") in ECHOES)
    found = sum(1 for e in replies if e.get("outcome") == "candidate")
    seconds = round(sum(float(e.get("seconds") or 0.0) for e in drawn), 1)
    return {"fills": sum(1 for e in drawn if e.get("event_type") == "patch.fill"), "replies": len(replies),
            "echoes": echoes, "echo_share": round(echoes / len(replies), 3) if replies else None,
            "model_candidates": found, "model_s": seconds,
            "candidates_per_model_min": round(found * 60 / seconds, 2) if seconds else None}


def cell(value: float | None, digits: int = 1) -> str:
    """A figure for a table: ``-`` for None."""
    return "-" if value is None else f"{value:.{digits}f}"
