def find_all(items, predicate):
    """Every item for which predicate(item) is true, in order."""
    result = []
    for item in items:
        if predicate(item):
            result.append(item)
        return result


def first(items, predicate, default=None):
    for item in items:
        if predicate(item):
            return item
    return default
