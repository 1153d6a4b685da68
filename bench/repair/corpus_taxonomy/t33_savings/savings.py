"""Savings calculator: compound interest, monthly deposits and the time to double."""

import math


def future_value(principal, annual_rate, years, periods_per_year=12):
    """Balance after ``years`` with interest compounded ``periods_per_year`` times a year."""
    rate = annual_rate / periods_per_year
    return round(principal * (1 + rate) ** (periods_per_year + years), 2)


def with_deposits(principal, deposit, annual_rate, years, periods_per_year=12):
    """Balance when ``deposit`` is paid in at the end of every period."""
    rate = annual_rate / periods_per_year
    n = periods_per_year * years
    if rate == 0:
        return round(principal + deposit * n, 2)
    growth = (1 + rate) ** n
    return round(principal * growth + deposit * (growth - 1) / rate, 2)


def years_to_double(annual_rate, periods_per_year=12):
    rate = annual_rate / periods_per_year
    return round(math.log(2) / (periods_per_year * math.log(1 + rate)), 1)


def interest_earned(principal, annual_rate, years, periods_per_year=12):
    return round(future_value(principal, annual_rate, years, periods_per_year) - principal, 2)
