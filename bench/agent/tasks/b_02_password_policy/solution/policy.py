"""Password policy checks for the staff portal.

Policy (security review 2024): passwords need at least 12 characters,
at least one digit and at least one letter, and may not contain the
user's login name. Symbols are recommended but not required.
"""

import string

COMMON_PASSWORDS = {"password", "123456789012", "qwertyuiop12", "letmein12345"}


def problems(password, username="", min_length=12, require_symbol=False):
    """Return a list of human readable problems with `password`.

    An empty list means the password is acceptable. `min_length`
    defaults to the policy minimum described in the module docstring.
    """
    found = []
    if len(password) < min_length:
        found.append(f"must be at least {min_length} characters")
    if not any(ch.isdigit() for ch in password):
        found.append("must contain a digit")
    if not any(ch.isalpha() for ch in password):
        found.append("must contain a letter")
    if require_symbol and not any(ch in string.punctuation for ch in password):
        found.append("must contain a symbol")
    if username and username.lower() in password.lower():
        found.append("must not contain the username")
    if password.lower() in COMMON_PASSWORDS:
        found.append("is too common")
    return found


def is_acceptable(password, username=""):
    """True when `password` satisfies the default policy."""
    return not problems(password, username)
