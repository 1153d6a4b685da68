from dataclasses import dataclass


@dataclass
class Expense:
    category: str
    amount: float
    reimbursable: bool = True
    discounted: bool = False


def reimbursable_total(expenses):
    """Sum of the amounts that are reimbursable (discounted ones included)."""
    total = 0.0
    for e in expenses:
        if not e.reimbursable:
            continue
        if e.discounted:
            continue
        total += e.amount
    return round(total, 2)


def by_category(expenses):
    out = {}
    for e in expenses:
        out[e.category] = out.get(e.category, 0.0) + e.amount
    return out
