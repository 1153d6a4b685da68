from histogram import bar, histogram


def test_bar():
    assert bar(3) == "###"


def test_scaled_bar():
    assert bar(10, scale=5) == "##"


def test_histogram():
    assert histogram({"a": 2, "bb": 1}) == "a  | ##\nbb | #"
