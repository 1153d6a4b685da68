from arith import gcd, lcm


def test_gcd():
    assert gcd(12, 18) == 6
    assert gcd(7, 0) == 7


def test_lcm_is_int():
    result = lcm(4, 6)
    assert result == 12 and isinstance(result, int)


def test_lcm_zero():
    assert lcm(0, 5) == 0
