from primes import primes_up_to


def test_small():
    assert primes_up_to(10) == [2, 3, 5, 7]


def test_square_of_prime():
    assert 25 not in primes_up_to(30)
    assert primes_up_to(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_tiny():
    assert primes_up_to(1) == []
