"""ToolExecutor: the only path by which tools run.

It validates the arguments against the tool's schema, refuses paths outside the
repo, applies the tool policy (auto, read_only, confirm_writes), injects the
:class:`ToolContext`, caps the output with a visible note, times the call and
turns every exception into an error result the model can read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from langchain_core.messages import ToolMessage

from codur.tools.context import ToolContext, ToolError
from codur.tools.journal import ChangeJournal
from codur.tools.registry import REGISTRY, SideEffect, ToolRegistry

Policy = Literal["auto", "read_only", "confirm_writes"]
PATH_ARGS = ("path", "paths", "src", "dst", "file", "files", "directory")


@dataclass(frozen=True)
class ToolResult:
    """One executed tool call.

    Attributes:
        name: tool name.
        call_id: the tool call id from the model (or generated).
        ok: False when the tool raised, was refused or got bad arguments.
        output: what the model reads (capped).
        duration_s: seconds spent.
        args: the arguments as given.
    """

    name: str
    call_id: str
    ok: bool
    output: str
    duration_s: float
    args: dict[str, Any]

    def to_message(self) -> ToolMessage:
        return ToolMessage(content=self.output, tool_call_id=self.call_id, name=self.name,
                           status="success" if self.ok else "error")


def cap_output(text: str, limit: int) -> str:
    """Keep the head and tail of ``text`` within ``limit`` characters, with a visible note."""
    if len(text) <= limit:
        return text
    head = int(limit * 0.6)
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n…[truncated {cut} characters]…\n{text[-tail:]}"


class ToolExecutor:
    """Runs tool calls for one repo.

    Args:
        root: repository root.
        registry: where tools are looked up; default codur's.
        allowed: tool names the current agent may call (None: all registered).
        policy: auto | read_only (refuse FILE_MUTATION/STATE_CHANGE) | confirm_writes
            (ask ``confirm(name, args)`` before a FILE_MUTATION tool; refuse without it).
        timeout_s: limit for tools that run code, seconds.
        output_chars: output cap, characters.
        journal: the change journal (default: a new one, stored under ``run_dir``).
        on_event: receives ``{"event_type": "tool.call", ...}`` after each call.
        cancel: the run's cancel event (default a new one): once set, no tool call starts,
            and a running process is killed (see :meth:`stop`).
        env_allow: environment variable names child processes get beyond the allowlist.
    """

    def __init__(self, root: Path, *, registry: ToolRegistry | None = None,
                 allowed: Collection[str] | None = None, policy: Policy = "auto",
                 confirm: Callable[[str, dict], bool] | None = None, timeout_s: float = 120.0,
                 output_chars: int = 6000, allow_secrets: bool = False, run_dir: Path | None = None,
                 journal: ChangeJournal | None = None, model: Any = None,
                 on_event: Callable[[dict], None] | None = None, cancel: threading.Event | None = None,
                 env_allow: Collection[str] = ()) -> None:
        root = Path(root).resolve()
        if not root.is_dir():
            raise NotADirectoryError(f"repository not found: {root}")
        self.registry = registry or REGISTRY
        self.allowed = set(allowed) if allowed is not None else None
        self.policy = policy
        self.confirm = confirm
        self.output_chars = output_chars
        self.on_event = on_event
        self.journal = journal or ChangeJournal(root, run_dir)
        self.ctx = ToolContext(root=root, journal=self.journal, timeout_s=timeout_s,
                               allow_secrets=allow_secrets, read_only=policy == "read_only",
                               model=model, run_dir=run_dir, env_allow=tuple(env_allow),
                               cancel=cancel or threading.Event(), on_event=on_event)
        self.calls = 0

    @property
    def root(self) -> Path:
        return self.ctx.root

    def with_allowed(self, allowed: Collection[str] | None) -> ToolExecutor:
        """A view of this executor limited to ``allowed`` tools, sharing context and journal."""
        clone = object.__new__(ToolExecutor)
        clone.__dict__.update(self.__dict__)
        clone.allowed = set(allowed) if allowed is not None else None
        return clone

    def bind_cancel(self, cancel: threading.Event) -> None:
        """Use the run's cancel event (before the first call)."""
        self.ctx.cancel = cancel

    def stop(self, timeout_s: float) -> bool:
        """Cancel: set the cancel event, so that no tool call starts from now on and a running
        process is killed, then wait up to ``timeout_s`` seconds for the calls in flight to
        end. True when none runs any more (then nothing changes the repo through the tools)."""
        return self.ctx.gate.close(self.ctx.cancel, timeout_s)

    def _refusal(self, name: str, args: dict) -> str | None:
        spec = self.registry.get(name)
        if spec is None or (self.allowed is not None and name not in self.allowed):
            names = sorted(self.allowed) if self.allowed is not None else self.registry.names()
            return f"unknown tool {name!r}; available: {', '.join(names)}"
        writes = spec.side_effects & {SideEffect.FILE_MUTATION, SideEffect.STATE_CHANGE}
        if writes and self.policy == "read_only":
            return f"{name} changes files and the tool policy is read-only"
        if (
            SideEffect.FILE_MUTATION in spec.side_effects
            and self.policy == "confirm_writes"
            and (self.confirm is None or not self.confirm(name, args))
        ):
            return f"{name} was not confirmed by the user; nothing was changed"
        for key in PATH_ARGS:
            value = args.get(key)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    try:
                        self.ctx.resolve(item)
                    except ToolError as exc:
                        return str(exc)
        return None

    def execute(self, name: str, args: dict | None = None, call_id: str = "") -> ToolResult:
        """Run one tool call; never raises except KeyboardInterrupt/SystemExit."""
        args = dict(args or {})
        call_id = call_id or f"call_{self.calls}"
        self.calls += 1
        t0 = time.monotonic()
        ok, output = False, ""
        if not self.ctx.gate.enter(self.ctx.cancel):
            return self._finish(ToolResult(name, call_id, False, "Error: the run was cancelled; this tool call "
                                           "was not started", 0.0, args))
        try:
            refusal = self._refusal(name, args)
            if refusal:
                output = f"Error: {refusal}"
            else:
                spec = self.registry.get(name)
                assert spec is not None
                try:
                    parsed = spec.parse_args(args)
                except ValueError as exc:
                    output = f"Error: {exc}"
                else:
                    output = str(spec.func(self.ctx, **parsed))
                    ok = True
        except ToolError as exc:
            output = f"Error: {exc}"
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - every failure becomes a readable result
            output = f"Error: {name} failed: {type(exc).__name__}: {exc}"
        finally:
            self.ctx.gate.leave()
        return self._finish(ToolResult(name, call_id, ok, cap_output(output, self.output_chars),
                                       time.monotonic() - t0, args))

    def _finish(self, result: ToolResult) -> ToolResult:
        name, args, ok = result.name, result.args, result.ok
        if self.on_event:
            self.on_event({"event_type": "tool.call", "tool": name, "args": _short(args), "ok": ok,
                           "duration_s": round(result.duration_s, 3), "output": result.output[:300]})
        return result


def _short(args: dict) -> dict:
    return {k: (v[:200] + "…" if isinstance(v, str) and len(v) > 200 else v) for k, v in args.items()}
