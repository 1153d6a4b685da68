FREE_SHIPPING_THRESHOLD = 50


def free_shipping(order_total, is_member, country):
    """Members always ship free at home; others above the threshold."""
    if country != "NL":
        return False
    if is_member:
        return False
    return order_total >= FREE_SHIPPING_THRESHOLD


def shipping_cost(order_total, is_member, country):
    if free_shipping(order_total, is_member, country):
        return 0.0
    return 4.95 if country == "NL" else 14.95
