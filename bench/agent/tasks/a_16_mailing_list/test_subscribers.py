from subscribers import is_valid, merge_signups, remove_unsubscribed


def test_is_valid():
    assert is_valid("ann@example.com")
    assert not is_valid("ann.example.com")
    assert not is_valid("@example.com")
    assert not is_valid("ann@localhost")


def test_merge_keeps_first_appearance_order():
    assert merge_signups(["b@x.org", "a@x.org"], ["c@x.org", "a@x.org"]) == [
        "b@x.org",
        "a@x.org",
        "c@x.org",
    ]


def test_merge_drops_invalid():
    assert merge_signups(["nobody", "ok@x.org"]) == ["ok@x.org"]


def test_single_source_without_duplicates_is_unchanged():
    assert merge_signups(["a@x.org", "b@x.org"]) == ["a@x.org", "b@x.org"]


def test_merge_normalises_addresses():
    web = [" Ann@Example.com", "bob@example.com"]
    csv_import = ["ann@example.com ", "BOB@EXAMPLE.COM", "cy@example.com"]
    assert merge_signups(web, csv_import) == [
        "ann@example.com",
        "bob@example.com",
        "cy@example.com",
    ]


def test_remove_unsubscribed():
    subs = ["ann@example.com", "bob@example.com"]
    assert remove_unsubscribed(subs, [" BOB@example.com"]) == ["ann@example.com"]
