"""What the progress view keeps between events: the run's :class:`Tally` and the spinner's
:class:`Activity` line (both read by :mod:`codur.ui.progress` and :mod:`codur.ui.patch_progress`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.spinner import Spinner
from rich.text import Text

from codur.core.contracts import FIXER_NAMES
from codur.core.events import Event
from codur.core.events.patch import PatchFound


@dataclass
class Tally:
    """What the progress lines remember of a run's events: its id and the fixer of the plausible
    patch. The run's figures (usage, cost, the time split) are the result's alone
    (``RunResult.metadata``), which the summary reads."""

    run_id: str = ""
    fixer: str = ""

    def add(self, run_id: str, event: Event | None) -> None:
        """Note one event (``run_id``: the run it came from, '' when not said)."""
        self.run_id = self.run_id or run_id
        if isinstance(event, PatchFound):
            source = (event.provenance or {}).get("source") or ""
            self.fixer = FIXER_NAMES.get(source, source)


class Activity:
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
