from billing import Line, bulk_discount_percent, invoice_total, line_total


def test_no_discount_below_threshold():
    assert bulk_discount_percent(9) == 0


def test_discount_starts_at_threshold():
    assert bulk_discount_percent(10) == 10


def test_line_total_with_bulk_discount():
    assert line_total(Line("pens", 10, 1.50)) == 13.50


def test_invoice_total_includes_vat():
    lines = [Line("paper", 2, 4.00), Line("pens", 12, 1.00)]
    assert invoice_total(lines) == 22.56
