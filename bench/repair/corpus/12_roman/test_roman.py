import pytest
from roman import to_roman


def test_small():
    assert to_roman(3) == "III"


def test_subtractive():
    assert to_roman(4) == "IV"
    assert to_roman(1994) == "MCMXCIV"


def test_range():
    with pytest.raises(ValueError):
        to_roman(0)
