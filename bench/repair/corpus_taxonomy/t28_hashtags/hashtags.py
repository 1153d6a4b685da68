"""Trending hashtags in a batch of social media posts."""

import re
from collections import Counter

TAG = re.compile(r"(?<![\w#])#(\w+)")


def normalise(tag):
    return tag.strip("#_")


def hashtags(post):
    """The tags of one post, each once, in order of appearance."""
    seen = []
    for match in TAG.finditer(post):
        tag = normalise(match.group(1))
        if tag and tag not in seen:
            seen.append(tag)
    return seen


def trending(posts, n=3):
    """The ``n`` tags used in the most posts; ties in alphabetical order."""
    counts = Counter(tag for post in posts for tag in hashtags(post))
    return sorted(counts, key=lambda tag: (-counts[tag], tag))[:n]


def posts_with(posts, tag):
    return [post for post in posts if normalise(tag) in hashtags(post)]
