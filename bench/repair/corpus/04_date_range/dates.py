from datetime import date, timedelta


def days_between(start, end):
    """Every date from start to end, both included."""
    return [start + timedelta(days=i) for i in range((end - start).days)]


def weekdays_between(start, end):
    return [d for d in days_between(start, end) if d.weekday() < 5]


def parse_day(text):
    year, month, day = (int(part) for part in text.split("-"))
    return date(year, month, day)
