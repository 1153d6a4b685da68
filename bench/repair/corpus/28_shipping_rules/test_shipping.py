from shipping import free_shipping, shipping_cost


def test_member_at_home():
    assert free_shipping(10, True, "NL")


def test_threshold():
    assert free_shipping(50, False, "NL")
    assert not free_shipping(49.99, False, "NL")


def test_abroad():
    assert not free_shipping(500, True, "DE")
    assert shipping_cost(500, True, "DE") == 14.95
