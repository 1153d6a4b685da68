import pytest
from phones import digits_of, normalize, same_number


def test_digits_of():
    assert digits_of("(555) 010-4477") == "5550104477"


def test_normalize_local_number():
    assert normalize("(555) 010-4477") == "+15550104477"


def test_normalize_with_country_code():
    assert normalize("+1 555 010 4477") == "+15550104477"


def test_rejects_short_number():
    with pytest.raises(ValueError):
        normalize("010-4477")


def test_same_number():
    assert same_number("555.010.4477", "+1 (555) 010-4477")
    assert not same_number("555.010.4477", "555.010.4478")
