def bisect_left(a, x):
    """First index at which x could be inserted keeping a sorted."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid
        else:
            hi = mid
    return lo


def insert_sorted(a, x):
    a.insert(bisect_left(a, x), x)
    return a
