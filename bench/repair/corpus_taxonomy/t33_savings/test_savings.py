from savings import future_value, interest_earned, with_deposits, years_to_double


def test_yearly_compounding_for_one_year():
    assert future_value(1000, 0.05, 1, periods_per_year=1) == 1050.0


def test_monthly_compounding_for_two_years():
    assert future_value(1000, 0.06, 2) == 1127.16


def test_no_interest():
    assert future_value(500, 0.0, 10) == 500.0
    assert with_deposits(0, 100, 0.0, 2) == 2400.0


def test_deposits_earn_interest_too():
    assert with_deposits(1000, 100, 0.12, 1) == 2395.08


def test_rule_of_72_roughly_holds():
    assert years_to_double(0.07) == 9.9


def test_interest_earned():
    assert interest_earned(2000, 0.03, 1, periods_per_year=1) == 60.0
