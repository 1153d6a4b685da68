"""The one test-file rule and test-id rule (:mod:`codur.testing.ids`)."""

from __future__ import annotations

import pytest

from codur.testing.ids import file_of, is_test_file, is_test_module
from codur.validate.source import is_source_file


@pytest.mark.parametrize(("path", "test", "module"), [
    ("test_a.py", True, True), ("pkg/a_test.py", True, True), ("conftest.py", True, False),
    ("tests/helpers.py", True, False), ("src/tests/data.json", True, False), ("app.py", False, False),
    ("testing.py", False, False), ("contest.py", False, False),
])
def test_which_files_are_tests(path: str, test: bool, module: bool):
    assert is_test_file(path) is test
    assert is_test_module(path.rsplit("/", 1)[-1]) is module
    if path.endswith(".py") and "/" not in path:
        assert is_source_file(path) is not test  # the mutable source is what is not a test


def test_a_test_id_names_its_file():
    assert file_of("tests/test_a.py::TestX::test_y[1-2]") == "tests/test_a.py"
    assert file_of("tests/test_a.py") == "tests/test_a.py"
