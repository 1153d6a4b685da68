def fib(n):
    """The n-th Fibonacci number, fib(0) == 0."""
    if n < 0:
        raise ValueError("n must be >= 0")
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return b


def fib_list(count):
    return [fib(i) for i in range(count)]
