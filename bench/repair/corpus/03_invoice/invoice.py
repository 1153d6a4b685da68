from dataclasses import dataclass


@dataclass
class Line:
    description: str
    unit_price: float
    quantity: int


def subtotal(lines):
    return sum(line.unit_price * line.quantity for line in lines)


def invoice_total(lines, tax_rate):
    """Total with tax; tax_rate is a fraction such as 0.2 for 20 %."""
    base = subtotal(lines)
    tax = base * tax_rate / 100
    return round(base + tax, 2)
