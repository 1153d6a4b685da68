"""The storage layer's error and the URL form its messages use (no password)."""

from __future__ import annotations

import re


class StorageError(RuntimeError):
    """The database cannot be used (the extra is missing, the server refuses or is unreachable);
    the message is one line naming the database (its password hidden)."""


def redact(url: str) -> str:
    """``url`` with its password replaced by ``***``, for messages: ``postgresql://u:***@h/db``."""
    return re.sub(r"^(\w+://[^:/@]*:)[^@]*@", r"\1***@", url)
