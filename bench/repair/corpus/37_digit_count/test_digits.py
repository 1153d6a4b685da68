from digits import count_digits, digit_sum


def test_single():
    assert count_digits(7) == 1
    assert count_digits(0) == 1


def test_powers_of_ten():
    assert count_digits(10) == 2
    assert count_digits(-1000) == 4


def test_digit_sum():
    assert digit_sum(-123) == 6
