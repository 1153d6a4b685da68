"""Maintain the newsletter mailing list.

Sign-ups arrive from several web forms and CSV imports. Addresses are
compared without surrounding whitespace and case-insensitively, so that
" Ann@Example.com" and "ann@example.com" are the same subscriber.
"""


def is_valid(email):
    """Very small sanity check: one '@' with something on both sides and a dot in the domain."""
    local, sep, domain = email.strip().partition("@")
    return bool(sep and local and "." in domain and "@" not in domain)


def merge_signups(*sources):
    """Merge sign-up lists into one list of unique, normalised addresses.

    The order of first appearance is kept; invalid addresses are dropped.
    """
    seen = set()
    merged = []
    for source in sources:
        for email in source:
            email = email.strip().lower()
            if not is_valid(email) or email in seen:
                continue
            merged.append(email)
    return merged


def remove_unsubscribed(subscribers, unsubscribed):
    """Drop every address that asked to unsubscribe (case-insensitive)."""
    blocked = {email.strip().lower() for email in unsubscribed}
    return [email for email in subscribers if email.strip().lower() not in blocked]
