"""A keyword argument of a standard-library call read from the callee's signature, set to the
opposite of its default (:mod:`codur.mutation.signatures`)."""

from __future__ import annotations

import sys
from pathlib import Path

from codur import RunStatus
from codur.mutation import generate_mutants

from .conftest import mutation_run, write_repo

RECORDS = '''\
"""Records written as JSON text, one per line."""
import json


def to_line(record):
    """One line of JSON for ``record``; the same record always gives the same line."""
    return json.dumps(record)


def from_line(line):
    return json.loads(line)
'''

TESTS = '''\
from records import from_line, to_line


def test_a_record_survives_the_round_trip():
    assert from_line(to_line({"id": 7, "tags": ["a"]})) == {"id": 7, "tags": ["a"]}


def test_the_same_record_gives_the_same_line():
    assert to_line({"b": 1, "a": 2}) == to_line({"a": 2, "b": 1})
'''


def _added(tmp_path: Path, code: str) -> list[str]:
    (tmp_path / "m.py").write_text(code)
    scores = {("m.py", n): 1.0 for n in range(1, code.count("\n") + 2)}
    mutants, texts = generate_mutants(tmp_path, scores, limit=100_000, max_pairs=0)
    return [m.description.split("`")[1] for m in mutants if "its default is the opposite" in m.description]


def test_the_defaults_of_the_callee_are_flipped_and_passed_keywords_kept(tmp_path: Path):
    code = ("import functools\nfrom os import makedirs as mk\n\n\ndef wrap(w, f, path):\n"
            "    mk(path, mode=0o700)\n    return functools.update_wrapper(w, f)\n")
    assert sorted(_added(tmp_path, code)) == ["assigned=()", "exist_ok=True", "updated=()"]  # not mode: passed
    assert _added(tmp_path, "import json\n\n\ndef f(x):\n    return json.dumps(x, sort_keys=True)\n") == [
        "skipkeys=True", "ensure_ascii=False", "check_circular=False", "allow_nan=False"]  # one line: by prior


def test_only_modules_already_imported_are_read(tmp_path: Path):
    code = "import antigravity\nimport shelve\n\n\ndef f(x):\n    antigravity.geohash(1, 2, b'x')\n    return len(x)\n"
    assert "antigravity" not in sys.modules
    assert _added(tmp_path, code) == [] and "antigravity" not in sys.modules  # never imported to read it
    assert _added(tmp_path, "def f(x):\n    return sorted(x)\n") == []  # not an imported callee


def test_the_mutation_search_sorts_the_keys_of_a_stable_line(tmp_path: Path):
    repo = write_repo(tmp_path / "records", {"records.py": RECORDS, "test_records.py": TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert "return json.dumps(record, sort_keys=True)" in (repo / "records.py").read_text()
    assert (repo / "test_records.py").read_text() == TESTS
