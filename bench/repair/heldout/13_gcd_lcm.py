from arith import gcd, lcm


def test_integers_out_for_integers_in():
    assert lcm(4, 6) == 12 and isinstance(lcm(4, 6), int)
    assert lcm(-3, 5) == 15
    assert lcm(0, 7) == 0
    assert lcm(10 ** 18, 10 ** 18 + 1) == 10 ** 18 * (10 ** 18 + 1)
    assert gcd(-12, 18) == 6
