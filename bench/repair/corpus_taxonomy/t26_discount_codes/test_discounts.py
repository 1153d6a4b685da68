from datetime import date

from discounts import Code, best_code, discount

TODAY = date(2024, 5, 10)
SPRING = Code("SPRING10", percent=10, expires=date(2024, 5, 31))
WELCOME = Code("WELCOME5", amount=5)


def test_percentage_code():
    assert discount(SPRING, 80, TODAY) == 8.0


def test_code_without_expiry_date():
    assert discount(WELCOME, 30, TODAY) == 5.0


def test_expired_code_takes_nothing_off():
    assert discount(SPRING, 80, date(2024, 6, 1)) == 0.0


def test_minimum_spend():
    code = Code("BIG20", percent=20, minimum=100)
    assert discount(code, 99.99, TODAY) == 0.0
    assert discount(code, 100, TODAY) == 20.0


def test_discount_never_exceeds_the_subtotal():
    assert discount(Code("GIFT", amount=50), 20, TODAY) == 20.0


def test_best_code():
    assert best_code([SPRING, WELCOME], 80, TODAY) == SPRING
    assert best_code([SPRING, WELCOME], 30, TODAY) == WELCOME
