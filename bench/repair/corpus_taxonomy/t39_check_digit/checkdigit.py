"""Check digits for customer account numbers: weights 2..7 from the right, repeating, mod 11."""


def weighted_sum(number):
    total, weight = 0, 2
    while number > 0:
        total += (number % 10) * weight
        weight = 2 if weight == 7 else weight + 1
    return total


def check_digit(number):
    """'0'-'9', or 'X' where the scheme asks for 10."""
    remainder = 11 - weighted_sum(number) % 11
    if remainder == 11:
        return "0"
    if remainder == 10:
        return "X"
    return str(remainder)


def with_check_digit(number):
    return f"{number}{check_digit(number)}"


def is_valid(account):
    """True if the last character of ``account`` is the check digit of the rest
    (spaces and hyphens are ignored)."""
    account = account.replace(" ", "").replace("-", "")
    if len(account) < 2 or not account[:-1].isdigit():
        return False
    return check_digit(int(account[:-1])) == account[-1].upper()
