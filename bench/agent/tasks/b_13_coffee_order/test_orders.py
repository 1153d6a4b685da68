import json

import pytest
from orders import Order


def make_order():
    order = Order("Noor", takeaway=True)
    order.add("flat white", "medium", 320)
    order.add("espresso", "small", 220, qty=2)
    return order


def test_total():
    assert make_order().total_cents() == 360 + 440


def test_unknown_size():
    with pytest.raises(ValueError):
        Order("Noor").add("latte", "huge", 350)


def test_to_dict():
    assert make_order().to_dict() == {
        "customer": "Noor",
        "takeaway": True,
        "items": [
            {"drink": "flat white", "size": "medium", "qty": 1, "unit_cents": 360, "total_cents": 360},
            {"drink": "espresso", "size": "small", "qty": 2, "unit_cents": 220, "total_cents": 440},
        ],
        "total_cents": 800,
    }


def test_to_dict_empty_order():
    assert Order("Sam").to_dict() == {"customer": "Sam", "takeaway": False, "items": [], "total_cents": 0}


def test_to_dict_is_json_serialisable():
    text = json.dumps(make_order().to_dict(), sort_keys=True)
    assert json.loads(text)["items"][1]["qty"] == 2
