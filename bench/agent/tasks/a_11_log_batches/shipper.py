"""Group log records into batches before shipping them to the collector.

The collector accepts at most ``max_count`` records and ``max_bytes`` bytes
(UTF-8, newline separators not counted) per request. A single record that
is larger than ``max_bytes`` is sent on its own rather than dropped.
"""


def record_size(record):
    return len(record.encode("utf-8"))


def make_batches(records, max_count=100, max_bytes=64_000):
    """Split ``records`` into batches that respect both limits, keeping order."""
    batches = []
    current = []
    size = 0
    for record in records:
        n = record_size(record)
        if len(current) >= max_count or size + n > max_bytes:
            batches.append(current)
            current = []
        current.append(record)
        size += n
    return batches


def encode_batch(batch):
    """Request body for one batch: newline-delimited records."""
    return "".join(record + "\n" for record in batch).encode("utf-8")
