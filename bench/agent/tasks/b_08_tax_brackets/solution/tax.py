"""Income tax estimate for the payroll preview screen.

The tax is progressive: each rate applies only to the slice of income
that falls inside its bracket, never to the whole income.
"""

# (upper limit of the bracket, rate); None means "no upper limit".
BRACKETS = [
    (12_000, 0.00),
    (40_000, 0.20),
    (100_000, 0.40),
    (None, 0.45),
]


def income_tax(income: float, brackets=BRACKETS) -> float:
    """Total yearly tax for `income`, rounded to cents."""
    if income < 0:
        raise ValueError("income cannot be negative")
    tax = 0.0
    lower = 0
    for upper, rate in brackets:
        if upper is None or income <= upper:
            tax += (income - lower) * rate
            break
        tax += (upper - lower) * rate
        lower = upper
    return round(tax, 2)


def marginal_rate(income: float, brackets=BRACKETS) -> float:
    """Rate applied to the next unit of income."""
    for upper, rate in brackets:
        if upper is None or income < upper:
            return rate
    raise ValueError("brackets must end with an open bracket")


def effective_rate(income: float, brackets=BRACKETS) -> float:
    """Share of the income paid as tax (0.0 for zero income)."""
    if income == 0:
        return 0.0
    return round(income_tax(income, brackets) / income, 4)
