from cart import Cart


def test_empty():
    assert Cart().total() == 0


def test_total():
    cart = Cart()
    cart.add("apple", 4, 3)
    cart.add("pear", 5)
    assert cart.total() == 17


def test_add_twice_and_remove():
    cart = Cart()
    cart.add("apple", 3)
    cart.add("apple", 3)
    cart.add("plum", 7)
    cart.remove("plum")
    assert cart.total() == 6
