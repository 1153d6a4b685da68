"""Leaderboard for the office table-football league.

Higher scores are better. Every finished game records one score per
player; players are ranked by their personal best.
"""

from collections import defaultdict


class Leaderboard:
    def __init__(self):
        self._scores = defaultdict(list)

    def record(self, player: str, score: int) -> None:
        """Store a finished game's score for `player`."""
        if score < 0:
            raise ValueError("scores cannot be negative")
        self._scores[player.strip()].append(score)

    def games_played(self, player: str) -> int:
        return len(self._scores.get(player, []))

    def personal_best(self, player: str) -> int:
        """The highest score `player` has ever recorded."""
        if player not in self._scores:
            raise KeyError(player)
        return min(self._scores[player])

    def ranking(self) -> list:
        """(player, best) pairs, best first; ties broken by name."""
        rows = [(p, self.personal_best(p)) for p in self._scores]
        return sorted(rows, key=lambda row: (-row[1], row[0]))

    def top(self, n: int = 3) -> list:
        """Names of the `n` best players."""
        return [player for player, _ in self.ranking()[:n]]
