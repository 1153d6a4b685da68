"""Tally the results of the team lunch poll.

Ballots come straight from the chat bot, one choice per ballot; blank
ballots are ignored.
"""


def percentage(part, whole, digits=1):
    """Return ``part`` as a percentage of ``whole``, rounded to ``digits``."""
    if whole == 0:
        return 0.0
    return round(100.0 * part / whole, digits)


def tally(ballots):
    """Count the votes per choice."""
    counts = {}
    for choice in ballots:
        choice = choice.strip()
        if choice:
            counts[choice] = counts.get(choice, 0) + 1
    return counts


def results(ballots):
    """Return [(choice, votes, percent)] with the most popular choice first.

    Ties are listed alphabetically.
    """
    counts = tally(ballots)
    total = sum(counts.values())
    rows = [(choice, n, percentage(n, total)) for choice, n in counts.items()]
    rows.sort(key=lambda row: (-row[1], row[0]))
    return rows


def winner(ballots):
    """The winning choice, or None if nobody voted."""
    counts = tally(ballots)
    if not counts:
        return None
    return min(counts, key=lambda choice: (-counts[choice], choice))
