"""Archive pages of a blog: published posts grouped by year, newest first."""

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Post:
    title: str
    published: date
    draft: bool = False


def visible(posts):
    return [post for post in posts if not post.draft]


def by_year(posts):
    """{year: [titles, newest first]}, newest year first; drafts are left out."""
    archive = {}
    for post in sorted(visible(posts), key=lambda p: p.published, reverse=True):
        archive.setdefault(post.published, []).append(post.title)
    return archive


def month_counts(posts, year):
    """Posts per month of ``year``, January first."""
    counts = [0] * 12
    for post in visible(posts):
        if post.published.year == year:
            counts[post.published.month - 1] += 1
    return counts


def archive_links(posts):
    return [f"/{year}/ ({len(titles)})" for year, titles in by_year(posts).items()]
