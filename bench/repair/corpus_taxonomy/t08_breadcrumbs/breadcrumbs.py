"""Breadcrumb trails for the pages of a documentation site."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    slug: str
    title: str
    parent: str | None = None


def ancestors(pages, slug):
    """The pages above ``slug``, root first; ``pages`` maps slug -> Page."""
    chain = []
    parent = pages[slug].parent
    while parent is not None:
        chain.insert(0, pages[parent])
        parent = pages[parent].parent
    return chain


def trail(pages, slug, sep=" > "):
    """'Home > Guide > Install' for the page ``install``."""
    text = ""
    for page in [*ancestors(pages, slug), pages[slug]]:
        text = page.title if not text else page.title + sep + text
    return text


def trail_links(pages, slug):
    """Markdown links to the ancestors, then the page's own title as plain text."""
    links = [f"[{page.title}](/{page.slug})" for page in ancestors(pages, slug)]
    return " / ".join([*links, pages[slug].title])


def children(pages, slug):
    return sorted(page.title for page in pages.values() if page.parent == slug)
