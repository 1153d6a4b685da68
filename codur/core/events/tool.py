"""Tool calls and what the sandbox says about them (codur/tools/, codur/testing/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class ToolCall(Event, kind="tool.call"):
    """One tool call ended: the tool, its short arguments, ok, seconds, the output's first 300 characters."""

    tool: str
    args: dict[str, Any]
    ok: bool
    duration_s: float
    output: str


@dataclass(frozen=True, kw_only=True)
class SecretRedacted(Event, kind="secret.redacted"):
    """Secrets were redacted from a tool's output or a command's: how many, of which kinds (never their values)."""

    tool: str = OMIT
    command: str = OMIT
    count: int
    kinds: list[str]


@dataclass(frozen=True, kw_only=True)
class SandboxFallback(Event, kind="sandbox.fallback"):
    """Code runs without bubblewrap: why."""

    reason: str
