"""The office printer: jobs are printed in the order they were submitted."""

from collections import deque
from dataclasses import dataclass


@dataclass
class Job:
    owner: str
    document: str
    pages: int


class PrintQueue:
    def __init__(self, pages_per_minute=20):
        self.pages_per_minute = pages_per_minute
        self._jobs = deque()

    def submit(self, owner, document, pages):
        if pages <= 0:
            raise ValueError("a job has at least one page")
        self._jobs.append(Job(owner, document, pages))

    def cancel(self, owner):
        """Drop the waiting jobs of ``owner``; returns how many were dropped."""
        before = len(self._jobs)
        self._jobs = deque(job for job in self._jobs if job.owner != owner)
        return before - len(self._jobs)

    def print_next(self):
        if not self._jobs:
            return None
        return self._jobs.pop()

    def wait_minutes(self):
        """Minutes until everything waiting has been printed."""
        return sum(job.pages for job in self._jobs) / self.pages_per_minute

    def __len__(self):
        return len(self._jobs)
