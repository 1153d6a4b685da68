from wrap import wrap


def test_fits():
    assert wrap("a b c", 10) == ["a b c"]


def test_exact_width():
    assert wrap("abc def ghi", 7) == ["abc def", "ghi"]


def test_one_over():
    assert wrap("abcd efg", 7) == ["abcd", "efg"]


def test_empty():
    assert wrap("", 5) == []
