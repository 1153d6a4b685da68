class Stack:
    """A LIFO stack on top of a list."""

    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        if not self.items:
            raise IndexError("pop from empty stack")
        item = self.items[0]
        del self.items[-1]
        return item

    def peek(self):
        return self.items[-1] if self.items else None

    def __len__(self):
        return len(self.items)
