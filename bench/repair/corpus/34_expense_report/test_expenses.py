from expenses import Expense, by_category, reimbursable_total


def test_plain():
    assert reimbursable_total([Expense("taxi", 20.0), Expense("meal", 12.5)]) == 32.5


def test_private_excluded():
    assert reimbursable_total([Expense("taxi", 20.0), Expense("gift", 9.0, reimbursable=False)]) == 20.0


def test_discounted_included():
    assert reimbursable_total([Expense("hotel", 80.0, discounted=True), Expense("meal", 10.0)]) == 90.0


def test_by_category():
    assert by_category([Expense("a", 1.0), Expense("a", 2.0)]) == {"a": 3.0}
