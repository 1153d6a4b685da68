"""Leaderboard of a pub quiz: totals per team over the rounds, places shared on equal totals."""

from collections import defaultdict


def totals(rounds):
    """``rounds``: a list of {team: points} -> {team: total}."""
    result = defaultdict(int)
    for scores in rounds:
        for team, points in scores.items():
            result[team] += points
    return dict(result)


def ranking(rounds):
    """[(place, team, total)], best first; teams with equal totals share a place."""
    ordered = sorted(totals(rounds).items(), key=lambda item: item[1])
    rows = []
    for index, (team, total) in enumerate(ordered):
        place = rows[-1][0] if rows and rows[-1][2] == total else index + 1
        rows.append((place, team, total))
    return rows


def winners(rounds):
    return [team for place, team, _ in ranking(rounds) if place == 1]


def round_winners(rounds):
    """The best team of each round (first listed on a tie)."""
    return [max(scores, key=scores.get) for scores in rounds]
