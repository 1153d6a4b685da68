"""The typed run API: RunRequest in, RunResult out, RunStatus for how it ended."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator


class RunStatus(StrEnum):
    """How a run ended. ``running`` only appears in events, never in a RunResult."""

    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    TIMEOUT = "timeout"
    BUDGET_EXCEEDED = "budget_exceeded"
    CANCELLED = "cancelled"
    ERROR = "error"

    @property
    def terminal(self) -> bool:
        return self is not RunStatus.RUNNING


class RunRequest(BaseModel):
    """What the user asks for.

    Attributes:
        task: the instruction, e.g. "make the failing tests pass".
        repo: path of the repository (must exist and be a directory).
        max_turns / timeout_s / token_budget: override the config's limits
            (turns; seconds; tokens) when given.
        dry_run: log the agent's prompt and call no agent.
    """

    task: str
    repo: Path = Field(default_factory=Path.cwd)
    max_turns: int | None = None
    timeout_s: float | None = None
    token_budget: int | None = None
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
