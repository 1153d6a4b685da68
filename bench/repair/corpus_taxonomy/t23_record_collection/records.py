"""A vinyl record collection: albums by artist in release order, search, and value."""

from dataclasses import dataclass

GRADES = {"M": 1.0, "VG+": 0.75, "VG": 0.5, "G": 0.25}  # share of the mint price


@dataclass(frozen=True)
class Album:
    title: str
    artist: str
    year: int
    grade: str = "VG+"
    mint_price: float = 20.0


class Collection:
    def __init__(self, albums):
        self.albums = list(albums)

    def by_artist(self, artist):
        """The albums of ``artist``, in release order."""
        return sorted((a for a in self.albums if a.artist == artist), key=lambda a: a.title)

    def search(self, words):
        """Albums whose title or artist contains every one of ``words`` (any case)."""
        words = words.lower().split()
        return [a for a in self.albums if all(w in f"{a.title} {a.artist}".lower() for w in words)]

    def value(self):
        return round(sum(a.mint_price * GRADES[a.grade] for a in self.albums), 2)

    def decades(self):
        """{decade: number of albums}, e.g. {1970: 2}."""
        counts = {}
        for album in self.albums:
            decade = album.year // 10 * 10
            counts[decade] = counts.get(decade, 0) + 1
        return counts
