"""Day-over-day moves of a stock price, in percent."""


def percent_change(previous, current):
    if previous == 0:
        raise ZeroDivisionError("no percent change from a zero price")
    return (current - previous) / current * 100


def daily_changes(prices):
    return [round(percent_change(a, b), 2) for a, b in zip(prices, prices[1:])]


def biggest_move(prices):
    """(day, change) of the largest absolute daily change; day 1 is the first change."""
    changes = daily_changes(prices)
    if not changes:
        return None
    day = max(range(len(changes)), key=lambda i: abs(changes[i]))
    return day + 1, changes[day]


def rising_streaks(prices):
    """Lengths of the runs of consecutive rising days."""
    runs, current = [], 0
    for change in daily_changes(prices):
        if change > 0:
            current += 1
        elif current:
            runs.append(current)
            current = 0
    if current:
        runs.append(current)
    return runs
