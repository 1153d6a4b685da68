"""Which files are tests and which file a test id names: the one rule observe, the task's
scope, the patch node and repair (localization, test selection, the mutable source) use.

A test id is pytest's node id, ``path/to/test_x.py::Class::test_name[param]``, the path
posix and relative to the repo; a bare path stands for every test in that file.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path


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


def junit_test_id(case: ET.Element) -> str:
    """The test id of a JUnit XML ``testcase`` (pytest's ``junit_family=xunit1``: it has the
    ``file``; else the id is rebuilt from the dotted ``classname``)."""
    classname = case.get("classname", "")
    file = case.get("file")
    name = case.get("name", "")
    if file:
        parts = classname.split(".")
        module = Path(file).with_suffix("").as_posix().replace("/", ".")
        cls = ".".join(parts[len(module.split(".")):]) if classname.startswith(module) else ""
        return f"{file}::{cls}::{name}" if cls else f"{file}::{name}"
    module, _, cls = classname.rpartition(".")
    if module and cls[:1].isupper():
        return f"{module.replace('.', '/')}.py::{cls}::{name}"
    return f"{classname.replace('.', '/')}.py::{name}"
