"""One report format and one test-id rule for every test run (:mod:`codur.testing.report`):
the tool path (observe, verify, ``run_pytest``) reads the repair plugin's report, its ids
pytest's node ids, runnable as a selection; a command that is not pytest is one test."""

from __future__ import annotations

import sys
from pathlib import Path

from codur.testing.command import resolve
from codur.testing.report import WHOLE_COMMAND, TestRecord, run_of, summary_of
from codur.tools.context import ToolContext
from codur.tools.journal import ChangeJournal
from codur.tools.testing import run_tests
from codur.validate.localize import localize_faults

BASE = '''class Base:
    def test_inherited(self):
        assert 1 == 2
'''

TESTS = '''import pytest

from tests.base import Base


class TestX(Base):
    class TestInner:
        def test_nested(self):
            assert False

    @pytest.mark.parametrize("v", ["a b", 1])
    def test_p(self, v):
        pass


@pytest.fixture
def boom():
    raise RuntimeError("setup boom")


def test_setup(boom):
    pass


@pytest.mark.xfail
def test_xfail():
    assert 0


def test_ok():
    pass
'''


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    (tmp_path / "tests" / "base.py").write_text(BASE)
    (tmp_path / "tests" / "test_a.py").write_text(TESTS)
    (tmp_path / "tests" / "test_skipped.py").write_text(
        "import pytest\npytest.skip('not here', allow_module_level=True)\n")
    return tmp_path


def _ctx(repo: Path, command: list[str] | None = None) -> ToolContext:
    return ToolContext(root=repo, journal=ChangeJournal(repo),
                       test_command=resolve(repo, command) if command else None)


def test_ids_are_pytest_node_ids_and_each_reruns_its_test(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    ctx = _ctx(repo)
    report = run_tests(ctx)
    t = "tests/test_a.py::"
    assert report.passed == [f"{t}TestX::test_p[a b]", f"{t}TestX::test_p[1]", f"{t}test_ok"]
    # the inherited test is the class's (JUnit named it tests/base.py::test_inherited, which
    # selects nothing), the nested class's is Outer::Inner (JUnit: TestX.TestInner)
    assert report.failed == [f"{t}TestX::test_inherited", f"{t}TestX::TestInner::test_nested", f"{t}test_setup"]
    assert report.skipped == 2 and report.summary == "3 passed, 3 failed, 2 skipped"  # the xfail, the module
    assert "RuntimeError: setup boom" in report.tracebacks[f"{t}test_setup"]
    assert "assert 1 == 2" in report.tracebacks[f"{t}TestX::test_inherited"]
    for tid in report.failed:
        again = run_tests(ctx, [tid])
        assert again.failed == [tid] and again.tracebacks[tid] == report.tracebacks[tid]


def test_a_module_that_does_not_import_fails_under_its_path(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "tests" / "test_broken.py").write_text("import nosuchmodule\n")
    report = run_tests(_ctx(repo))
    assert report.failed == ["tests/test_broken.py"]  # JUnit: tests/test_broken.py::tests.test_broken
    assert "No module named 'nosuchmodule'" in report.tracebacks["tests/test_broken.py"]
    assert run_tests(_ctx(repo), report.failed).failed == ["tests/test_broken.py"]


def test_a_command_that_is_not_pytest_is_one_test_by_its_exit_code(tmp_path: Path) -> None:
    (tmp_path / "test_u.py").write_text(
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 2)\n")
    ctx = _ctx(tmp_path, [sys.executable, "-m", "unittest", "discover"])
    report = run_tests(ctx)
    assert report.failed == [WHOLE_COMMAND] and not report.passed and report.exit_code == 1
    assert "AssertionError: 1 != 2" in report.tracebacks[WHOLE_COMMAND]
    assert localize_faults(tmp_path, ctx.tests()).failing == [WHOLE_COMMAND]  # the same id in repair
    (tmp_path / "test_u.py").write_text(
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n")
    assert run_tests(ctx).passed == [WHOLE_COMMAND]


def test_a_wrapper_that_passes_options_reports_each_test_else_its_exit_code(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    through = ["sh", "-c", 'p="$0"; shift; exec "$p" -m pytest "$@"', sys.executable, "--"]  # tox -e py --
    assert run_tests(_ctx(repo, through)).summary == "3 passed, 3 failed, 2 skipped"
    dropped = ["sh", "-c", 'p="$0"; shift; exec env -i "$p" -m pytest "$@"', sys.executable, "--"]
    report = run_tests(_ctx(repo, dropped))  # the environment (and the plugin) dropped: no report
    assert report.failed == [WHOLE_COMMAND] and report.exit_code == 1


def test_a_run_says_its_status_summary_and_signature_from_its_tests():
    failing = TestRecord("a.py::test_x", "failed", traceback="a.py:3: in test_x\nE   assert 1 == 2\nmore")
    tests = {"a.py::test_x": failing, "a.py::test_y": TestRecord("a.py::test_y", "passed"),
             "a.py::test_z": TestRecord("a.py::test_z", "skipped")}
    run = run_of(tests, 1, duration_s=0.5)
    assert run.summary == summary_of(tests) == "1 passed, 1 failed, 1 skipped" and run.skipped == 1
    assert (run.passed, run.failed, run.status, run.ok) == (["a.py::test_y"], ["a.py::test_x"], "failed", False)
    assert run.signature() == "a.py::test_x|E   assert 1 == 2"
    assert "failed: ['a.py::test_x']" in run.render() and "FAILED a.py::test_x" in run.render()
    assert run_of(None, 0).summary == "no tests ran" and run_of(None, 0).status == "passed"
    assert run_of(None, 5).render().endswith("no tests were collected")
    assert run_of(None, None).status == "aborted" and run_of(None, None, timed_out=True).status == "timeout"
    assert run_of(None, 2).signature() == "exit=2"
