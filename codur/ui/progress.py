"""Live progress of a run: one readable line per event, a spinner with the elapsed time.

:class:`Progress` is the run's ``on_event`` callback. It prints the engine state and node,
each tool call (name, short arguments, duration), each model call (role, tokens in and
out, seconds) and the patch pipeline's steps (candidates tried, the best so far,
provenance: :mod:`codur.ui.patch_progress`), never a raw dict. It subscribes by
type (:mod:`codur.ui.subscriptions`). On a terminal a spinner shows what runs now
and for how long (a model call of 3-30 s is no longer silence); piped output gets neither
colour nor spinner (Rich's terminal detection). It counts nothing: the run's figures are
the result's (:mod:`codur.ui.summary`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.markup import escape

from codur.core.events import Event, parse
from codur.core.events.agent import AgentPrompt, AgentReply, AgentRetry
from codur.core.events.model import ModelCall, ModelFallback, ModelStart
from codur.core.events.patch import PatchRisky
from codur.core.events.plan import PlanFallback
from codur.core.events.run import EngineState, RunResumed
from codur.core.events.tests import TestsChangedFiles, TestsCommand, TestsSetupFailed
from codur.core.events.tool import SandboxFallback, ToolCall
from codur.core.events.verify import VerifyVerdict
from codur.ui.activity import Activity, Tally
from codur.ui.patch_progress import PatchLines
from codur.ui.subscriptions import HANDLERS, on

#: arguments too long or too noisy for a one-line tool call (file contents, diffs)
BULKY_ARGS = frozenset({"content", "new", "old", "patch", "stdin"})


def kind(event: dict[str, Any]) -> str:
    """The event's type: ``event_type`` (or ``event``, the trace's older key)."""
    return str(event.get("event_type") or event.get("event") or "")


class Progress(PatchLines):
    """The run's ``on_event``: prints each event as one line and keeps the :class:`Tally`.

    It subscribes by type (:data:`SUBSCRIBED`): each event type it draws has one method taking
    that type, so a renamed event or field is an ImportError or AttributeError, not silence.

    Args:
        console: where lines go (stdout's Console; a spinner only when it is a terminal).
        verbose: also the model's replies (``agent.reply``), tool output and every candidate.
        quiet: print nothing (the summary only).
    """

    def __init__(self, console: Console, *, verbose: bool = False, quiet: bool = False) -> None:
        self.console, self.verbose, self.quiet = console, verbose, quiet
        self.tally = Tally()
        self._activity = Activity()
        self._live: Live | None = None
        self._lock = threading.RLock()
        self._node = ""
        self._best = ""
        self._tried = 0
        self._best_fixed = 0
        self._sandbox_said = False

    # -- spinner ---------------------------------------------------------------------

    @property
    def animated(self) -> bool:
        return not self.quiet and self.console.is_terminal and not self.console.is_dumb_terminal

    def start(self) -> None:
        """Start the spinner (a no-op when piped or quiet)."""
        with self._lock:
            if self.animated and self._live is None:
                self._live = Live(self._activity, console=self.console, refresh_per_second=8, transient=True)
                self._live.start()

    def stop(self) -> None:
        """Stop and clear the spinner."""
        with self._lock:
            if self._live is not None:
                self._live.stop()
                self._live = None

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No spinner inside the block (a question to the user)."""
        with self._lock:
            was = self._live is not None
            self.stop()
            try:
                yield
            finally:
                if was:
                    self.start()

    # -- events ----------------------------------------------------------------------

    def __call__(self, event: Event | dict[str, Any]) -> None:
        """Take one event: typed, or its wire record (:func:`codur.core.events.wire`, as the
        engine hands it on).

        Raises:
            TypeError: a record of a known type whose fields its type does not declare.
        """
        run_id = ""
        if not isinstance(event, Event):
            run_id, event = str(event.get("run_id") or ""), parse(event)
        with self._lock:
            self.tally.add(run_id, event)
            line = None if self.quiet or event is None else self.line(event)
            if line:
                self.console.print(line, highlight=False)

    def line(self, event: Event) -> str | None:
        """The event as one line of Rich markup, or None when it is not shown."""
        handler = HANDLERS.get(type(event))
        return handler(self, event) if handler is not None else None

    @on(EngineState)
    def _state(self, event: EngineState) -> str | None:
        if event.phase == "exit":  # the state's outcome: the summary says how the run ended
            return None
        self._node = event.node
        self._activity.set(self._node)
        state = str(event.state).lower()
        where = ", ".join(filter(None, [state if state != self._node else "",
                                        f"turn {event.turn}" if event.turn else ""]))
        return f"[bold cyan]▶ {escape(self._node)}[/]" + (f" [dim]({where})[/]" if where else "")

    @on(ModelStart)
    def _model_start(self, event: ModelStart) -> None:
        self._activity.set(f"model {_who(event)}")

    @on(ModelCall)
    def _model_call(self, event: ModelCall) -> str:
        self._activity.set(self._node)
        if event.error:
            return (f"   ↳ model {escape(_who(event))}: [yellow]{escape(str(event.error)[:200])}[/] "
                    f"[dim]{float(event.seconds or 0):.1f}s[/]")
        cost = f", ${event.cost_usd:.4f}" if event.cost_usd else ""
        return (f"   ↳ model {escape(_who(event))}: {event.input_tokens} in / "
                f"{event.output_tokens} out tokens [dim]{float(event.seconds or 0):.1f}s{cost}[/]")

    @on(ToolCall)
    def _tool_line(self, event: ToolCall) -> str:
        given = event.args or {}
        args = ", ".join(f"{k}={_short(v)}" for k, v in given.items() if k not in BULKY_ARGS)
        if isinstance(given.get("patch"), str):  # a diff: the files it touches
            files = [line[4:].removeprefix("b/") for line in given["patch"].splitlines() if line.startswith("+++ ")]
            args = ", ".join(filter(None, [args, f"files={_short(' '.join(files))}"]))
        mark = "[green]ok[/]" if event.ok else "[red]error[/]"
        text = f"   ↳ {escape(str(event.tool))}({escape(args)}) {mark} [dim]{float(event.duration_s or 0):.2f}s[/]"
        if self.verbose:  # the output as the tool printed it, its lines kept (a long one folds on a terminal)
            text += "\n" + _block(str(event.output))
        elif not event.ok:
            output = " ".join(str(event.output).split())[:200]
            text += f"\n     [dim]{escape(output)}[/]"
        return text

    @on(AgentReply)
    def _reply_line(self, event: AgentReply) -> str | None:
        lines = [f"   [yellow]! {escape(str(e)[:200])}[/]" for e in event.errors or []]
        if self.verbose:
            text = " ".join(str(event.text).split())[:300]
            called = f" → {', '.join(map(str, event.tool_calls))}" if event.tool_calls else ""
            lines.append(f"   [magenta]model:[/] [dim]{escape(text)}{escape(called)}[/]")
        return "\n".join(lines) or None

    @on(AgentPrompt)
    def _prompt(self, event: AgentPrompt) -> str:  # a dry run: the prompts the agent would get, whole
        parts = [("system", event.system), ("prompt", event.prompt)]
        return "\n".join(f"   [bold]{label}[/] ({escape(str(event.agent))}):\n{escape(str(text))}"
                         for label, text in parts if text)

    @on(TestsCommand)
    def _tests_command(self, event: TestsCommand) -> str:
        return f"   ↳ tests: {escape(str(event.command))}"

    @on(PatchRisky)
    def _risky(self, event: PatchRisky) -> str:
        verdict = "approved, written" if event.approved else "not written: not approved"
        return (f"   [red]! risky change to {escape(str(event.path))}: "
                f"{escape('; '.join(event.findings or []))[:300]} ({verdict})[/]")

    @on(VerifyVerdict)
    def _verdict(self, event: VerifyVerdict) -> str | None:
        if event.plausible:  # passed, held back by an anti-pattern (codur.validate.antipatterns)
            return f"   [yellow]! plausible, not verified: {escape(str(event.plausible))}[/]"
        if not event.refused:  # the agent's change refused (codur.validate.footprint)
            return None
        return f"   [yellow]! refused the change: {escape(str(event.refused))}[/]"

    @on(TestsChangedFiles)
    def _tests_changed(self, event: TestsChangedFiles) -> str:
        return f"   [yellow]! {escape(str(event.message)[:300])}[/]"

    @on(TestsSetupFailed)
    def _setup_failed(self, event: TestsSetupFailed) -> str:
        return f"   [red]! the tests could not start: {escape(str(event.problem)[:300])}[/]"

    @on(AgentRetry)
    def _retry(self, event: AgentRetry) -> str:
        undone = ", ".join(event.reverted or []) or "nothing"
        return (f"   [yellow]↻ fresh retry (turn {event.turn}): the last attempt fixed no failing test; "
                f"reverted {escape(undone)[:200]}[/]")

    @on(RunResumed)
    def _resumed(self, event: RunResumed) -> str:
        put_back = f"; the first start's end put back {', '.join(event.put_back)[:200]}" if event.put_back else ""
        check = "; the repo is verified again as it is now" if event.rechecked else ""
        return f"   [yellow]↻ resumed before {escape(', '.join(event.next))}{escape(check + put_back)}[/]"

    @on(ModelFallback)
    def _model_fallback(self, event: ModelFallback) -> str:  # the model-call policy went on to the chain's next profile
        return _warning(event, f"{event.role or 'model'}: profile {event.from_profile} → {event.to_profile}")

    @on(PlanFallback)
    def _plan_fallback(self, event: PlanFallback) -> str:
        return _warning(event, event.reason)

    @on(SandboxFallback)
    def _sandbox_fallback(self, event: SandboxFallback) -> str | None:
        if self._sandbox_said:  # the tools and repair's test runs may both say it: once per run
            return None
        self._sandbox_said = True
        return _warning(event, event.reason)

#: Every event type the progress view draws (its subscriptions).
SUBSCRIBED: frozenset[type[Event]] = frozenset(HANDLERS)


def _warning(event: Event, what: str) -> str:
    """A fallback's line: ``! model.fallback: what``."""
    return f"   [yellow]! {escape(event.event_type)}: {escape(str(what)[:200])}[/]"


def _who(event: ModelStart | ModelCall) -> str:
    role, model = event.role, event.model
    return f"{role} ({model})" if role and model else str(role or model or "")


#: Lines of a tool's output ``--verbose`` shows; the rest is counted.
VERBOSE_LINES = 60


def _block(output: str) -> str:
    """``output``'s lines indented under its tool line, at most :data:`VERBOSE_LINES` of them."""
    lines = output.rstrip("\n").splitlines() or [""]
    shown = [f"     [dim]{escape(line.expandtabs(4))}[/]" for line in lines[:VERBOSE_LINES]]
    if len(lines) > VERBOSE_LINES:
        shown.append(f"     [dim]… {len(lines) - VERBOSE_LINES} more lines (the trace has them all)[/]")
    return "\n".join(shown)


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else repr(" ".join(value.split()))
    return text if len(text) <= 42 else text[:40] + "…" + text[-1]
