"""Revision history for wiki pages.

Revisions are stored oldest first; every save appends a new one.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Revision:
    number: int
    author: str
    text: str


@dataclass
class Page:
    title: str
    revisions: list = field(default_factory=list)

    def save(self, author: str, text: str) -> Revision:
        """Append a new revision unless the text did not change."""
        if self.revisions and self.revisions[-1].text == text:
            return self.revisions[-1]
        rev = Revision(len(self.revisions) + 1, author, text)
        self.revisions.append(rev)
        return rev

    def current_text(self) -> str:
        return self.revisions[-1].text if self.revisions else ""

    def created_by(self) -> str:
        """Author of the very first revision."""
        return self.revisions[0].author

    def last_edited_by(self) -> str:
        """Author of the most recent revision."""
        return self.revisions[0].author

    def contributors(self) -> list:
        """Distinct authors in order of their first contribution."""
        seen = []
        for rev in self.revisions:
            if rev.author not in seen:
                seen.append(rev.author)
        return seen
