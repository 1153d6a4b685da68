from revisions import Page


def make_page():
    page = Page("Onboarding")
    page.save("amir", "Welcome!")
    page.save("bea", "Welcome to the team!")
    page.save("amir", "Welcome to the team! Read the handbook.")
    page.save("chen", "Welcome aboard! Read the handbook.")
    return page


def test_current_text():
    assert make_page().current_text() == "Welcome aboard! Read the handbook."


def test_unchanged_save_is_ignored():
    page = make_page()
    page.save("dan", "Welcome aboard! Read the handbook.")
    assert len(page.revisions) == 4


def test_created_by():
    assert make_page().created_by() == "amir"


def test_last_edited_by():
    assert make_page().last_edited_by() == "chen"


def test_contributors_in_order():
    assert make_page().contributors() == ["amir", "bea", "chen"]
