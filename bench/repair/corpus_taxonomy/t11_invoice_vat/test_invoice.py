from invoice import Line, totals, vat_breakdown

LINES = [Line("book", 2, 12.50, "reduced"), Line("desk lamp", 1, 39.99)]


def test_net_of_a_line():
    assert Line("pen", 3, 1.10).net == 3.3


def test_vat_is_rounded_to_cents():
    assert Line("pen", 3, 1.10).tax == 0.69


def test_zero_rate():
    assert Line("export", 1, 100.0, "zero").tax == 0.0


def test_invoice_totals():
    assert totals(LINES) == (64.99, 10.65, 75.64)


def test_vat_per_rate():
    assert vat_breakdown(LINES) == {"reduced": 2.25, "standard": 8.4}
