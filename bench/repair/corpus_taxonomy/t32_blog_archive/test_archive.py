from datetime import date

from archive import Post, archive_links, by_year, month_counts

POSTS = [
    Post("Hello", date(2023, 11, 2)),
    Post("Winter notes", date(2024, 1, 15)),
    Post("Half-written", date(2024, 2, 1), draft=True),
    Post("Spring", date(2024, 3, 20)),
]


def test_posts_grouped_by_year_newest_first():
    assert by_year(POSTS) == {2024: ["Spring", "Winter notes"], 2023: ["Hello"]}


def test_drafts_are_hidden():
    assert "Half-written" not in sum(by_year(POSTS).values(), [])


def test_month_counts():
    assert month_counts(POSTS, 2024) == [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]


def test_archive_links():
    assert archive_links(POSTS) == ["/2024/ (2)", "/2023/ (1)"]
