from hashtags import hashtags, normalise, posts_with, trending

POSTS = ["Trying #Rust and #go today", "#GO is fast, #rust is safe", "#zig #Go #go"]


def test_normalise_ignores_case():
    assert normalise("#Python") == "python"


def test_a_tag_counts_once_per_post():
    assert hashtags("Loving #Python and #python!") == ["python"]


def test_hash_inside_a_word_is_not_a_tag():
    assert hashtags("mail me a#b #ok") == ["ok"]


def test_trending():
    assert trending(POSTS) == ["go", "rust", "zig"]


def test_posts_with_a_tag():
    assert posts_with(POSTS, "#Zig") == ["#zig #Go #go"]
