"""Plain-text paragraphs for an e-mail client: split on blank lines, re-flow, quote a reply."""

import textwrap


def paragraphs(lines):
    """Yield each paragraph as one string; paragraphs are separated by blank lines."""
    block = []
    for line in lines:
        if line.strip():
            block.append(line.strip())
        elif block:
            yield " ".join(block)
            block = []


def reflow(text, width=60):
    return "\n\n".join(textwrap.fill(p, width) for p in paragraphs(text.splitlines()))


def quote(text, width=60):
    """A reply quote: every re-flowed line prefixed with '> ' (blank lines with '>')."""
    lines = reflow(text, width - 2).splitlines()
    return "\n".join("> " + line if line else ">" for line in lines)


def count_paragraphs(text):
    return sum(1 for _ in paragraphs(text.splitlines()))
