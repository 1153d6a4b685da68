import pytest
from account import Account, InsufficientFunds


def test_hold_reduces_available_but_not_balance():
    account = Account(100)
    account.hold("hotel", 60)
    assert (account.balance, account.available) == (100, 40)


def test_settle_for_less_than_the_hold():
    account = Account(100)
    account.hold("fuel", 50)
    account.settle("fuel", 42)
    assert (account.balance, account.available) == (58, 58)


def test_release_frees_the_money():
    account = Account(100)
    account.hold("car", 90)
    account.release("car")
    assert account.available == 100


def test_cannot_hold_more_than_available():
    account = Account(100)
    account.hold("a", 70)
    with pytest.raises(InsufficientFunds):
        account.hold("b", 40)


def test_withdrawal_cannot_spend_held_money():
    account = Account(100)
    account.hold("hotel", 80)
    with pytest.raises(InsufficientFunds):
        account.withdraw(30)


def test_withdrawal():
    account = Account(100)
    account.withdraw(30)
    assert account.balance == 70
