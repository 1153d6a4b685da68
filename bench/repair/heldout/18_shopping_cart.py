from cart import Cart


def test_totals_after_adds_and_removes():
    c = Cart()
    assert c.total() == 0
    c.add("pen", 2, 3)
    c.add("pen", 2, 2)
    c.add("ink", 7)
    assert c.total() == 17
    c.remove("pen")
    assert c.total() == 7
    c.remove("nothing")
    assert c.total() == 7
