"""Live progress of a run: one readable line per event, a spinner with the elapsed time.

:class:`Progress` is the run's ``on_event`` callback. It prints the engine state and node,
each tool call (name, short arguments, duration), each model call (role, tokens in and
out, seconds) and the patch pipeline's steps (candidates tried, the
best so far, provenance), never a raw dict. On a terminal a spinner shows what runs now
and for how long (a model call of 3-30 s is no longer silence); piped output gets neither
colour nor spinner (Rich's terminal detection). It counts nothing: the run's figures are
the result's (:mod:`codur.ui.summary`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.spinner import Spinner
from rich.text import Text

from codur.core.contracts import FIXER_NAMES

#: arguments too long or too noisy for a one-line tool call (file contents, diffs)
BULKY_ARGS = frozenset({"content", "new", "old", "patch", "stdin"})


def kind(event: dict[str, Any]) -> str:
    """The event's type: ``event_type`` (or ``event``, the trace's older key)."""
    return str(event.get("event_type") or event.get("event") or "")


@dataclass
class Tally:
    """What the progress lines remember of a run's events: its id and the fixer of the plausible
    patch. The run's figures (usage, cost, the time split) are the result's alone
    (``RunResult.metadata``), which the summary reads."""

    run_id: str = ""
    fixer: str = ""

    def add(self, event: dict[str, Any]) -> None:
        """Note one event."""
        self.run_id = self.run_id or str(event.get("run_id") or "")
        if kind(event) == "patch.found":
            source = (event.get("provenance") or {}).get("source") or event.get("source") or ""
            self.fixer = FIXER_NAMES.get(source, source)


class _Activity:
    """The spinner's line: what runs now and since when (re-rendered by Live at every refresh)."""

    def __init__(self) -> None:
        self.spinner = Spinner("dots", style="cyan")
        self.label = "starting"
        self.since = time.monotonic()

    def set(self, label: str, *, restart: bool = True) -> None:
        """Show ``label``; the clock restarts unless ``restart`` is False (the same step goes on)."""
        self.label = label
        if restart:
            self.since = time.monotonic()

    def __rich__(self) -> Spinner:
        self.spinner.update(text=Text(f"{self.label} {time.monotonic() - self.since:.1f}s", style="dim"))
        return self.spinner


class Progress:
    """The run's ``on_event``: prints each event as one line and keeps the :class:`Tally`.

    Args:
        console: where lines go (stdout's Console; a spinner only when it is a terminal).
        verbose: also the model's replies (``agent.reply``), tool output and every candidate.
        quiet: print nothing (the summary only).
    """

    def __init__(self, console: Console, *, verbose: bool = False, quiet: bool = False) -> None:
        self.console, self.verbose, self.quiet = console, verbose, quiet
        self.tally = Tally()
        self._activity = _Activity()
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

    def __call__(self, event: dict[str, Any]) -> None:
        with self._lock:
            self.tally.add(event)
            line = None if self.quiet else self.line(event)
            if line:
                self.console.print(line, highlight=False)

    def line(self, event: dict[str, Any]) -> str | None:
        """The event as one line of Rich markup, or None when it is not shown."""
        name = kind(event)
        if name == "engine.state":
            if event.get("phase") == "exit":  # the state's outcome: the summary says how the run ended
                return None
            self._node = str(event.get("node", ""))
            self._activity.set(self._node)
            state = str(event.get("state", "")).lower()
            where = ", ".join(filter(None, [state if state != self._node else "",
                                            f"turn {event['turn']}" if event.get("turn") else ""]))
            return f"[bold cyan]▶ {escape(self._node)}[/]" + (f" [dim]({where})[/]" if where else "")
        if name == "model.start":
            self._activity.set(f"model {_who(event)}")
            return None
        if name == "model.call":
            self._activity.set(self._node)
            if event.get("error"):
                return (f"   ↳ model {escape(_who(event))}: [yellow]{escape(str(event['error'])[:200])}[/] "
                        f"[dim]{float(event.get('seconds') or 0):.1f}s[/]")
            cost = f", ${event['cost_usd']:.4f}" if event.get("cost_usd") else ""
            return (f"   ↳ model {escape(_who(event))}: {event.get('input_tokens', 0)} in / "
                    f"{event.get('output_tokens', 0)} out tokens [dim]{float(event.get('seconds') or 0):.1f}s{cost}[/]")
        if name == "tool.call":
            return self._tool_line(event)
        if name == "agent.reply":
            return self._reply_line(event)
        if name == "agent.prompt":  # a dry run: the prompts the agent would get, whole
            parts = [("system", event.get("system")), ("prompt", event.get("prompt"))]
            return "\n".join(f"   [bold]{label}[/] ({escape(str(event.get('agent', '')))}):\n{escape(str(text))}"
                             for label, text in parts if text)
        if name == "tests.command":
            return f"   ↳ tests: {escape(str(event.get('command', '')))}"
        if name == "patch.risky":
            verdict = "approved, written" if event.get("approved") else "not written: not approved"
            return (f"   [red]! risky change to {escape(str(event.get('path', '')))}: "
                    f"{escape('; '.join(event.get('findings') or []))[:300]} ({verdict})[/]")
        if name == "verify.verdict" and event.get("refused"):  # the agent's change (codur.repair.footprint)
            return f"   [yellow]! refused the change: {escape(str(event['refused']))}[/]"
        if name == "tests.changed_files":
            return f"   [yellow]! {escape(str(event.get('message', ''))[:300])}[/]"
        if name == "tests.setup_failed":
            return f"   [red]! the tests could not start: {escape(str(event.get('problem', ''))[:300])}[/]"
        if name == "sandbox.fallback":  # the tools and repair's test runs may both say it: once per run
            if self._sandbox_said:
                return None
            self._sandbox_said = True
        if name == "agent.retry":
            undone = ", ".join(event.get("reverted") or []) or "nothing"
            return (f"   [yellow]↻ fresh retry (turn {event.get('turn')}): the last attempt fixed no failing test; "
                    f"reverted {escape(undone)[:200]}[/]")
        if name in ("model.fallback", "plan.fallback", "sandbox.fallback"):
            what = event.get("error") or event.get("reason") or ""
            if name == "model.fallback":  # the model-call policy went on to the chain's next profile
                what = f"{event.get('role', 'model')}: profile {event.get('from_profile')} → {event.get('to_profile')}"
            return f"   [yellow]! {escape(name)}: {escape(str(what)[:200])}[/]"
        if name.startswith("patch."):
            return self._patch_line(name, event)
        return None

    def _tool_line(self, event: dict[str, Any]) -> str:
        given = event.get("args") or {}
        args = ", ".join(f"{k}={_short(v)}" for k, v in given.items() if k not in BULKY_ARGS)
        if isinstance(given.get("patch"), str):  # a diff: the files it touches
            files = [line[4:].removeprefix("b/") for line in given["patch"].splitlines() if line.startswith("+++ ")]
            args = ", ".join(filter(None, [args, f"files={_short(' '.join(files))}"]))
        mark = "[green]ok[/]" if event.get("ok") else "[red]error[/]"
        text = f"   ↳ {escape(str(event.get('tool')))}({escape(args)}) {mark} " \
               f"[dim]{float(event.get('duration_s') or 0):.2f}s[/]"
        if self.verbose:  # the output as the tool printed it, its lines kept (a long one folds on a terminal)
            text += "\n" + _block(str(event.get("output", "")))
        elif not event.get("ok"):
            output = " ".join(str(event.get("output", "")).split())[:200]
            text += f"\n     [dim]{escape(output)}[/]"
        return text

    def _reply_line(self, event: dict[str, Any]) -> str | None:
        lines = [f"   [yellow]! {escape(str(e)[:200])}[/]" for e in event.get("errors") or []]
        if self.verbose:
            text = " ".join(str(event.get("text", "")).split())[:300]
            calls = event.get("tool_calls") or []
            called = f" → {', '.join(map(str, calls))}" if calls else ""
            lines.append(f"   [magenta]model:[/] [dim]{escape(text)}{escape(called)}[/]")
        return "\n".join(lines) or None

    def _patch_line(self, name: str, event: dict[str, Any]) -> str | None:
        """The candidate-patch pipeline (codur/patch/pipeline.py)."""
        if name == "patch.localized":
            top = ", ".join(f"{s[0]}:{s[1]}" for s in (event.get("suspicious") or [])[:3])
            ran = f" ({event['tests_run']} tests run, a selection)" if event.get("selection") else ""
            return (f"   ↳ localized: {len(event.get('failing_tests') or [])} failing tests{ran}; suspicious "
                    f"{escape(top) or '-'} [dim]{float(event.get('elapsed_s') or 0):.1f}s[/]")
        if name == "patch.suite":
            if event.get("collected") is None:
                return "   ↳ suite: not collected (the tests the command was seen to run are used)"
            return (f"   ↳ suite: {event['collected']} tests in {event.get('files')} files collected; failing tests' "
                    f"own run {float(event.get('seconds') or 0):.1f}s, {event.get('tied')} lines tied at the top")
        if name == "patch.localizing":
            total = f"/{event['tests']}" if event.get("tests") else ""
            self._activity.set(f"localizing: {event.get('tests_done', 0)}{total} tests", restart=False)
            return (f"     [dim]localizing: {event.get('tests_done', 0)}{total} tests, "
                    f"{float(event.get('seconds') or 0):.0f}s[/]")
        if name == "patch.phase":
            what = (event.get("skipped") or ", ".join(event.get("functions") or [])
                    or f"{event.get('candidates', 0)} candidates")
            self._activity.set(f"patch search: {event.get('phase')}")
            return f"   ↳ {escape(str(event.get('phase')))}: {escape(str(what))}"
        if name == "patch.sample":
            return (f"     sample {event.get('k')} ({escape(str(event.get('variant')))}, T={event.get('temperature')}):"
                    f" {escape(str(event.get('outcome')))} [dim]{event.get('tokens', 0)} tokens, "
                    f"{float(event.get('seconds') or 0):.1f}s[/]")
        if name == "patch.candidate":
            self._tried += 1
            tried = self._tried
            if event.get("result") == "near_miss" and int(event.get("fixed") or 0) > self._best_fixed:
                self._best, self._best_fixed = str(event.get("label", "")), int(event.get("fixed") or 0)
            self._activity.set(f"patch search: {tried} candidates tried"
                               + (f", best so far {self._best[:60]}" if self._best else ""), restart=False)
            if event.get("result") == "refused":  # codur.repair.footprint: said whatever the verbosity
                label, why = str(event.get("label", ""))[:90], str(event.get("reason", ""))
                return (f"     [yellow]#{tried} {escape(str(event.get('source')))}: {escape(label)}"
                        f" → refused: {escape(why)}[/]")
            if not self.verbose and event.get("source") == "mutation" and event.get("result") != "near_miss":
                return None
            fixed = f", fixed {event['fixed']}" if event.get("fixed") else ""
            return (f"     [dim]#{tried} {escape(str(event.get('source')))}: {escape(str(event.get('label', ''))[:90])}"
                    f" → {escape(str(event.get('result')))}{fixed} {float(event.get('seconds') or 0):.1f}s[/]")
        if name == "patch.found":
            return f"   ↳ [green]plausible patch[/] ({escape(self.tally.fixer)}): {escape(str(event.get('label')))}"
        if name == "patch.done":
            tried = ", ".join(f"{n} {s}" for s, n in (event.get("tried") or {}).items() if n) or "nothing"
            refused = f", refused {len(event['refused'])}" if event.get("refused") else ""
            return (f"   ↳ patch search {escape(str(event.get('status')))}: tried {escape(tried)}{refused}"
                    f" [dim]{float(event.get('elapsed_s') or 0):.1f}s[/]")
        if name == "patch.reverted":
            return f"   ↳ reverted the agent's edits of {escape(', '.join(event.get('files') or []))}"
        return None


def _who(event: dict[str, Any]) -> str:
    role, model = event.get("role"), event.get("model")
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
