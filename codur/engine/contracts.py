"""The engine contract's data: RunRequest in, RunResult out (RunStatus from :mod:`codur.core.contracts`).

``RunRequest(input="...")`` is the contract's spelling; ``task=`` is its alias.
A RunResult's details live in ``metadata`` (:class:`RunMetadata`); short attribute
names (``result.diff``, ``result.tokens``, ...) read it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from codur.core.contracts import RunStatus, StopReason

__all__ = ["RunMetadata", "RunRequest", "RunResult", "RunStatus", "StopReason"]


class RunRequest(BaseModel):
    """What the user asks for.

    Attributes:
        input: the instruction, e.g. "make the failing tests pass" (alias: ``task``).
        repo: path of the repository (must exist, be a directory, and be writable unless dry_run).
        run_id: the run's id (default: a new one). With ``resume=True``, the interrupted run to
            continue from its last completed node (LangGraph's SQLite checkpointer in ``.codur/``).
        resume: continue the run ``run_id`` instead of starting one.
        session_id: runs of one session see the earlier runs' task, outcome and diff summary
            (session memory), so a follow-up ("now also handle negative quantities") works.
        max_turns / timeout_s / token_budget: override the config's limits
            (turns >= 1; seconds > 0; tokens >= 1) when given.
        dry_run: log the agent's prompt and call no agent.
        metadata: free JSON-serialisable data of the caller's, copied into the result's metadata.
        cancel_event: a ``threading.Event``; set it (from any thread) to cancel the run: it stops
            within one model or tool call with status ``cancelled``.

    Raises:
        pydantic.ValidationError: an empty input, a missing or read-only repo, a limit out of range,
            ``resume`` without ``run_id``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    input: str = Field(validation_alias=AliasChoices("input", "task"))
    repo: Path = Field(default_factory=Path.cwd)
    run_id: str | None = Field(None, pattern=r"^[A-Za-z0-9._-]{1,80}$")
    resume: bool = False
    session_id: str | None = Field(None, pattern=r"^[A-Za-z0-9._-]{1,80}$")
    max_turns: int | None = Field(None, ge=1)
    timeout_s: float | None = Field(None, gt=0)
    token_budget: int | None = Field(None, ge=1)
    dry_run: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    cancel_event: threading.Event | None = Field(None, exclude=True, repr=False)

    @property
    def task(self) -> str:
        """The instruction (``input``)."""
        return self.input

    @field_validator("input")
    @classmethod
    def _input_not_empty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the task is empty: say what codur should do")
        return v.strip()

    @field_validator("repo")
    @classmethod
    def _repo_is_dir(cls, v: Path) -> Path:
        v = Path(v).expanduser()
        if not v.exists():
            raise ValueError(f"repository path does not exist: {v}")
        if not v.is_dir():
            raise ValueError(f"repository path is not a directory: {v}")
        return v.resolve()

    @model_validator(mode="after")
    def _checks(self) -> RunRequest:
        if not self.dry_run and not os.access(self.repo, os.W_OK):
            raise ValueError(f"repository path is read-only: {self.repo} (use --dry-run to only look)")
        if self.resume and not self.run_id:
            raise ValueError("resume needs the run_id of the run to continue")
        return self


class RunMetadata(BaseModel):
    """The details of a run (``RunResult.metadata``); ``metadata["diff"]`` reads like a dict too.

    Attributes:
        diff: unified diff of every change codur made ('' for none).
        files_changed: repo-relative paths.
        nodes: the node sequence, in order.
        usage: {llm_calls, input_tokens, output_tokens, total_tokens, cost_usd (USD), model_s (seconds)}.
        timings: wall seconds by kind {model_s, tools_s, tests_s, repair_s, total_s}.
        fixer: which fixer produced the patch ("mutation search", "model patch sample",
            "model sample + mutation", "agent"), '' when none did.
        verdict: the last verification verdict (passed, strategy, evidence, reasoning, suggestions).
        stop: the figures behind a limit's reason, e.g. {"elapsed_s": 31.2, "timeout_s": 30}; for
            ``no_plausible_patch``, ``stop["search"]``: why the patch search stopped ({"stopped":
            budget|exhausted|cancelled, "spent", "message", "tried", "mutants", "time_budget_s", ...}).
        limits: the run's limits as applied {max_turns, timeout_s (seconds), token_budget (tokens)}.
        session_id, resumed_from: the session and, for a resumed run, the checkpoint it continued from.
        trace_path, run_dir: the run's trace (JSON lines) and folder.
        request: the caller's ``RunRequest.metadata``.
        reverted: the run did not succeed and its edits were put back (``diff`` and
            ``files_changed`` are then what it attempted; setting ``keep_failed`` keeps them).
        attempt_path: the attempted diff of a reverted run, ``<run_dir>/attempt.patch``.
        tests_changed: what the repo's own tests changed when they ran in place (observe, verify,
            ``run_pytest``), each ``{"path", "change": modified|deleted|created, "restorable"}``;
            ``codur undo`` puts the restorable ones back.
        risky_patches: writes that added risky code (:mod:`codur.tools.risk`), each
            ``{"path", "findings", "approved"}``; an unapproved one was not written.
    """

    model_config = ConfigDict(extra="allow")

    diff: str = ""
    files_changed: list[str] = Field(default_factory=list)
    nodes: list[str] = Field(default_factory=list)
    usage: dict[str, Any] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    fixer: str = ""
    verdict: dict[str, Any] = Field(default_factory=dict)
    stop: dict[str, Any] = Field(default_factory=dict)
    limits: dict[str, Any] = Field(default_factory=dict)
    session_id: str | None = None
    resumed_from: str | None = None
    trace_path: Path | None = None
    run_dir: Path | None = None
    request: dict[str, Any] = Field(default_factory=dict)
    reverted: bool = False
    attempt_path: Path | None = None
    tests_changed: list[dict[str, Any]] = Field(default_factory=list)
    risky_patches: list[dict[str, Any]] = Field(default_factory=list)

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


class RunResult(BaseModel):
    """What codur did.

    Attributes:
        run_id: the run's id; its folder is ``<repo>/.codur/runs/<run_id>/``.
        status / reason: how it ended and why: ``success`` (verified / answered), ``failed``
            (max_turns, stuck, ``refused: edited tests/test_x.py`` for a change the footprint
            check refused, ...), ``timeout`` (timeout), ``budget_exceeded`` (token_budget),
            ``cancelled`` (cancelled), ``rate_limited`` / ``quota_exhausted``, ``error``.
        output_text: the agent's last words (the answer, for a question).
        turns: Plan→Act→Verify cycles started.
        duration_s: wall time, seconds.
        metadata: the details (:class:`RunMetadata`).
    """

    run_id: str
    status: RunStatus
    reason: str = ""
    output_text: str = ""
    turns: int = 0
    duration_s: float = 0.0
    metadata: RunMetadata = Field(default_factory=RunMetadata)

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.SUCCESS

    # Short names, read from metadata.
    @property
    def diff(self) -> str:
        return self.metadata.diff

    @property
    def files_changed(self) -> list[str]:
        return self.metadata.files_changed

    @property
    def nodes(self) -> list[str]:
        return self.metadata.nodes

    @property
    def llm_calls(self) -> int:
        return int(self.metadata.usage.get("llm_calls", 0))

    @property
    def tokens(self) -> int:
        return int(self.metadata.usage.get("total_tokens", 0))

    @property
    def cost_usd(self) -> float:
        return float(self.metadata.usage.get("cost_usd", 0.0))

    @property
    def verification(self) -> dict[str, Any]:
        return self.metadata.verdict

    @property
    def summary(self) -> str:
        return self.output_text

    @property
    def run_dir(self) -> Path | None:
        return self.metadata.run_dir

    @property
    def reverted(self) -> bool:
        """The run did not succeed and its edits were put back (see :class:`RunMetadata`)."""
        return self.metadata.reverted

    @property
    def attempt_path(self) -> Path | None:
        """The attempted diff of a reverted run (``<run_dir>/attempt.patch``), else None."""
        return self.metadata.attempt_path
