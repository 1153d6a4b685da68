"""The batch task file: one JSON object a line, validated with pydantic."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class BatchTask(BaseModel):
    """One line of TASKS.jsonl: a codur run on one repository."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=200,
                    description="Unique task id; names its result line and its working copy's folder, so it is a "
                    "plain file name: no '/' or '\\', not '.' or '..', no control character.")
    repo: str = Field(min_length=1, description="A folder path, or a git URL (then `commit`).")
    task: str = Field(min_length=1, description="What to fix, as given to `codur \"...\"`.")
    commit: str | None = Field(None, description="Commit to check out after cloning a git URL.")
    test_command: str | None = Field(None, description="Command that tells fixed from broken.")
    fixers: list[str] | None = Field(None, description="Fixer names to try, in order.")
    timeout_s: float | None = Field(None, gt=0, description="Wall-clock limit of the run, seconds.")
    max_turns: int | None = Field(None, gt=0, description="Limit on agent turns.")
    settings: dict[str, Any] | None = Field(
        None, description="Other codur settings for this run, as in codur.toml, e.g. {\"sample_format\": \"udiff\"}.")

    @field_validator("id")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        """A task id names the folder ``<workdir>/<id>``: one path component that stays there."""
        if not is_plain_name(value):
            raise ValueError(f"a task id is a plain name (no '/', '\\', '..', control characters), it names the "
                             f"task's working folder: got {value!r}")
        return value

    @model_validator(mode="after")
    def _commit_needs_url(self) -> BatchTask:
        if self.commit and not is_git_url(self.repo):
            raise ValueError("'commit' is only for a git URL repo")
        for name, value in (("repo", self.repo), ("commit", self.commit)):
            if value and (value.startswith("-") or any(c.isspace() or ord(c) < 32 for c in value)) \
                    and (name == "commit" or is_git_url(value)):
                raise ValueError(f"{name} {value!r} would reach git as an option (a leading '-') or holds "
                                 "spaces or control characters: give a URL or a commit name")
        return self

    @model_validator(mode="after")
    def _settings_are_codur_settings(self) -> BatchTask:
        from codur.config import CodurConfig

        for key in self.settings or {}:
            if key in ("test_command", "fixers"):
                raise ValueError(f"settings: give {key!r} as the task's own field")
            if key not in CodurConfig.model_fields:
                raise ValueError(f"settings: not a codur setting: {key}")
        return self


def is_plain_name(name: str) -> bool:
    """True when ``name`` is one path component that stays in its folder: not empty, not ``.`` or
    ``..``, without ``/``, ``\\`` or a control character (NUL included), so not absolute either."""
    return bool(name) and name not in (".", "..") and not any(c in "/\\" or ord(c) < 32 or c == "\x7f" for c in name)


def is_git_url(repo: str) -> bool:
    """True for a repo given as a URL to clone (scheme://, git@host:, or a .git path)."""
    return "://" in repo or repo.startswith("git@") or repo.endswith(".git")


@dataclass(frozen=True)
class TaskLineError:
    """A line of the task file that was skipped, with why (1-based line number)."""

    line: int
    message: str


def read_tasks(path: Path) -> tuple[list[BatchTask], list[TaskLineError]]:
    """Parse a TASKS.jsonl file; bad lines (not UTF-8, not JSON, not a task, a repeated id) are
    returned as errors with their number, never raised: the other lines still count.

    A relative folder ``repo`` is taken from the task file's folder (and made absolute),
    so the file can be run from anywhere.

    Raises:
        OSError: the file cannot be read.
    """
    tasks: list[BatchTask] = []
    errors: list[TaskLineError] = []
    seen: set[str] = set()
    for number, raw in enumerate(Path(path).read_bytes().splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            bad = f"byte {raw[exc.start]:#04x} at column {exc.start + 1}"
            errors.append(TaskLineError(number, f"not UTF-8 text ({bad})"))
            continue
        try:
            task = BatchTask.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(TaskLineError(number, f"not JSON: {exc.msg}"))
            continue
        except ValidationError as exc:
            detail = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())
            errors.append(TaskLineError(number, detail))
            continue
        if task.id in seen:
            errors.append(TaskLineError(number, f"duplicate id {task.id!r}"))
            continue
        seen.add(task.id)
        if not is_git_url(task.repo) and not Path(task.repo).expanduser().is_absolute():
            task = task.model_copy(update={"repo": str((Path(path).parent / task.repo).resolve())})
        tasks.append(task)
    return tasks, errors
