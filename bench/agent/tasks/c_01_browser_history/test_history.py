from history import History


def test_new_tab_shows_home():
    tab = History("home")
    assert tab.current.url == "home"
    assert tab.urls() == ["home"]


def test_back_returns_previous_page():
    tab = History("home")
    tab.visit("news")
    tab.visit("sports")
    assert tab.back() == "news"
    assert tab.back() == "home"


def test_back_stops_at_first_page():
    tab = History("home")
    tab.visit("a")
    assert tab.back(5) == "home"


def test_forward_after_back():
    tab = History("home")
    tab.visit("a")
    tab.visit("b")
    tab.back(2)
    assert tab.forward() == "a"
    assert tab.forward() == "b"
    assert tab.forward() == "b"


def test_visit_drops_forward_pages():
    tab = History("home")
    tab.visit("a")
    tab.visit("b")
    tab.back()
    tab.visit("c")
    assert tab.urls() == ["home", "a", "c"]
    assert tab.size == 3
