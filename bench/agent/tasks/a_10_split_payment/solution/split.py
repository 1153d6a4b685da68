"""Split a shared bill between friends (all amounts in cents).

Used by the group-expenses app when somebody pays for everybody and the
others have to pay their part back.
"""


def split_evenly(total_cents, people):
    """Split ``total_cents`` into ``people`` shares.

    The shares must add up exactly to the total and differ by at most one
    cent; when the amount does not divide evenly, the first people in the
    list pay the extra cents.
    """
    if people <= 0:
        raise ValueError("people must be positive")
    base, extra = divmod(total_cents, people)
    return [base + 1] * extra + [base] * (people - extra)


def format_cents(cents):
    """1234 -> '12.34'."""
    sign = "-" if cents < 0 else ""
    euros, rest = divmod(abs(cents), 100)
    return f"{sign}{euros}.{rest:02d}"


def payback_summary(total_cents, names):
    """Lines like 'Ann owes 3.34' for everybody except the payer (names[0])."""
    shares = split_evenly(total_cents, len(names))
    return [f"{name} owes {format_cents(share)}"
            for name, share in zip(names[1:], shares[1:])]
