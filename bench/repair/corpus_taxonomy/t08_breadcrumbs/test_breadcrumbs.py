from breadcrumbs import Page, children, trail, trail_links

PAGES = {
    "home": Page("home", "Home"),
    "guide": Page("guide", "Guide", "home"),
    "install": Page("install", "Install", "guide"),
    "faq": Page("faq", "FAQ", "home"),
}


def test_top_page_is_its_own_trail():
    assert trail(PAGES, "home") == "Home"


def test_trail_starts_at_the_root():
    assert trail(PAGES, "install") == "Home > Guide > Install"


def test_custom_separator():
    assert trail(PAGES, "guide", sep=" / ") == "Home / Guide"


def test_links_to_ancestors():
    assert trail_links(PAGES, "install") == "[Home](/home) / [Guide](/guide) / Install"


def test_children_are_sorted():
    assert children(PAGES, "home") == ["FAQ", "Guide"]
