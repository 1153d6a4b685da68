from fizzbuzz import fizzbuzz


def test_lengths_and_every_rule():
    for n in (0, 1, 2, 15, 31):
        assert len(fizzbuzz(n)) == n
    out = fizzbuzz(30)
    assert out[2] == "Fizz" and out[4] == "Buzz" and out[14] == "FizzBuzz" and out[29] == "FizzBuzz"
    assert out[0] == "1" and out[6] == "7"
