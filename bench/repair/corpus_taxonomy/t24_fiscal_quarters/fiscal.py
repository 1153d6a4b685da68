"""Fiscal periods of a company whose financial year starts on 1 April."""

from datetime import date


def fiscal_year(day):
    """The calendar year in which the fiscal year containing ``day`` began."""
    return day.year if day.month >= 4 else day.year - 1


def fiscal_label(day):
    start = fiscal_year(day)
    return f"FY{start}/{(start + 1) % 100:02d}"


def fiscal_quarter(day):
    """1 for April-June, ..., 4 for January-March."""
    return (day.month - 3) % 12 // 3 + 1


def quarter_start(day):
    month = 4 + 3 * (fiscal_quarter(day) - 1)
    return date(fiscal_year(day) + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def revenue_by_quarter(entries):
    """{(fiscal year, quarter): total} for (date, amount) entries."""
    totals = {}
    for day, amount in entries:
        key = (fiscal_year(day), fiscal_quarter(day))
        totals[key] = round(totals.get(key, 0) + amount, 2)
    return totals
