"""Module-level data a suspicious function reads is mutated too, and regex quantifiers are widened
(:mod:`codur.mutation.data`): a table of patterns runs at import time, so only the function reading
it is scored; the fix is in the table."""

from __future__ import annotations

import ast
from pathlib import Path

from codur import RunStatus
from codur.mutation import generate_mutants
from codur.mutation.data import read_data

from .conftest import mutation_run, write_repo

DURATIONS = r'''"""Parse durations written as "2d", "1h30m", "5m" or "45s"."""
import re

UNIT_PATTERNS = {
    "d": r"(?P<d>\d+)d",
    "h": r"(?P<h>\d{1,2})h",
    "m": r"(?P<m>\d{2})m",
    "s": r"(?P<s>\d{1,2})s",
}
SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    """Seconds in ``text``; ValueError when it is not a duration."""
    text = text.strip()
    pattern = "".join(f"(?:{UNIT_PATTERNS[unit]})?" for unit in "dhms")
    match = re.fullmatch(pattern, text)
    if not text or match is None:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(value) * SECONDS[unit] for unit, value in match.groupdict().items() if value)
'''

TESTS = '''import pytest

from durations import parse_duration


def test_hours_and_minutes():
    assert parse_duration("1h30m") == 5400


def test_days_and_seconds():
    assert parse_duration("2d") == 172800
    assert parse_duration(" 45s ") == 45


def test_single_digit_minutes():
    assert parse_duration("5m") == 300
    assert parse_duration("1h5m") == 3900


def test_rejects_what_is_not_a_duration():
    for text in ("", "abc", "5x"):
        with pytest.raises(ValueError):
            parse_duration(text)
'''


def _function_lines(text: str) -> set[int]:
    func = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef))
    return set(range(func.lineno, func.end_lineno + 1))


def _reading(text: str, name: str) -> int:
    """The line of ``text`` that reads ``name`` (inside the function)."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if name in line and line.startswith("    "))


def test_a_table_gets_the_score_of_the_line_that_reads_it():
    tree = ast.parse(DURATIONS + "\nUNUSED = {'x': 1}\n")
    scores = {("durations.py", line): 0.3 for line in _function_lines(DURATIONS)}
    scores[("durations.py", _reading(DURATIONS, "UNIT_PATTERNS["))] = 0.6
    scores[("durations.py", _reading(DURATIONS, "SECONDS["))] = 0.9
    data = read_data("durations.py", tree, scores)
    patterns, seconds, unused = [n for n in tree.body if isinstance(n, ast.Assign)]
    assert data == {**{("durations.py", ln): 0.6 for ln in range(patterns.lineno, patterns.end_lineno + 1)},
                    **{("durations.py", ln): 0.9 for ln in range(seconds.lineno, seconds.end_lineno + 1)}}
    assert read_data("durations.py", tree, {}) == {}  # no scored line: no data


def test_a_quantifier_in_a_table_is_mutated_when_only_the_function_is_scored(tmp_path: Path):
    (tmp_path / "durations.py").write_text(DURATIONS)
    scores = {("durations.py", line): 1.0 for line in _function_lines(DURATIONS)}
    mutants, texts = generate_mutants(tmp_path, scores, limit=10_000)
    fixed = DURATIONS.replace(r"(?P<m>\d{2})m", r"(?P<m>\d{1,2})m")
    quantifiers = {m.apply(texts["durations.py"]): m for m in mutants if m.operator == "change_regex_quantifier"}
    assert fixed in quantifiers
    assert quantifiers[fixed].score == 1.0 and "`{2}` to `{1,2}`" in quantifiers[fixed].description
    assert len(quantifiers) == 5  # \d+ -> \d*; {1,2} -> {1,} twice; {2} -> {1,2} and {2,}


def test_the_mutation_search_fixes_a_pattern_in_a_module_level_table(tmp_path: Path):
    repo = write_repo(tmp_path / "durations", {"durations.py": DURATIONS, "test_durations.py": TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert r'"m": r"(?P<m>\d{1,2})m",' in (repo / "durations.py").read_text()
    assert (repo / "test_durations.py").read_text() == TESTS
