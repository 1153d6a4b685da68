def flatten(nested):
    """All non-list elements of an arbitrarily nested list, in order."""
    result = []
    for item in nested:
        if isinstance(item, list):
            result.extend(item)
        else:
            result.append(item)
    return result
