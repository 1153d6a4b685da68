import math


def page_count(total, per_page):
    return math.ceil(total / per_page) if total else 1


def paginate(items, page, per_page=10):
    """Items of the 1-based page."""
    if page < 1 or page > page_count(len(items), per_page):
        raise ValueError(f"no page {page}")
    start = (page - 1) * per_page
    end = start + per_page - 1
    return items[start:end]
