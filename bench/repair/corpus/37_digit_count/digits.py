def count_digits(n):
    """Number of decimal digits of an integer."""
    n = abs(n)
    count = 1
    while n > 10:
        n //= 10
        count += 1
    return count


def digit_sum(n):
    return sum(int(d) for d in str(abs(n)))
