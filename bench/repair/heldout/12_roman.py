import pytest
from roman import to_roman


def test_numerals_across_the_range():
    expected = {1: "I", 3: "III", 4: "IV", 9: "IX", 14: "XIV", 40: "XL", 90: "XC", 400: "CD", 1994: "MCMXCIV",
                2024: "MMXXIV", 3999: "MMMCMXCIX"}
    for n, text in expected.items():
        assert to_roman(n) == text
    for bad in (0, 4000, -5):
        with pytest.raises(ValueError):
            to_roman(bad)
