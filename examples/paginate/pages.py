"""Split a list of search results into numbered pages (page numbers start at 1)."""

import math


def page_count(total_items: int, page_size: int) -> int:
    if page_size <= 0:
        raise ValueError("page_size must be positive")
    return max(1, math.ceil(total_items / page_size))


def get_page(items: list, number: int, page_size: int) -> list:
    """Items on page `number` (1-based)."""
    if number < 1 or number > page_count(len(items), page_size):
        raise IndexError(f"page {number} out of range")
    start = number * page_size
    return items[start:start + page_size]
