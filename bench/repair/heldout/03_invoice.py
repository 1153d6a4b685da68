from invoice import Line, invoice_total, subtotal


def test_totals_at_several_rates():
    lines = [Line("a", 10.0, 3), Line("b", 2.5, 4)]
    assert subtotal(lines) == 40.0
    assert invoice_total(lines, 0.0) == 40.0
    assert invoice_total(lines, 0.25) == 50.0
    assert invoice_total(lines, 0.07) == 42.8
    assert invoice_total([], 0.2) == 0
