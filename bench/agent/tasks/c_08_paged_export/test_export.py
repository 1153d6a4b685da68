from export import FakeApi, count_matching, export_all


def test_api_pages():
    api = FakeApi(list(range(5)), 2)
    assert api.page(0) == {"items": [0, 1], "next": 2}
    assert api.page(4) == {"items": [4], "next": None}


def test_export_all_pages():
    api = FakeApi(list(range(7)), 3)
    assert export_all(api) == list(range(7))
    assert api.calls == 3


def test_export_from_cursor():
    assert export_all(FakeApi(list("abcdef"), 4), start=4) == ["e", "f"]


def test_count_matching():
    assert count_matching(FakeApi(list(range(10)), 4), lambda n: n % 2 == 0) == 5
