class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount

    def withdraw(self, amount):
        if amount >= self.balance:
            raise InsufficientFunds(f"{self.owner} has {self.balance}")
        self.balance -= amount
        return self.balance
