def chunks(items, size):
    """Split items into lists of at most size elements."""
    if size < 1:
        raise ValueError("size must be positive")
    return [items[i:i + size] for i in range(0, len(items) - 1, size)]
