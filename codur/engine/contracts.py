"""The typed run API: RunRequest in, RunResult out, RunStatus for how it ended."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator


class RunStatus(StrEnum):
    """How a run ended. ``running`` only appears in events, never in a RunResult."""

    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    TIMEOUT = "timeout"
    BUDGET_EXCEEDED = "budget_exceeded"
    CANCELLED = "cancelled"
    RATE_LIMITED = "rate_limited"  # the model kept answering 429 (past the Retry-After cap, or the retries)
    QUOTA_EXHAUSTED = "quota_exhausted"  # the provider said insufficient_quota / billing: retrying cannot help
    ERROR = "error"

    @property
    def terminal(self) -> bool:
        return self is not RunStatus.RUNNING


class RunRequest(BaseModel):
    """What the user asks for.

    Attributes:
        task: the instruction, e.g. "make the failing tests pass".
        repo: path of the repository (must exist, be a directory, and be writable unless dry_run).
        max_turns / timeout_s / token_budget: override the config's limits
            (turns >= 1; seconds > 0; tokens >= 1) when given.
        dry_run: log the agent's prompt and call no agent.

    Raises:
        pydantic.ValidationError: an empty task, a missing or read-only repo, a limit out of range.
    """

    task: str
    repo: Path = Field(default_factory=Path.cwd)
    max_turns: int | None = Field(None, ge=1)
    timeout_s: float | None = Field(None, gt=0)
    token_budget: int | None = Field(None, ge=1)
    dry_run: bool = False

    @field_validator("task")
    @classmethod
    def _task_not_empty(cls, v: str) -> str:
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
    def _repo_writable(self) -> RunRequest:
        if not self.dry_run and not os.access(self.repo, os.W_OK):
            raise ValueError(f"repository path is read-only: {self.repo} (use --dry-run to only look)")
        return self


class RunResult(BaseModel):
    """What codur did.

    Attributes:
        run_id: the run's id; its folder is ``<repo>/.codur/runs/<run_id>/``.
        status / reason: how it ended and why (e.g. failed / max_turns).
        diff: unified diff of every change codur made ('' for none).
        files_changed: repo-relative paths.
        nodes: the node sequence, in order.
        turns: Plan→Act→Verify cycles started.
        llm_calls / tokens: model usage; cost_usd: its price in USD (0 for the local model).
        duration_s: wall time, seconds.
        verification: the last verdict (passed, strategy, evidence, reasoning, suggestions).
        summary: the agent's last words.
        run_dir: the run's folder (trace.jsonl, diff.patch, result.json).
    """

    run_id: str
    status: RunStatus
    reason: str = ""
    diff: str = ""
    files_changed: list[str] = Field(default_factory=list)
    nodes: list[str] = Field(default_factory=list)
    turns: int = 0
    llm_calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    duration_s: float = 0.0
    verification: dict[str, Any] = Field(default_factory=dict)
    summary: str = ""
    run_dir: Path | None = None

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.SUCCESS
