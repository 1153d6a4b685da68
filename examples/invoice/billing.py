"""Invoice arithmetic for a small shop: line totals, bulk discounts and VAT."""

from dataclasses import dataclass

BULK_THRESHOLD = 10  # items of one product from which the bulk discount applies
BULK_DISCOUNT_PERCENT = 10
VAT_PERCENT = 20


@dataclass
class Line:
    product: str
    quantity: int
    unit_price: float


def bulk_discount_percent(quantity: int) -> int:
    """Percent off a line: 10% when at least BULK_THRESHOLD items are bought."""
    if quantity > BULK_THRESHOLD:
        return BULK_DISCOUNT_PERCENT
    return 0


def line_total(line: Line) -> float:
    gross = line.quantity * line.unit_price
    return round(gross * (1 - bulk_discount_percent(line.quantity) / 100), 2)


def invoice_total(lines: list[Line]) -> float:
    """Total to pay, VAT included."""
    net = sum(line_total(line) for line in lines)
    return round(net * (1 + VAT_PERCENT / 100), 2)
