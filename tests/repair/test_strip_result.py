"""A separator stripped from a text a call returns or assigns (TSSB-3M's Add Method Call on a
call's result, :func:`codur.mutation.library.op_strip_result`)."""

from __future__ import annotations

from pathlib import Path

from codur import RunStatus
from codur.mutation import generate_mutants

from .conftest import mutation_run, write_repo

ROWS = '''\
"""Rows of a delimited text file."""


def render_row(cells, delimiter):
    """One row: the cells as text joined by ``delimiter``; a missing cell (None) is empty,
    and missing cells at the end of the row are not written."""
    texts = [str(cell) if cell is not None else "" for cell in cells]
    return delimiter.join(texts)
'''

TESTS = '''\
from rows import render_row


def test_cells_are_joined():
    assert render_row([1, "b", 2.5], ";") == "1;b;2.5"


def test_a_missing_cell_inside_the_row_is_empty():
    assert render_row(["a", None, "c"], ",") == "a,,c"
    assert render_row([None, "b"], ",") == ",b"


def test_missing_cells_at_the_end_are_not_written():
    assert render_row(["a", "b", None, None], ";") == "a;b"
'''


def _strips(tmp_path: Path, code: str) -> list[str]:
    (tmp_path / "m.py").write_text(code)
    scores = {("m.py", n): 1.0 for n in range(1, code.count("\n") + 2)}
    mutants, _ = generate_mutants(tmp_path, scores, limit=100_000, max_pairs=0)
    return [m.description.split("`")[1] for m in mutants if m.operator == "add_method_call"
            and m.description.startswith("added `.")]


def test_the_join_receiver_is_stripped_first_then_other_separators_then_whitespace(tmp_path: Path):
    code = ("def f(words, sep, line, pad):\n    parts = line.split(pad)\n"
            "    return sep.join(words + parts)\n")
    assert _strips(tmp_path, code) == [".rstrip(sep)", ".strip(sep)", ".lstrip(sep)", ".rstrip(pad)",
                                       ".strip(pad)", ".lstrip(pad)", ".rstrip()", ".lstrip()"]


def test_only_a_returned_or_assigned_text_and_only_local_separators(tmp_path: Path):
    code = ("SEP = '-'\n\n\ndef f(words, sep):\n    print(sep.join(words))\n    if sep.join(words):\n"
            "        n = len(words)\n        key = SEP.join(words)\n        return n\n")
    assert _strips(tmp_path, code) == [".rstrip(sep)", ".strip(sep)", ".lstrip(sep)", ".rstrip()", ".lstrip()"]
    assert _strips(tmp_path, "def f(xs):\n    return sorted(xs)\n") == []  # not text
    typed = "def name(x) -> str:\n    return x\n\n\ndef g(x, sep):\n    y = name(x)\n    return y.split(sep)\n"
    assert _strips(tmp_path, typed) == [".rstrip(sep)", ".strip(sep)", ".lstrip(sep)", ".rstrip()",
                                        ".lstrip()"]  # a module function annotated `-> str`


def test_the_mutation_search_strips_the_trailing_delimiters_of_a_row(tmp_path: Path):
    repo = write_repo(tmp_path / "rows", {"rows.py": ROWS, "test_rows.py": TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert "return delimiter.join(texts).rstrip(delimiter)\n" in (repo / "rows.py").read_text()
    assert (repo / "test_rows.py").read_text() == TESTS
