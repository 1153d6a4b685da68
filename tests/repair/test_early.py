"""An early return for a parameter that is None, returning what the function builds
(:mod:`codur.mutation.early`: PAR's and TBar's null pointer checker)."""

from __future__ import annotations

import ast
from pathlib import Path

from codur import RunStatus
from codur.mutation.early import null_returns
from codur.validate.source import Source, apply_edits

from .conftest import mutation_run, write_repo

SETTINGS = '''"""Settings read from an INI-like file of ``key = value`` lines over the defaults."""

DEFAULTS = {"theme": "light", "page_size": "20"}


def load_settings(path=None):
    """The defaults, updated by the ``key = value`` lines of the file at ``path`` when one is given."""
    settings = dict(DEFAULTS)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            key, sep, value = line.partition("=")
            if sep and not line.lstrip().startswith("#"):
                settings[key.strip()] = value.strip()
    return settings
'''

TESTS = r'''from settings import DEFAULTS, load_settings


def test_a_file_overrides_the_defaults(tmp_path):
    path = tmp_path / "app.ini"
    path.write_text("# mine\ntheme = dark\n")
    assert load_settings(path) == {"theme": "dark", "page_size": "20"}


def test_no_file_gives_the_defaults():
    assert load_settings() == DEFAULTS


def test_the_defaults_are_not_changed(tmp_path):
    path = tmp_path / "app.ini"
    path.write_text("page_size = 50\n")
    load_settings(path)
    assert DEFAULTS["page_size"] == "20"
'''


def _applied(code: str) -> list[str]:
    src = Source(code)
    func = next(n for n in ast.walk(src.tree) if isinstance(n, ast.FunctionDef))
    return [apply_edits(code, edits) for _, edits, _ in null_returns(func, src)]


def test_the_check_goes_after_the_returned_value_is_built():
    guarded = SETTINGS.replace("    settings = dict(DEFAULTS)\n",
                               "    settings = dict(DEFAULTS)\n    if path is None:\n        return settings\n")
    assert _applied(SETTINGS) == [guarded]


def test_no_check_without_one_returned_name_built_once():
    assert _applied("def f(x):\n    return x + 1\n") == []  # not a name
    assert _applied("def f(x):\n    y = 1\n    y = 2\n    return y\n") == []  # built twice
    assert _applied("def f(self):\n    y = self.a\n    return y\n") == []  # no parameter but self
    assert len(_applied("def f(a, b):\n    out = [a]\n    out.append(b)\n    return out\n")) == 2


def test_the_mutation_search_returns_the_defaults_when_no_file_is_given(tmp_path: Path):
    repo = write_repo(tmp_path / "settings", {"settings.py": SETTINGS, "test_settings.py": TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert "if path is None:\n        return settings\n" in (repo / "settings.py").read_text()
    assert (repo / "test_settings.py").read_text() == TESTS
