"""RLM traces: every iteration, code execution and sub-call of a run, as a tree, saved as JSON.

A :class:`RLMTrace` belongs to one executor (the root or a sub-RLM); the child
traces of rlm_query / batch_rlm_query hang under its ``subcalls``. The trace is
written to ``<run folder>/rlm/<trace id>.json``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codur.rlm.aggregates import SecondProgram
from codur.rlm.budget import Usage

AnswerSource = Literal["final_direct", "final_var", "extracted", "forced", "error"]
SubCallKind = Literal["llm_query", "rlm_query", "batch_rlm_query"]
SubCallMode = Literal["model", "rlm", "downgraded", "direct", "refused"]


def new_trace_id() -> str:
    """A short unique id: ``rlm-<12 hex>``."""
    return f"rlm-{uuid.uuid4().hex[:12]}"


def _short(text: str | None, limit: int = 300) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text):,} chars]"


@dataclass
class CodeExecution:
    """One code block run in the sandbox. ``error`` is the exception text, or None; ``duration_s``
    seconds; ``notes`` the worker's hints (a search that found nothing, a literal that matches only
    ignoring case); ``submitted``: "FINAL" or "FINAL_VAR" when the code called it (its value is the
    REPL variable ``helpers.FINAL_NAME``), else None."""

    code: str
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    duration_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    submitted: str | None = None

    def to_dict(self) -> dict:
        return {"code": self.code, "stdout": self.stdout, "stderr": self.stderr, "error": self.error,
                "duration_s": round(self.duration_s, 4), "notes": self.notes, "submitted": self.submitted}


@dataclass
class Iteration:
    """One model turn of the REPL loop and the code it ran."""

    index: int
    response: str = ""
    thinking: str = ""
    executions: list[CodeExecution] = field(default_factory=list)
    final: dict | None = None
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    extraction: dict | None = None
    """The JSON-schema answer call after this turn, if one was made: kind (``after_output`` or
    ``forced``), response, answer, structured (the schema was accepted), usage."""
    check: dict | None = None
    """The answer check of a FINAL of this turn, if one ran: answer, supported (True, False, or None
    for an unreadable reply), value, reason, response, structured, usage."""
    repeated: bool = False
    """The reply repeats an earlier one word for word (the next call samples warmer)."""
    evidence: dict | None = None
    """The evidence check that refused this turn's answer, if one did (:mod:`codur.rlm.evidence`):
    check (``evidence``, ``absence``, ``echo``, ``second_program``), answer, refused (the note)."""

    def to_dict(self) -> dict:
        return {"index": self.index, "response": self.response, "thinking": self.thinking,
                "executions": [e.to_dict() for e in self.executions], "final": self.final,
                "usage": self.usage.to_dict(), "duration_s": round(self.duration_s, 3), "notes": self.notes,
                "extraction": self.extraction, "check": self.check, "repeated": self.repeated,
                "evidence": self.evidence}


@dataclass
class SubCall:
    """A bridge call from REPL code: llm_query, rlm_query or batch_rlm_query.

    ``mode`` says how it was served: ``model`` (one model call), ``rlm`` (a sub-RLM,
    its trace in ``trace``), ``downgraded`` (rlm_query served by llm_query below the
    downgrade threshold), ``direct`` (one direct answer: no budget for a sub-RLM),
    ``refused`` (budget spent: no model call). A batch holds its children in ``children``.
    """

    kind: SubCallKind
    mode: SubCallMode
    prompt: str
    answer: str | None = None
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0
    trace: RLMTrace | None = None
    children: list[SubCall] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "mode": self.mode, "prompt": _short(self.prompt), "answer": _short(self.answer),
                "error": self.error, "usage": self.usage.to_dict(), "duration_s": round(self.duration_s, 3),
                "trace": self.trace.to_dict() if self.trace else None,
                "children": [c.to_dict() for c in self.children]}


@dataclass
class RLMTrace:
    """The record of one executor's run.

    Attributes:
        id: ``rlm-<hex>``. depth: 0 for the root. task: the question.
        iterations: the model turns. subcalls: bridge calls, with child traces.
        answer / answer_source: the result and how it was reached
            (final_direct, final_var, extracted: the JSON answer from an output the model
            had not seen when it wrote FINAL, forced, error).
        error: what went wrong when answer_source is error.
        usage: this executor's usage including its sub-calls.
        warnings: e.g. 'Budget exhausted, answer was forced'.
        retrieved: what the first turn showed of the question's names, found in the whole input
            (:func:`codur.rlm.provenance.key_lines`), "" when nothing.
        budget: the budget snapshot at the end.
        path: ``repl`` (the REPL loop) or ``direct`` (the whole input fit the model's window: one call).
        second_program: the two-program check of an aggregate answer (:class:`codur.rlm.aggregates.SecondProgram`).
    """

    task: str
    depth: int = 0
    id: str = field(default_factory=new_trace_id)
    parent_id: str | None = None
    iterations: list[Iteration] = field(default_factory=list)
    subcalls: list[SubCall] = field(default_factory=list)
    answer: str | None = None
    answer_source: AnswerSource | None = None
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    warnings: list[str] = field(default_factory=list)
    retrieved: str = ""
    budget: dict = field(default_factory=dict)
    path: str = "repl"
    second_program: SecondProgram = field(default_factory=SecondProgram, compare=False)
    started_at: float = field(default_factory=time.time)
    duration_s: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add_subcall(self, call: SubCall) -> None:
        """Append a sub-call (thread-safe: batch children finish concurrently)."""
        with self._lock:
            self.subcalls.append(call)

    def warn(self, message: str) -> None:
        with self._lock:
            if message not in self.warnings:
                self.warnings.append(message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "parent_id": self.parent_id, "depth": self.depth, "task": self.task,
            "answer": self.answer, "answer_source": self.answer_source, "error": self.error,
            "usage": self.usage.to_dict(), "warnings": list(self.warnings), "retrieved": self.retrieved,
            "budget": self.budget, "path": self.path, "second_program": self.second_program.to_dict(),
            "started_at": self.started_at, "duration_s": round(self.duration_s, 3),
            "iterations": [i.to_dict() for i in self.iterations],
            "subcalls": [s.to_dict() for s in self.subcalls],
        }

    def save(self, run_dir: Path) -> Path:
        """Write the trace as ``<run_dir>/rlm/<id>.json`` and return that path."""
        path = Path(run_dir) / "rlm" / f"{self.id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
        return path

    def render_tree(self, indent: str = "") -> str:
        """The trace as an indented text tree: iterations, their executions, sub-calls and child traces."""
        usage = self.usage
        lines = [(f"{indent}{self.id} depth={self.depth} path={self.path} source={self.answer_source} "
                  f"tokens={usage.total_tokens:,} cost=${usage.cost_usd:.4f} {self.duration_s:.1f}s"
                  f" task={_short(self.task, 80)!r}")]
        for it in self.iterations:
            final = f" final={it.final['kind']}" if it.final else ""
            lines.append(f"{indent}  iteration {it.index}: {len(it.executions)} block(s){final} "
                         f"{it.duration_s:.1f}s")
            for ex in it.executions:
                status = f"error: {_short(ex.error, 80)}" if ex.error else "ok"
                lines.append(f"{indent}    block {ex.duration_s * 1000:.0f}ms {status}")
        for call in self.subcalls:
            lines.extend(_render_call(call, indent + "  "))
        lines.extend(f"{indent}  warning: {w}" for w in self.warnings)
        return "\n".join(lines)


def _render_call(call: SubCall, indent: str) -> list[str]:
    lines = [(f"{indent}{call.kind} [{call.mode}] {call.duration_s:.1f}s tokens={call.usage.total_tokens:,}"
              f" prompt={_short(call.prompt, 60)!r}")]
    if call.trace is not None:
        lines.append(call.trace.render_tree(indent + "  "))
    for child in call.children:
        lines.extend(_render_call(child, indent + "  "))
    return lines
