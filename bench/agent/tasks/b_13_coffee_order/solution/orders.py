"""Orders taken at the coffee cart's tablet."""

from dataclasses import dataclass, field

SIZE_SURCHARGE_CENTS = {"small": 0, "medium": 40, "large": 80}


@dataclass
class LineItem:
    drink: str
    size: str
    base_cents: int
    qty: int = 1

    def unit_cents(self) -> int:
        return self.base_cents + SIZE_SURCHARGE_CENTS[self.size]

    def total_cents(self) -> int:
        return self.unit_cents() * self.qty

    def to_dict(self) -> dict:
        return {
            "drink": self.drink,
            "size": self.size,
            "qty": self.qty,
            "unit_cents": self.unit_cents(),
            "total_cents": self.total_cents(),
        }


@dataclass
class Order:
    customer: str
    items: list = field(default_factory=list)
    takeaway: bool = False

    def add(self, drink: str, size: str, base_cents: int, qty: int = 1) -> LineItem:
        if size not in SIZE_SURCHARGE_CENTS:
            raise ValueError(f"unknown size {size!r}")
        item = LineItem(drink, size, base_cents, qty)
        self.items.append(item)
        return item

    def total_cents(self) -> int:
        return sum(item.total_cents() for item in self.items)

    def to_dict(self) -> dict:
        """JSON-ready summary of the order for the kitchen display."""
        return {
            "customer": self.customer,
            "takeaway": self.takeaway,
            "items": [item.to_dict() for item in self.items],
            "total_cents": self.total_cents(),
        }
