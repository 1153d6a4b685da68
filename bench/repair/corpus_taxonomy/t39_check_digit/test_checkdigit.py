from checkdigit import check_digit, is_valid, weighted_sum, with_check_digit


def test_weights_count_from_the_right():
    assert weighted_sum(1234) == 30


def test_weights_start_over_after_seven():
    assert weighted_sum(11111111) == 32


def test_zero():
    assert weighted_sum(0) == 0


def test_check_digits():
    assert check_digit(1234) == "3"
    assert check_digit(123456) == "0"
    assert check_digit(6) == "X"


def test_validation():
    assert with_check_digit(1234) == "12343"
    assert is_valid("1234-3")
    assert not is_valid("12344")
    assert not is_valid("abc")
