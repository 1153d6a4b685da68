"""Counting a club election: ballots per polling table, totals, winner and turnout."""


def tally(ballots):
    """{candidate: votes} from one table's ballots; blank ballots are not counted."""
    counts = {}
    for ballot in ballots:
        choice = " ".join(ballot.split()).title()
        if choice:
            counts[choice] = counts.get(ballot, 0) + 1
    return counts


def overall(tables):
    """{candidate: votes} over all tables; ``tables`` maps a table name to its ballots."""
    total = {}
    for ballots in tables.values():
        for candidate, votes in tally(ballots).items():
            total[candidate] = total.get(candidate, 0) + votes
    return total


def winner(counts):
    """The candidate with the most votes; None on a tie for first place or without votes."""
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def turnout(tables, members):
    """Percentage of ``members`` who handed in a ballot, blank ones included."""
    cast = sum(len(ballots) for ballots in tables.values())
    return round(100 * cast / members, 1)
