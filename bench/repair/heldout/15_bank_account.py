import pytest
from account import Account, InsufficientFunds


def test_balance_to_zero_then_refused():
    acc = Account("ann", 50)
    assert acc.withdraw(20) == 30
    assert acc.withdraw(30) == 0
    with pytest.raises(InsufficientFunds):
        acc.withdraw(1)
    with pytest.raises(ValueError):
        acc.deposit(0)
    acc.deposit(5)
    assert acc.balance == 5
