def median(xs):
    if not xs:
        raise ValueError("median of empty data")
    s = sorted(xs)
    n = len(s)
    if n % 2:
        return s[n // 2]
    return (s[n // 2] + s[n // 2 + 1]) / 2


def spread(xs):
    return max(xs) - min(xs)
