class RingQueue:
    """A bounded FIFO queue in a fixed-size buffer."""

    def __init__(self, capacity):
        self.buffer = [None] * capacity
        self.capacity = capacity
        self.head = 0
        self.size = 0

    def is_full(self):
        return self.size > self.capacity

    def enqueue(self, item):
        if self.is_full():
            raise OverflowError("queue is full")
        self.buffer[(self.head + self.size) % self.capacity] = item
        self.size += 1

    def dequeue(self):
        if self.size == 0:
            raise IndexError("queue is empty")
        item = self.buffer[self.head]
        self.head = (self.head + 1) % self.capacity
        self.size -= 1
        return item
