import pytest
from printqueue import PrintQueue


def test_jobs_print_in_submission_order():
    queue = PrintQueue()
    queue.submit("ann", "report.pdf", 3)
    queue.submit("bob", "slides.pdf", 10)
    queue.submit("ann", "notes.txt", 1)
    assert [queue.print_next().document for _ in range(3)] == ["report.pdf", "slides.pdf", "notes.txt"]


def test_empty_queue_prints_nothing():
    assert PrintQueue().print_next() is None


def test_cancel_drops_only_that_owners_jobs():
    queue = PrintQueue()
    queue.submit("ann", "a", 1)
    queue.submit("bob", "b", 1)
    queue.submit("ann", "c", 1)
    assert queue.cancel("ann") == 2
    assert len(queue) == 1


def test_wait_counts_all_pages():
    queue = PrintQueue(pages_per_minute=10)
    queue.submit("ann", "a", 5)
    queue.submit("bob", "b", 10)
    assert queue.wait_minutes() == 1.5


def test_job_without_pages_is_refused():
    with pytest.raises(ValueError):
        PrintQueue().submit("ann", "empty", 0)
