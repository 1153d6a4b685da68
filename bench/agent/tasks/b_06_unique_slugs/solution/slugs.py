"""Slug helpers for the blog engine's URLs."""

import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(title: str) -> str:
    """'Hello, Wörld!' -> 'hello-world'."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    return _NON_WORD.sub("-", ascii_title.lower()).strip("-")


def unique_slug(title: str, taken: set) -> str:
    """Slug for `title` that is not in `taken`.

    Collisions get a numeric suffix: 'hello', 'hello-2', 'hello-3', ...
    """
    base = slugify(title) or "untitled"
    slug = base
    n = 2
    while slug in taken:
        slug = f"{base}-{n}"
        n += 1
    return slug


def post_url(year: int, title: str, taken: set = frozenset()) -> str:
    """Public path of a post, e.g. '/2024/hello-world/'."""
    return f"/{year}/{unique_slug(title, taken)}/"
