"""bench/real's own code: the manifest is whole, test splicing, venv cloning, outcome parsing.

Nothing here downloads: the bugs themselves are verified by ``bench/real/run.py --check``.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[1] / "bench" / "real"
sys.path.insert(0, str(REAL))

import bugs  # noqa: E402
import sdists  # noqa: E402
import splice  # noqa: E402


def test_manifest_names_defined_projects_versions_and_tests():
    data = tomllib.loads(bugs.MANIFEST.read_text())
    loaded = bugs.load()
    ids = [b.id for b in loaded]
    assert len(ids) == len(set(ids)) >= 20
    assert len({b.project for b in loaded}) >= 4
    for bug in loaded:
        assert len(bug.old_sha256) == len(bug.new_sha256) == 64, bug.id
        assert bug.fix and bug.take and bug.failing, bug.id
        assert any(r.startswith("pytest==") for r in bug.requirements), bug.id
        assert all("==" in r for r in bug.requirements), bug.id
        assert all(t.split("::")[0].startswith(tuple(bug.tests)) for t in bug.failing + bug.flaky), bug.id
        assert not set(bug.flaky) & set(bug.failing), bug.id
    # a version pinned but used by no bug is a leftover
    used = {f"{b.package}=={v}" for b in loaded for v in (b.old, b.new)}
    assert set(data["sha256"]) == used
    assert sum(1 for b in loaded if len(b.fix) > 1) >= 2


OLD = '''import os
import unittest


class T:
    def test_a(self):
        assert 1


def user():
    return Helper()


def test_b():
    assert 0
'''

NEW = '''import os
import pickle
import unittest
import unittest.mock
from os import sep


class T:
    def test_a(self):
        assert 2

    @staticmethod
    def test_new():
        assert pickle and unittest.mock


class Helper:
    pass


def user():
    return Helper()


def test_b():
    assert 1
'''


def test_take_replaces_appends_and_orders_a_new_class_before_its_user():
    out = splice.take(OLD, NEW, ["T.test_a", "T.test_new", "test_b", "Helper"])
    ns: dict = {}
    exec(compile(out, "spliced", "exec"), ns)  # the result is valid Python that runs
    assert "import pickle" in out and "import unittest.mock" in out  # used by the taken code
    assert "from os import sep" not in out  # not used by it
    assert "assert 2" in out and "assert 1" not in out.split("def test_a")[1].split("def")[0]
    assert out.index("    @staticmethod\n    def test_new") < out.index("class Helper")
    assert out.index("class Helper") < out.index("def user")
    assert "assert 0" not in out
    assert ns["user"]().__class__.__name__ == "Helper"


def test_take_of_a_missing_name_raises():
    with pytest.raises(splice.SpliceError):
        splice.take(OLD, NEW, ["nowhere"])
    with pytest.raises(splice.SpliceError):
        splice.take("x = 1\n", NEW, ["T.test_a"])  # the class is not in the older file


def test_clone_venv_points_scripts_at_the_copy(tmp_path):
    template = tmp_path / "tpl"
    (template / "bin").mkdir(parents=True)
    (template / "bin" / "pytest").write_text(f"#!{template}/bin/python\nimport sys\n")
    (template / "bin" / "python").symlink_to(sys.executable)
    (template / ".ready").write_text("")
    dest = sdists.clone_venv(template, tmp_path / "repo" / ".venv")
    assert (dest / "bin" / "pytest").read_text().startswith(f"#!{dest}/bin/python\n")
    assert (dest / "bin" / "python").is_symlink() and not (dest / ".ready").exists()


def test_run_suite_reads_each_outcome_and_judge_needs_every_failing_test(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / ".venv" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, repo / ".venv" / "bin" / "python")
    (repo / "tests" / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('v', ['a b', 'c'])\ndef test_p(v):\n    assert v != 'a b'\n\n"
        "def test_ok():\n    pass\n")
    bug = bugs.Bug(id="x", project="p", package="p", old="1", new="2", what="", fix=[], take=[],
                   failing=["tests/test_x.py::test_p[a b]"], source=".", tests=["tests"], requirements=[],
                   old_sha256="", new_sha256="")
    run = bugs.run_suite(bug, repo, timeout=60)
    assert run.outcomes == {"tests/test_x.py::test_p[a b]": "FAILED", "tests/test_x.py::test_p[c]": "PASSED",
                            "tests/test_x.py::test_ok": "PASSED"}
    assert bugs.judge(bug, run)[0] is False
    test = repo / "tests" / "test_x.py"
    test.write_text(test.read_text().replace("assert v != 'a b'", "assert v"))
    assert bugs.judge(bug, bugs.run_suite(bug, repo, timeout=60)) == (True, "3 tests pass")
