import pytest
from tax import effective_rate, income_tax, marginal_rate


def test_below_allowance_is_tax_free():
    assert income_tax(9_000) == 0


def test_second_bracket_only_taxes_the_excess():
    assert income_tax(30_000) == 3_600.0


def test_third_bracket():
    # 28_000 * 0.20 + 10_000 * 0.40
    assert income_tax(50_000) == 9_600.0


def test_top_bracket():
    # 5_600 + 24_000 + 20_000 * 0.45
    assert income_tax(120_000) == 38_600.0


def test_marginal_and_effective_rate():
    assert marginal_rate(50_000) == 0.40
    assert effective_rate(50_000) == 0.192


def test_negative_income_rejected():
    with pytest.raises(ValueError):
        income_tax(-1)
