from primes import primes_up_to


def test_small_and_square_bounds():
    assert primes_up_to(1) == []
    assert primes_up_to(2) == [2]
    assert primes_up_to(4) == [2, 3]
    assert primes_up_to(9) == [2, 3, 5, 7]
    assert primes_up_to(25) == [2, 3, 5, 7, 11, 13, 17, 19, 23]
    assert 49 not in primes_up_to(50) and 121 not in primes_up_to(121)
    assert len(primes_up_to(1000)) == 168
