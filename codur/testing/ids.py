"""Which files are tests and which file a test id names: the one rule observe, the task's
scope, the patch node and repair (localization, test selection, the mutable source) use.

A test id is pytest's node id, ``path/to/test_x.py::Class::test_name[param]``, the path
posix and relative to the repo (pytest's rootdir), as the repair plugin reports it for every
run (:func:`codur.testing.report.read_report`); a test inherited from a base class in another
file has the id of the class that runs it, a nested class's test ``Outer::Inner::test``, a
module that fails to import its file's path. A bare path stands for every test in that file.
"""

from __future__ import annotations


def is_test_module(name: str) -> bool:
    """pytest's default ``python_files`` for a file ``name``: ``test_*.py`` or ``*_test.py``."""
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def is_test_file(path: str) -> bool:
    """``test_*``, ``*_test.py``, ``conftest.py``, or anything under a ``tests/`` folder
    (``path``: posix, relative to the repo)."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or "/tests/" in f"/{path}"


def file_of(test_id: str) -> str:
    """The file a test id names (``tests/test_a.py::T::test_b[1]`` -> ``tests/test_a.py``)."""
    return test_id.split("::")[0]


def under(test_id: str, target: str) -> bool:
    """``test_id`` is ``target`` or one of the tests it stands for (a file, a class, a
    parametrized test: ``tests/t.py::T`` holds ``tests/t.py::T::test_a[1]``)."""
    return test_id == target or test_id.startswith(target + "::") or test_id.startswith(target + "[")
