"""Function pairs: a deleted guard (or a top-ranked edit) with an edit of another statement of
the same function, lines apart (:func:`codur.mutation.pairs.function_pairs`)."""

from __future__ import annotations

from pathlib import Path

from codur import RunStatus
from codur.mutation import generate_mutants
from codur.mutation.mutants import Mutant
from codur.mutation.pairs import ANCHORS, FUNCTION_SHARE, function_pairs, second_order
from codur.validate.source import Edit

from .conftest import mutation_run, write_repo

FIELDS = '''\
"""Fields of one line of a delimited text."""


def fields(line, sep):
    """The fields of ``line`` between each ``sep``, up to a field starting with ``#`` (a
    comment): an empty field is kept (``"a,,b"`` has three) and the spaces around a field
    are dropped (``" a , b"`` is ``["a", "b"]``)."""
    out = []
    for field in line.split(sep):
        if not field:
            continue
        if field.startswith("#"):
            break
        text = field
        out.append(text)
    return out
'''

TESTS = '''\
from fields import fields


def test_fields_are_split():
    assert fields("a,b", ",") == ["a", "b"]


def test_a_comment_ends_the_fields():
    assert fields("a;# b;c", ";") == ["a"]


def test_an_empty_field_is_kept():
    assert fields("a,,b", ",") == ["a", "", "b"]


def test_spaces_around_a_field_are_dropped():
    assert fields(" a ,, b", ",") == ["a", "", "b"]
'''


def _single(line: int, start: int, prior: float, operator: str = "op", description: str = "") -> Mutant:
    return Mutant("m.py", line, operator, (Edit(start, start + 1, "y"),), description or f"@{line}",
                  1.0, prior, ("m.py", line))


def _in_function(_file: str, line: int) -> tuple[int, int] | None:
    return (1, 20) if line <= 20 else None


def test_a_deleted_guard_anchors_pairs_beyond_the_top_singles():
    top = [_single(2, 10 * i, 0.9) for i in range(ANCHORS)]  # one statement: never paired with itself
    guard = _single(5, 500, 0.5, "delete_statement", "deleted `if not x:` ...")
    far, outside = _single(12, 600, 0.4), _single(25, 700, 1.0)
    found = function_pairs([*top, guard, far, outside], _in_function)
    described = [m.description for m in found]
    assert "deleted `if not x:` ...; line 12: @12" in described  # the guard is an anchor though ranked last
    assert all("@25" not in d for d in described)  # another function
    assert all(abs(m.line - int(m.description.rsplit("line ", 1)[1].split(":")[0])) > 1 for m in found)
    assert len(found) == ANCHORS * 2 + 1  # each top single with the guard and `far`; the guard with `far`
    keys = [m.edits for m in found]
    assert len(keys) == len(set(keys))  # an anchor pair once, not twice
    assert found[0].description.startswith("@2; line 5")  # 0.9 x 0.5 before 0.9 x 0.4


def test_the_pair_budget_is_split_between_the_families():
    singles = [_single(line, 10 * line, 0.9) for line in range(1, 9)]
    keep = lambda found, n: list(found)[:n]  # noqa: E731
    chosen = second_order(singles, _in_function, keep, 8)  # 7 adjacent pairs exist, 21 function pairs
    far = [m for m in chosen if abs(m.edits[0].start - m.edits[1].start) > 10]
    assert len(chosen) == 8 and len(far) == int(8 * FUNCTION_SHARE) == 2
    assert chosen[-2:] == far  # adjacent pairs first
    assert len(second_order(singles, _in_function, keep, 12)) == 12  # 7 adjacent: the function pairs take 5
    alone = second_order(singles, lambda f, line: None, keep, 12)  # no function: adjacent pairs only
    assert len(alone) == 7 and all(m not in far for m in alone)
    assert len(second_order(singles, _in_function, keep, 40)) == 7 + 21  # every pair: none left unused


def test_pairs_keep_a_quarter_of_the_limit_when_the_singles_fill_it(tmp_path: Path):
    (tmp_path / "fields.py").write_text(FIELDS)
    scores = {("fields.py", n): 1.0 for n in range(8, 17)}
    singles, _ = generate_mutants(tmp_path, scores, limit=10_000, max_pairs=0)
    found, _ = generate_mutants(tmp_path, scores, limit=40, max_pairs=100)
    assert len(singles) > 40 and len(found) == 40
    assert [m for m in found if m.order == 1] == singles[:30] and sum(m.order == 2 for m in found) == 10
    roomy, _ = generate_mutants(tmp_path, scores, limit=len(singles) + 50, max_pairs=100)
    assert [m for m in roomy if m.order == 1] == singles and sum(m.order == 2 for m in roomy) == 50


def test_two_edits_lines_apart_are_among_the_function_pairs(tmp_path: Path):
    from codur.validate.localize import localize_faults

    repo = write_repo(tmp_path / "fields", {"fields.py": FIELDS, "test_fields.py": TESTS})
    found, texts = generate_mutants(repo, localize_faults(repo).scores)
    fixed = FIELDS.replace("            continue\n", "            pass\n").replace(
        "text = field\n", "text = field.strip()\n")
    (pair,) = [m for m in found if m.apply(texts["fields.py"]) == fixed]
    assert pair.order == 2 and pair.operator == "delete_statement+add_method_call"
    assert found.index(pair) >= len(found) - 25  # a function pair: the last quarter of the default pair budget


def test_the_mutation_search_fixes_two_edits_in_one_function(tmp_path: Path):
    repo = write_repo(tmp_path / "fields", {"fields.py": FIELDS, "test_fields.py": TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    text = (repo / "fields.py").read_text()
    assert "continue" not in text and "text = field.strip()\n" in text  # the guard's jump or the guard deleted
    assert (repo / "test_fields.py").read_text() == TESTS
