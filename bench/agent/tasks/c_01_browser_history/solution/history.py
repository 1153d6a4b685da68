"""Back/forward navigation for a tab, kept as a doubly linked list of visited pages."""


class Page:
    def __init__(self, url: str):
        self.url = url
        self.prev = None
        self.next = None


class History:
    """The pages of one tab. `visit` drops the forward pages, like a browser does."""

    def __init__(self, home: str):
        self.current = Page(home)
        self.size = 1

    def visit(self, url: str) -> None:
        page = Page(url)
        dropped = self.current.next
        while dropped is not None:
            self.size -= 1
            dropped = dropped.next
        page.prev = self.current
        self.current.next = page
        self.current = page
        self.size += 1

    def back(self, steps: int = 1) -> str:
        while steps > 0 and self.current.prev is not None:
            self.current = self.current.prev
            steps -= 1
        return self.current.url

    def forward(self, steps: int = 1) -> str:
        while steps > 0 and self.current.next is not None:
            self.current = self.current.next
            steps -= 1
        return self.current.url

    def urls(self) -> list:
        """Every page of the tab, oldest first."""
        page = self.current
        while page.prev is not None:
            page = page.prev
        out = []
        while page is not None:
            out.append(page.url)
            page = page.next
        return out
