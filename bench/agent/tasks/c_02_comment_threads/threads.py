"""Statistics over nested comment threads (a comment and its replies, recursively)."""

from dataclasses import dataclass, field


@dataclass
class Comment:
    author: str
    text: str
    replies: list = field(default_factory=list)


def count(comment: Comment) -> int:
    """The comment and every reply below it."""
    return 1 + sum(count(reply) for reply in comment.replies)


def depth(comment: Comment) -> int:
    """Levels in the thread: 1 for a comment without replies."""
    return 1 + max(depth(reply) for reply in comment.replies)


def authors(comment: Comment) -> set:
    found = {comment.author}
    for reply in comment.replies:
        found |= authors(reply)
    return found


def too_deep(comment: Comment, limit: int) -> bool:
    """True when the thread nests more than `limit` levels (the page cannot indent further)."""
    return depth(comment) > limit
