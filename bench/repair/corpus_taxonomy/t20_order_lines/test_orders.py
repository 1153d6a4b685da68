import pytest
from orders import line_total, parse_line, receipt


def test_parse_a_line():
    assert parse_line("3 x Oat milk @ 2.15") == {"item": "Oat milk", "quantity": 3, "price": 2.15, "discount": 0}


def test_parse_a_discount():
    assert parse_line("2x Scone @3 -10%")["discount"] == 10


def test_line_total_with_discount():
    assert line_total(parse_line("4 x Bagel @ 1.50 -25%")) == 4.5


def test_unreadable_line():
    with pytest.raises(ValueError):
        parse_line("some bagels please")


def test_receipt_total():
    text = receipt(["3 x Oat milk @ 2.15", "1 x Scone @ 3"])
    assert text.splitlines()[-1].split() == ["TOTAL", "9.45"]
