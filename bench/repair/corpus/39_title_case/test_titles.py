from titles import capitalize, title_case


def test_capitalize():
    assert capitalize("pYTHON") == "Python"


def test_title():
    assert title_case("the lord of the rings") == "The Lord of the Rings"


def test_single_letter():
    assert title_case("a") == "A"
