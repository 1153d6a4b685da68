import pytest
from ledger import running_balance


def test_deposits():
    assert running_balance(0, [("in", 5), ("in", 10)]) == [5, 15]


def test_withdrawals():
    assert running_balance(100, [("out", 30), ("in", 5), ("out", 75)]) == [70, 75, 0]


def test_unknown():
    with pytest.raises(ValueError):
        running_balance(0, [("fee", 1)])
