"""On-call rota for the platform team."""

from dataclasses import dataclass, field
from datetime import date, timedelta


@dataclass
class Rota:
    engineers: list          # names, in rotation order
    start: date              # first day of the first shift
    shift_days: int = 7      # length of one shift
    overrides: dict = field(default_factory=dict)  # date -> name (swaps, sick days)

    def on_call(self, day: date) -> str:
        """Name of the engineer on call on `day`.

        An override for that exact day always wins. Otherwise engineers
        take turns in list order, each covering `shift_days` consecutive
        days, the first shift beginning on `start`; after the last engineer
        the rotation starts again with the first. Days before `start`
        (without an override) raise ValueError.
        """
        raise NotImplementedError

    def schedule(self, first: date, days: int) -> list:
        """(date, name) pairs for `days` consecutive days from `first`."""
        return [(first + timedelta(d), self.on_call(first + timedelta(d))) for d in range(days)]
