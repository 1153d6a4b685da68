from datetime import date

from fiscal import fiscal_label, fiscal_quarter, fiscal_year, quarter_start, revenue_by_quarter


def test_fiscal_year_starts_in_april():
    assert fiscal_year(date(2024, 3, 31)) == 2023
    assert fiscal_year(date(2024, 4, 1)) == 2024


def test_label():
    assert fiscal_label(date(2024, 5, 1)) == "FY2024/25"
    assert fiscal_label(date(2000, 1, 1)) == "FY1999/00"


def test_quarters():
    months = [fiscal_quarter(date(2024, m, 15)) for m in range(1, 13)]
    assert months == [4, 4, 4, 1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_quarter_start():
    assert quarter_start(date(2025, 2, 14)) == date(2025, 1, 1)
    assert quarter_start(date(2024, 8, 30)) == date(2024, 7, 1)


def test_revenue_by_quarter():
    entries = [(date(2024, 4, 2), 100.0), (date(2024, 6, 30), 50.5), (date(2025, 3, 1), 20.0)]
    assert revenue_by_quarter(entries) == {(2024, 1): 150.5, (2024, 4): 20.0}
