import pytest

from messages import first_name, status_message, truncate_sms


def test_first_name():
    assert first_name("Ada Lovelace") == "Ada"
    assert first_name("  ") == "there"


def test_shipped_message():
    order = {"id": 1042, "name": "Grace Hopper", "status": "shipped", "carrier": "DHL"}
    assert status_message(order) == "Hi Grace, order #1042 has shipped with DHL."


def test_delayed_message():
    order = {"id": 77, "name": "Alan Turing", "status": "delayed"}
    assert status_message(order) == "Hi Alan, order #77 is delayed. We'll update you soon."


def test_delivered_message():
    order = {"id": 5, "name": "", "status": "delivered"}
    assert status_message(order) == "Hi there, order #5 was delivered. Enjoy!"


def test_unknown_status():
    with pytest.raises(ValueError):
        status_message({"id": 1, "status": "lost"})


def test_truncate_sms():
    assert truncate_sms("short") == "short"
    long_text = "x" * 200
    assert len(truncate_sms(long_text)) == 160
    assert truncate_sms(long_text).endswith("…")
