"""The footprint check: a change the tests would accept is refused when it edits a test,
empties a body, guts a function or deletes too much (codur/validate/footprint.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codur.validate.footprint import MAX_NET_DELETED, advice, asks_for_tests, refusal, refused_line

BENCH = Path(__file__).resolve().parents[2] / "bench"

PARSER = '''"""Read 'key=value' lines."""


def parse(text):
    """{'a': '1'} from 'a=1'."""
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        out[key.strip()] = value.strip()
    return out


class Reader:
    """Reads a file of key=value lines."""

    def __init__(self, path):
        self.path = path

    def read(self):
        with open(self.path) as f:
            return parse(f.read())
'''


def with_body(name: str, body: str) -> str:
    """PARSER with ``parse``'s code (docstring kept) replaced by ``body`` (indented lines)."""
    start = PARSER.index("    out = {}")
    end = PARSER.index("    return out\n") + len("    return out\n")
    assert name == "parse"
    return PARSER[:start] + body + PARSER[end:]


def test_a_one_line_fix_passes():
    fixed = PARSER.replace('line.startswith("#")', 'line.lstrip().startswith("#")')
    assert refusal({"conf.py": PARSER}, {"conf.py": fixed}) is None


@pytest.mark.parametrize("body", ["    pass\n", "    ...\n", "    return None\n", "    return\n",
                                  "    raise NotImplementedError\n", "    raise NotImplementedError('later')\n",
                                  ""])
def test_a_function_emptied_is_refused(body: str):
    assert refusal({"conf.py": PARSER}, {"conf.py": with_body("parse", body)}) == "emptied parse()"


def test_a_method_and_a_class_emptied_are_refused():
    read = "        with open(self.path) as f:\n            return parse(f.read())\n"
    method = PARSER.replace(read, "        pass\n")
    assert refusal({"conf.py": PARSER}, {"conf.py": method}) == "emptied Reader.read()"
    cls = PARSER[:PARSER.index('    """Reads a file')] + '    """Reads a file of key=value lines."""\n'
    assert refusal({"conf.py": PARSER}, {"conf.py": cls}) == "emptied class Reader"


def test_a_stub_that_was_a_stub_is_no_change_to_refuse():
    stub = "def later():\n    raise NotImplementedError\n"
    assert refusal({"a.py": stub}, {"a.py": "def later():\n    pass\n"}) is None


def test_a_function_kept_to_less_than_half_is_refused_a_small_one_is_not():
    gutted = with_body("parse", "    return dict(l.split('=') for l in text.splitlines())\n")
    assert refusal({"conf.py": PARSER}, {"conf.py": gutted}) == "gutted parse(): kept 1 of 7 statements"
    small = "def sign(x):\n    if x < 0:\n        raise ValueError(x)\n    return 1\n"
    assert refusal({"s.py": small}, {"s.py": "def sign(x):\n    return 1\n"}) is None  # 3 statements: too few
    removed = PARSER[:PARSER.index("def parse")] + PARSER[PARSER.index("class Reader"):]
    assert refusal({"conf.py": PARSER}, {"conf.py": removed}) == "removed parse()"


def test_more_than_the_bound_of_deleted_lines_is_refused_comments_do_not_count():
    lines = "".join(f"X{i} = {i}\n" for i in range(MAX_NET_DELETED + 1))
    assert refusal({"k.py": lines}, {"k.py": ""}) == f"deleted {MAX_NET_DELETED + 1} lines (k.py)"
    assert refusal({"k.py": lines}, {"k.py": "X0 = 0\n"}) is None  # exactly the bound
    assert refusal({"k.py": lines}, {"k.py": None}) == f"deleted {MAX_NET_DELETED + 1} lines (k.py)"
    comments = "".join(f"# note {i}\n\n" for i in range(40)) + "X = 1\n"
    assert refusal({"k.py": comments}, {"k.py": "X = 1\n"}) is None
    # net over the change: what one file loses another may gain
    assert refusal({"k.py": lines, "m.py": ""}, {"k.py": "", "m.py": lines}) is None


@pytest.mark.parametrize("path", ["tests/test_conf.py", "test_conf.py", "conf_test.py", "conftest.py",
                                  "tests/helpers.py", "pkg/tests/data_maker.py"])
def test_a_test_file_edited_added_or_deleted_is_refused(path: str):
    test = "def test_parse():\n    assert parse('a=1') == {'a': '1'}\n"
    assert refusal({path: test}, {path: test.replace("'1'}", "'2'}")}) == f"edited {path}"
    assert refusal({}, {path: test}) == f"added {path}"
    assert refusal({path: test}, {path: None}) == f"deleted {path}"
    assert refusal({path: test}, {path: test + "\n"}, tests=True) is None
    assert refusal({}, {path: test}, new_tests=True) is None
    assert refusal({path: test}, {path: test + "# x\n"}, new_tests=True) == f"edited {path}"


def test_only_python_files_are_judged():
    assert refusal({"tests/data.json": "{}"}, {"tests/data.json": "[]"}) is None
    assert refusal({"notes.txt": "x\n" * 100}, {"notes.txt": ""}) is None


def test_a_file_that_does_not_parse_is_judged_by_its_lines():
    assert refusal({"conf.py": PARSER}, {"conf.py": PARSER.replace("def parse(text):", "def parse(text)")}) is None


def test_the_summary_line():
    assert refused_line([]) == ""
    assert refused_line(["edited tests/test_x.py", "emptied parse()", "emptied parse()"]) == \
        "refused 3 candidates: 1 edited tests/test_x.py, 2 emptied parse()"


@pytest.mark.parametrize(("task", "asked"), [
    ("make the failing tests pass", False),
    ("fix the failing tests", False),
    ("Fix limiter.py so the tests in test_limiter.py pass.", False),
    ("The tests fail; find out why and fix it.", False),
    ("Fix the off-by-one in search.py; test_search.py shows it", False),
    ("fix the test in tests/test_x.py", True),
    ("add a test for parse", True),
    ("Write unit tests for parse().", True),
    ("update the tests to the new API", True),
    ("Add a function word_count to textkit/wrap.py and a test for it", True),
    ("fix conftest.py: the fixture leaks", True),
])
def test_which_tasks_ask_for_tests(task: str, asked: bool):
    assert asks_for_tests(task) is asked


def test_no_reference_fix_of_the_benches_is_refused():
    """The bounds against the benches' own fixes: every bench/agent solution and bench/repair
    fix passes, but b_11's, which edits conftest.py (a wrong fixture) for the task "The tests
    fail; find out why and fix it.": refused unless the task names the file."""
    refused = {}
    for task in sorted((BENCH / "agent" / "tasks").iterdir()):
        solution = task / "solution"
        new = {f.relative_to(solution).as_posix(): f.read_text() for f in solution.rglob("*.py")}
        old = {rel: (task / rel).read_text() if (task / rel).exists() else None for rel in new}
        if why := refusal(old, new):
            refused[task.name] = why
    assert refused == {"b_11_gym_membership": "edited conftest.py"}
    for bug in sorted((BENCH / "repair" / "corpus").iterdir()):
        fix = json.loads((bug / "meta.json").read_text())["fix"]
        old = (bug / fix["file"]).read_text()
        assert refusal({fix["file"]: old}, {fix["file"]: old.replace(fix["old"], fix["new"], 1)}) is None, bug.name


def test_what_the_model_is_told():
    assert advice("edited tests/test_x.py").startswith("put tests/test_x.py back as it was")
    assert advice("deleted conftest.py").startswith("put conftest.py back as it was")
    assert advice("added tests/test_new.py").startswith("delete tests/test_new.py")
    assert advice("deleted 34 lines (a.py)").startswith("keep the code and change only what is wrong")
    assert advice("emptied parse()").startswith("keep the code")
