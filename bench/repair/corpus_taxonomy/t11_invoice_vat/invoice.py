"""Invoice lines with VAT, rounded to cents per line as the tax office asks."""

from dataclasses import dataclass

VAT_RATES = {"standard": 0.21, "reduced": 0.09, "zero": 0.0}


@dataclass(frozen=True)
class Line:
    description: str
    quantity: int
    unit_price: float
    vat: str = "standard"

    @property
    def net(self):
        return round(self.quantity * self.unit_price, 2)

    @property
    def tax(self):
        return round(self.net * VAT_RATES[self.vat])


def totals(lines):
    """(net, vat, gross) of an invoice."""
    net = round(sum(line.net for line in lines), 2)
    vat = round(sum(line.tax for line in lines), 2)
    return net, vat, round(net + vat, 2)


def vat_breakdown(lines):
    """VAT per rate name, for the rates that occur on the invoice."""
    out = {}
    for line in lines:
        out[line.vat] = round(out.get(line.vat, 0.0) + line.tax, 2)
    return out
