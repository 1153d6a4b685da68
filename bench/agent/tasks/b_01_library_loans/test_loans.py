from datetime import date

import pytest
from loans import MAX_LOANS, Loan, Member, can_borrow, checkout, overdue

TODAY = date(2024, 5, 10)


def test_new_member_can_borrow():
    assert can_borrow(Member("Ines"))


def test_checkout_sets_due_date():
    m = Member("Ines")
    loan = checkout(m, "Dune", TODAY)
    assert loan.due == date(2024, 5, 31)
    assert m.loans == [loan]


def test_member_at_limit_is_blocked():
    m = Member("Ola", loans=[Loan(f"Book {i}", TODAY) for i in range(MAX_LOANS)])
    assert not can_borrow(m)


def test_member_with_fines_is_blocked():
    m = Member("Raj", fines_cents=150)
    assert not can_borrow(m)
    with pytest.raises(PermissionError):
        checkout(m, "Emma", TODAY)


def test_suspended_member_is_blocked():
    assert not can_borrow(Member("Tom", suspended=True))


def test_overdue_titles():
    m = Member("Ines", loans=[Loan("B", date(2024, 5, 1)), Loan("A", date(2024, 5, 9)),
                              Loan("C", date(2024, 5, 10))])
    assert overdue(m, TODAY) == ["A", "B"]
