"""Helpers for the repair tests: tiny repositories written into tmp_path."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest


def write_repo(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (what a repair must leave alone), codur's own folder (.codur: run
    folders, checkpoints; git-ignored) left out."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".codur" not in p.relative_to(root).parts}


#: A date parser: two formats, then a fallback parser (RFC 2822 dates) that raises on an unknown
#: format where the tests want None. Returning None before the fallback passes the tests and
#: leaves the fallback unreachable; the real fix checks the fallback's result.
UPLOAD_DATES = '''import email.utils
from datetime import datetime

FORMATS = ("%Y-%m-%d", "%d.%m.%Y")


def upload_date(text):
    """The date of an upload, or None when no known format reads it."""
    for fmt in FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    parsed = email.utils.parsedate_to_datetime(text)
    return parsed.date()
'''


OFF_BY_ONE = {
    "calc.py": '''
        def total(xs):
            s = 0
            for i in range(len(xs) - 1):
                s += xs[i]
            return s


        def clamp(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x
        ''',
    "tests/test_calc.py": '''
        from calc import clamp, total


        def test_total():
            assert total([1, 2, 3]) == 6


        def test_total_empty():
            assert total([]) == 0


        def test_clamp():
            assert clamp(5, 0, 3) == 3
            assert clamp(-1, 0, 3) == 0
        ''',
    "tests/conftest.py": '''
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        ''',
}


@pytest.fixture
def off_by_one_repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo", OFF_BY_ONE)


#: The task of the main job with the mutation fixer only (``codur repair``'s).
REPAIR_TASK = "make the failing tests pass"


def mutation_run(repo: Path, *, events: list | None = None, on_event=None, cancel=None, **settings):
    """The main job (:func:`codur.run`, as ``codur run``) with the mutation fixer only and no
    critic, as ``codur repair`` runs it; ``settings`` are codur settings (``repair_workers``,
    ``max_mutants``, ``test_command``, ...); every event is appended to ``events``, then given
    to ``on_event``."""
    from codur import RunRequest, run
    from codur.config import load_config

    config = load_config(repo, fixers=["mutation"], critic=False, **settings)

    def listen(event: dict) -> None:
        if events is not None:
            events.append(event)
        if on_event is not None:
            on_event(event)

    return run(RunRequest(task=REPAIR_TASK, repo=repo, cancel_event=cancel), config=config, on_event=listen)


@dataclass(frozen=True)
class Rewrite:
    """A hand-written candidate: ``old`` replaced with ``new`` in ``file``; ``probe``: its
    failing tests run with a report first (near-miss detection); ``feedback``: a model reads
    its failures (a sample), else it is judged as a mutant is."""

    file: str
    old: str
    new: str
    probe: bool = False
    feedback: bool = True

    @property
    def label(self) -> str:
        return f"{self.file}: {self.old} -> {self.new}"

    def apply(self, text: str) -> str:
        return text.replace(self.old, self.new)
