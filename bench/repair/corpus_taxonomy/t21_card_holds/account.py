"""A bank account with card holds: a hold reserves money until the merchant settles it."""


class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, balance=0.0):
        self.balance = balance
        self.holds = {}

    @property
    def available(self):
        return self.balance - sum(self.holds.values())

    def hold(self, reference, amount):
        if amount > self.available:
            raise InsufficientFunds(reference)
        self.holds[reference] = amount

    def settle(self, reference, final_amount=None):
        """Turn a hold into a debit; the merchant may settle for less than was held."""
        amount = self.holds.pop(reference)
        self.balance -= amount if final_amount is None else final_amount

    def release(self, reference):
        self.holds.pop(reference, None)

    def withdraw(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        if amount > self.balance:
            raise InsufficientFunds("withdrawal")
        self.balance -= amount
