"""The project's own suite: what its configured pytest command collects, and nothing else is run.

The repo here keeps a slow, networked test file out of its suite (``testpaths``); that file
writes a marker the moment it is imported, so a single collection or run of it shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.testing.command import resolve
from codur.testing.suite import Suite, collect, suite_of
from codur.validate.selection import bare_test_names, related_test_files

STOCK = '''"""Stock levels of a small shop."""


def restock_needed(level, threshold):
    """True when the level has dropped to the threshold or below."""
    return level < threshold


def units_after_sale(level, sold):
    """What is left after a sale; a sale never takes the level below zero."""
    return max(level - sold, 0)
'''

UNIT_TESTS = '''from stock import restock_needed, units_after_sale


def test_restock_at_threshold():
    assert restock_needed(5, 5)


def test_restock_below():
    assert restock_needed(2, 5)


def test_no_restock_above():
    assert not restock_needed(9, 5)


def test_sale():
    assert units_after_sale(5, 3) == 2
'''

NETWORK_TESTS = '''from pathlib import Path

from stock import restock_needed

Path({marker!r}).write_text("imported")


def test_supplier_feed():
    assert restock_needed(0, 1)
'''


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, Path]:
    """(repo, marker): ``tests/network`` is outside ``testpaths``; importing it writes ``marker``."""
    repo, marker = tmp_path / "shop", tmp_path / "network-tests-ran.txt"
    files = {"stock.py": STOCK, "pytest.ini": "[pytest]\ntestpaths = tests/unit\n",
             "tests/unit/test_stock.py": UNIT_TESTS,
             "tests/network/test_feed.py": NETWORK_TESTS.format(marker=str(marker))}
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return repo, marker


def test_the_suite_is_what_the_configuration_collects(shop):
    repo, marker = shop
    suite = collect(repo, resolve(repo))
    assert suite is not None
    assert suite.files() == ["tests/unit/test_stock.py"] and len(suite.ids) == 4
    assert "tests/unit/test_stock.py::test_sale" in suite and "tests/unit/test_stock.py" in suite
    assert "tests/network/test_feed.py" not in suite and not marker.exists()
    assert suite.split(["tests/network/test_feed.py::test_supplier_feed", "tests/unit/test_stock.py::test_sale"]) == (
        ["tests/unit/test_stock.py::test_sale"], ["tests/network/test_feed.py::test_supplier_feed"])
    assert suite.named("test_restock_below") == ["tests/unit/test_stock.py::test_restock_below"]
    # related files come from the suite: the network file imports stock too, but is not in it
    assert related_test_files(repo, ["tests/unit/test_stock.py::test_restock_at_threshold"], {"stock.py"},
                              suite) == []


def test_markers_addopts_and_collect_ignore_hold(shop):
    repo, marker = shop
    (repo / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: a slow test\naddopts = -m 'not slow'\n")
    (repo / "conftest.py").write_text("collect_ignore = ['tests/network']\n")
    (repo / "tests/unit/test_slow.py").write_text(
        "import pytest\n\n\n@pytest.mark.slow\ndef test_big():\n    pass\n\n\ndef test_small():\n    pass\n")
    suite = suite_of(repo, resolve(repo))
    assert suite is not None and "tests/unit/test_slow.py::test_small" in suite
    assert "tests/unit/test_slow.py::test_big" not in suite and not marker.exists()
    assert suite.counts["tests/unit/test_slow.py"] == 1
    # a module that fails to import is in the suite (its import error may be the bug)
    (repo / "tests/unit/test_broken.py").write_text("from stock import nothing_here\n")
    again = suite_of(repo, resolve(repo))  # the test files changed: collected anew
    assert again is not suite and "tests/unit/test_broken.py" in again


def test_suite_membership_and_bare_names():
    suite = Suite(("t/test_a.py::test_x[1]", "t/test_a.py::test_x[2]", "t/test_a.py::T::test_y"))
    assert "t/test_a.py::test_x" in suite and "t/test_a.py::T" in suite and "t/test_a.py::test_z" not in suite
    assert suite.counts["t/test_a.py"] == 3 and suite.named("test_x") == ["t/test_a.py::test_x[1]",
                                                                           "t/test_a.py::test_x[2]"]
    assert bare_test_names("make test_restock_at_threshold pass (see tests/unit/test_stock.py)") == [
        "test_restock_at_threshold"]
    assert bare_test_names("make tests/unit/test_stock.py::test_sale pass") == []


def test_a_config_excluded_test_file_never_runs_while_the_bug_is_fixed(shop, monkeypatch):
    repo, marker = shop
    monkeypatch.setenv("CODUR_SANDBOX", "off")  # the marker's write would be refused in the sandbox
    result = run(RunRequest(task="make the failing tests pass", repo=repo),
                 config=CodurConfig(fixers=["mutation"], critic=False, repair_workers=2, mutation_time_box_s=60))
    assert result.status is RunStatus.SUCCESS, (result.reason, result.summary)
    assert "return level <= threshold" in (repo / "stock.py").read_text()
    assert not marker.exists()
    # the marker does work: running that file writes it
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/network"], cwd=repo,
                   capture_output=True, check=False)
    assert marker.exists()


def test_a_named_test_outside_the_suite_is_said_and_not_run(shop, monkeypatch):
    repo, marker = shop
    monkeypatch.setenv("CODUR_SANDBOX", "off")
    task = "make tests/network/test_feed.py::test_supplier_feed pass"
    result = run(RunRequest(task=task, repo=repo),
                 config=CodurConfig(fixers=["mutation"], critic=False, repair_workers=1, mutation_time_box_s=60))
    assert "not run: tests/network/test_feed.py::test_supplier_feed" in result.summary, result.summary
    assert not marker.exists()
