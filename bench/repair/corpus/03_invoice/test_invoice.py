from invoice import Line, invoice_total, subtotal

LINES = [Line("widget", 10.0, 3), Line("gadget", 2.5, 4)]


def test_subtotal():
    assert subtotal(LINES) == 40.0


def test_total_with_tax():
    assert invoice_total(LINES, 0.2) == 48.0


def test_no_tax():
    assert invoice_total(LINES, 0) == 40.0
