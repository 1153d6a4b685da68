"""Borrowing rules for a small community library."""

from dataclasses import dataclass, field
from datetime import date, timedelta

MAX_LOANS = 5
LOAN_DAYS = 21


@dataclass
class Loan:
    title: str
    due: date


@dataclass
class Member:
    name: str
    fines_cents: int = 0
    suspended: bool = False
    loans: list = field(default_factory=list)


def can_borrow(member: Member) -> bool:
    """Return True if the member may take out another book.

    A member is blocked while they are suspended, while they owe any
    fines, or once they already hold MAX_LOANS books.
    """
    return not (member.suspended or len(member.loans) >= MAX_LOANS)


def checkout(member: Member, title: str, today: date) -> Loan:
    """Lend `title` to `member`; the book is due LOAN_DAYS after today."""
    if not can_borrow(member):
        raise PermissionError(f"{member.name} cannot borrow right now")
    loan = Loan(title, today + timedelta(days=LOAN_DAYS))
    member.loans.append(loan)
    return loan


def overdue(member: Member, today: date) -> list:
    """Titles the member should already have returned (sorted)."""
    return sorted(loan.title for loan in member.loans if loan.due < today)
