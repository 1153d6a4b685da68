from slugs import post_url, slugify, unique_slug


def test_slugify():
    assert slugify("Hello, Wörld!") == "hello-world"
    assert slugify("  Ten   tips -- for Python ") == "ten-tips-for-python"


def test_unique_slug_free():
    assert unique_slug("Hello World", set()) == "hello-world"


def test_unique_slug_first_collision():
    assert unique_slug("Hello World", {"hello-world"}) == "hello-world-2"


def test_unique_slug_many_collisions():
    taken = {"release-notes", "release-notes-2", "release-notes-3"}
    assert unique_slug("Release notes", taken) == "release-notes-4"


def test_empty_title():
    assert unique_slug("!!!", {"untitled"}) == "untitled-2"


def test_post_url():
    assert post_url(2024, "Hello World") == "/2024/hello-world/"
