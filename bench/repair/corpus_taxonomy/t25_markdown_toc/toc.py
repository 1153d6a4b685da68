"""Table of contents of a Markdown document from its ATX headings ('## Title')."""

import re


def headings(text):
    """(level, title) of every heading outside fenced code blocks."""
    found, in_code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code or not line.startswith("#"):
            continue
        level = len(line) - len(line.lstrip("#"))
        if level > 6 or line[level:level + 1] not in (" ", ""):
            continue
        found.append((level, line[level + 2:].strip()))
    return found


def anchor(title):
    """The id GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", title.lower()).strip().replace(" ", "-")


def table_of_contents(text, max_level=3):
    found = headings(text)
    top = min((level for level, _ in found), default=1)
    lines = [f"{'  ' * (level - top)}- [{title}](#{anchor(title)})"
             for level, title in found if level <= max_level]
    return "\n".join(lines)
