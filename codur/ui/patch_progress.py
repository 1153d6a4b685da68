"""The progress lines of the candidate-patch pipeline (codur/patch/pipeline.py): candidates
tried, the best so far, the plausible patch. A mixin of :class:`codur.ui.progress.Progress`,
which holds the state it reads (``verbose``, the spinner's ``_activity``, ``tally``, the count
of candidates tried).
"""

from __future__ import annotations

from rich.markup import escape

from codur.core.events.patch import (
    PatchCandidate,
    PatchDone,
    PatchFound,
    PatchLocalized,
    PatchLocalizing,
    PatchPhase,
    PatchReverted,
    PatchSample,
    PatchSuite,
)
from codur.ui.activity import Activity, Tally
from codur.ui.subscriptions import on


class PatchLines:
    """The patch search's lines (see the module docstring)."""

    verbose: bool
    tally: Tally
    _activity: Activity
    _best: str
    _tried: int
    _best_fixed: int

    @on(PatchLocalized)
    def _localized(self, event: PatchLocalized) -> str:
        top = ", ".join(f"{s[0]}:{s[1]}" for s in (event.suspicious or [])[:3])
        ran = f" ({event.tests_run} tests run, a selection)" if event.selection else ""
        return (f"   ↳ localized: {len(event.failing_tests or [])} failing tests{ran}; suspicious "
                f"{escape(top) or '-'} [dim]{float(event.elapsed_s or 0):.1f}s[/]")

    @on(PatchSuite)
    def _suite(self, event: PatchSuite) -> str:
        if event.collected is None:
            return "   ↳ suite: not collected (the tests the command was seen to run are used)"
        return (f"   ↳ suite: {event.collected} tests in {event.files} files collected; failing tests' "
                f"own run {float(event.seconds or 0):.1f}s, {event.tied} lines tied at the top")

    @on(PatchLocalizing)
    def _localizing(self, event: PatchLocalizing) -> str:
        total = f"/{event.tests}" if event.tests else ""
        self._activity.set(f"localizing: {event.tests_done or 0}{total} tests", restart=False)
        return f"     [dim]localizing: {event.tests_done or 0}{total} tests, {float(event.seconds or 0):.0f}s[/]"

    @on(PatchPhase)
    def _phase(self, event: PatchPhase) -> str:
        what = event.skipped or ", ".join(event.functions or []) or f"{event.candidates or 0} candidates"
        self._activity.set(f"patch search: {event.phase}")
        return f"   ↳ {escape(str(event.phase))}: {escape(str(what))}"

    @on(PatchSample)
    def _sample(self, event: PatchSample) -> str:
        return (f"     sample {event.k} ({escape(str(event.variant))}, T={event.temperature}):"
                f" {escape(str(event.outcome))} [dim]{event.tokens or 0} tokens, {float(event.seconds or 0):.1f}s[/]")

    @on(PatchCandidate)
    def _candidate(self, event: PatchCandidate) -> str | None:
        self._tried += 1
        tried = self._tried
        if event.result == "near_miss" and int(event.fixed or 0) > self._best_fixed:
            self._best, self._best_fixed = str(event.label), int(event.fixed or 0)
        self._activity.set(f"patch search: {tried} candidates tried"
                           + (f", best so far {self._best[:60]}" if self._best else ""), restart=False)
        if event.result in ("refused", "held"):  # footprint, anti-patterns: said whatever the verbosity
            label, why, verdict = str(event.label)[:90], str(event.reason or ""), str(event.result)
            return (f"     [yellow]#{tried} {escape(str(event.source))}: {escape(label)} → "
                    f"{'held back' if verdict == 'held' else verdict}: {escape(why)}[/]")
        if not self.verbose and event.source == "mutation" and event.result != "near_miss":
            return None
        fixed = f", fixed {event.fixed}" if event.fixed else ""
        return (f"     [dim]#{tried} {escape(str(event.source))}: {escape(str(event.label)[:90])}"
                f" → {escape(str(event.result))}{fixed} {float(event.seconds or 0):.1f}s[/]")

    @on(PatchFound)
    def _found(self, event: PatchFound) -> str:
        if event.held:  # no clean candidate came: the best held-back one (codur.patch.choice)
            return (f"   ↳ [yellow]plausible patch, held back[/] ({escape(self.tally.fixer)}): "
                    f"{escape(str(event.label))}: {escape('; also '.join(event.held))}")
        return f"   ↳ [green]plausible patch[/] ({escape(self.tally.fixer)}): {escape(str(event.label))}"

    @on(PatchDone)
    def _done(self, event: PatchDone) -> str:
        tried = ", ".join(f"{n} {s}" for s, n in (event.tried or {}).items() if n) or "nothing"
        refused = f", refused {len(event.refused)}" if event.refused else ""
        return (f"   ↳ patch search {escape(str(event.status))}: tried {escape(tried)}{refused}"
                f" [dim]{float(event.elapsed_s or 0):.1f}s[/]")

    @on(PatchReverted)
    def _reverted(self, event: PatchReverted) -> str:
        return f"   ↳ reverted the agent's edits of {escape(', '.join(event.files or []))}"
