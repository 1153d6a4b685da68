"""The project's own test suite: exactly the tests its configured command collects.

codur may run a test only when the project's own test command would: related-test
selection, a candidate's covering tests and the winner's final run choose from this set,
never from a walk of the file system. The set comes from the command's own collection,
``<python> -m pytest <its arguments> --collect-only`` with the repair plugin writing the
collected node ids (``CODUR_REPAIR_COLLECT``), so ``testpaths``, ``addopts``, ``-k``/``-m``,
``collect_ignore``, ``norecursedirs`` and markers all hold, conftest hooks included. A test
module that fails to collect is in the set under its file's id (its import error may be the
bug). A command that is not pytest (``make test``) runs whole and has no set (None).

Collected once per run and repo state: :func:`suite_of` caches by the repo, the command and
the files pytest's collection reads (test modules, conftest files and configuration, by
size and modification time).
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from codur.core.files import IGNORED_DIRS
from codur.sandbox.lifetime import temp_dir
from codur.testing import command as testcmd
from codur.testing.ids import file_of, is_test_module, under
from codur.testing.runner import argv_of, run_tests

#: Seconds a collection may take.
COLLECT_TIMEOUT_S = 120.0
#: Files whose change may change what pytest collects, besides test modules.
CONFIG_FILES = frozenset({"conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", ".pytest.ini"})
_cache: dict[tuple, Suite] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Suite:
    """The node ids a test command collects (posix paths relative to the repo, pytest's form).

    ``ids`` keeps pytest's order; :attr:`counts` is test cases per file.
    """

    ids: tuple[str, ...]
    counts: Counter = field(init=False, repr=False, compare=False)
    _set: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", Counter(file_of(i) for i in self.ids))
        object.__setattr__(self, "_set", frozenset(self.ids))

    def __contains__(self, test: str) -> bool:
        """``test`` (a node id, a class or parametrized parent of one, or a file) is collected."""
        if test in self.counts or test in self._set:
            return True
        return any(under(i, test) for i in self.ids)

    def files(self) -> list[str]:
        """The test files the suite collects from, in pytest's order."""
        return list(self.counts)

    def split(self, tests: list[str]) -> tuple[list[str], list[str]]:
        """(those of ``tests`` the suite collects, those it does not), each in order."""
        kept = [t for t in tests if t in self]
        return kept, [t for t in tests if t not in kept]

    def named(self, name: str) -> list[str]:
        """The collected ids whose test function or class is ``name`` (``test_parse`` matches
        ``tests/test_p.py::test_parse`` and ``tests/test_p.py::T::test_parse[1]``)."""
        out = []
        for i in self.ids:
            parts = i.split("::")[1:]
            if any(p.split("[")[0] == name for p in parts):
                out.append(i)
        return out


def _stamp(repo: Path) -> tuple:
    """What pytest's collection reads, by (path, size, mtime): a changed stamp, a new collection."""
    out = []
    for here, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS and not d.startswith(".")]
        for name in files:
            if name in CONFIG_FILES or is_test_module(name):
                path = os.path.join(here, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                out.append((path, st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


def collect(repo: Path, command: testcmd.TestCommand, *, worker=None,
            timeout_s: float = COLLECT_TIMEOUT_S) -> Suite | None:
    """Ask the command's own collection which tests it runs (see the module doc).

    Args:
        repo: the repository (the collection runs there, confined like every test run, unless
            ``worker`` is given).
        command: the repo's resolved test command.
        worker: a :class:`codur.validate.worker.Worker` (a private copy of ``repo``, through
            its warm fork server) to run the collection in instead.
        timeout_s: limit of the collection, seconds.

    Returns the :class:`Suite`, or None for a command that is not pytest or a collection that
    wrote nothing (pytest missing, killed at ``timeout_s``): the caller then keeps to the
    tests the command itself was seen to run.
    """
    if not command.is_pytest:
        return None
    args = [*(command.pytest_args or ()), "--collect-only", "-q", "-p", testcmd.PLUGIN, "-p", "no:cacheprovider"]
    with temp_dir("codur-collect-") as tmp:
        out = tmp / "collected.json"
        env = {"CODUR_REPAIR_COLLECT": str(out)}
        if worker is not None:
            worker.run(args, timeout_s, env)
        else:
            run_tests(command, Path(repo), argv_of(command, args), env, timeout_s)
        try:
            ids = json.loads(out.read_text())
        except (OSError, ValueError):
            return None
    return Suite(tuple(dict.fromkeys(str(i) for i in ids if isinstance(i, str))))


def suite_of(repo: Path, command: testcmd.TestCommand, *, worker=None,
             timeout_s: float = COLLECT_TIMEOUT_S) -> Suite | None:
    """:func:`collect`, cached while the repo's test files and configuration stay the same."""
    repo = Path(repo).resolve()
    key = (str(repo), command.argv, _stamp(repo))
    with _lock:
        if key in _cache:
            return _cache[key]
    found = collect(repo, command, worker=worker, timeout_s=timeout_s)
    if found is not None:
        with _lock:
            _cache[key] = found
    return found
