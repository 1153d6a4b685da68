import pytest
from account import Account, InsufficientFunds


def test_deposit():
    acc = Account("ann")
    acc.deposit(50)
    assert acc.balance == 50


def test_withdraw():
    acc = Account("bob", 100)
    assert acc.withdraw(30) == 70


def test_withdraw_everything():
    acc = Account("cy", 40)
    assert acc.withdraw(40) == 0


def test_overdraft():
    with pytest.raises(InsufficientFunds):
        Account("dee", 10).withdraw(11)
