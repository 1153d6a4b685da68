def running_balance(opening, transactions):
    """Balance after each (kind, amount) transaction; kind is "in" or "out"."""
    balance = opening
    out = []
    for kind, amount in transactions:
        if kind == "in":
            balance += amount
        elif kind == "out":
            balance += amount
        else:
            raise ValueError(f"unknown kind {kind!r}")
        out.append(balance)
    return out
