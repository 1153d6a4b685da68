"""Export every record of a paged API into one list."""


class FakeApi:
    """An API that returns `per_page` records at a time, with a cursor to the next page."""

    def __init__(self, records: list, per_page: int):
        self.records, self.per_page = records, per_page
        self.calls = 0

    def page(self, cursor: int) -> dict:
        self.calls += 1
        chunk = self.records[cursor:cursor + self.per_page]
        more = cursor + self.per_page < len(self.records)
        return {"items": chunk, "next": cursor + self.per_page if more else None}


def export_all(api, start: int = 0) -> list:
    """Every record from cursor `start` on, following the `next` cursors until there is none."""
    records = []
    cursor = start
    while cursor is not None:
        page = api.page(cursor)
        records.extend(page["items"])
    return records


def count_matching(api, predicate) -> int:
    return sum(1 for record in export_all(api) if predicate(record))
