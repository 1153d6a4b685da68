"""Order lines typed at the counter: '3 x Oat milk @ 2.15', optionally with a '-10%' discount."""

import re

LINE = re.compile(r"^\s*(\d+)\s*x\s*(.+?)\s*@\s*(\d+(?:\.\d+)?)\s*(?:-(\d+)%)?\s*$")


def parse_line(text):
    match = LINE.match(text)
    if not match:
        raise ValueError(f"cannot read order line {text!r}")
    quantity, item, price, discount = match.groups()
    return {"item": item, "quantity": int(quantity), "price": price,
            "discount": int(discount or 0)}


def line_total(order):
    gross = order["quantity"] * order["price"]
    return round(gross * (100 - order["discount"]) / 100, 2)


def receipt(lines):
    orders = [parse_line(text) for text in lines]
    rows = [f"{o['quantity']:>3} {o['item']:<20} {line_total(o):>8.2f}" for o in orders]
    total = sum(line_total(o) for o in orders)
    return "\n".join([*rows, f"{'TOTAL':>24} {total:>8.2f}"])
