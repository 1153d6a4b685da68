"""Stock levels for the bike workshop's spare parts shelf."""

from dataclasses import dataclass


@dataclass
class Part:
    sku: str
    name: str
    category: str
    on_hand: int
    reorder_qty: int = 10


def low_stock(parts, threshold: int = 5) -> list:
    """SKUs of parts with fewer than `threshold` units on hand, sorted."""
    return sorted(p.sku for p in parts if p.on_hand < threshold)


def reorder_lines(parts, threshold: int = 5) -> list:
    """(sku, quantity to order) for every low-stock part."""
    by_sku = {p.sku: p for p in parts}
    return [(sku, by_sku[sku].reorder_qty) for sku in low_stock(parts, threshold)]


def total_units(parts) -> int:
    return sum(p.on_hand for p in parts)
