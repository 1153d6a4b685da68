"""Test selection for big suites: which tests localization runs and which judge a candidate.

A suite of thousands of tests is run whole once (observe). After that:

- localization runs the failing tests once with coverage, to learn which source files they
  run, then the failing tests' files and the *related* test files (:func:`related_test_files`:
  the files that import one of those modules), with per-test coverage;
- a candidate runs its failing tests, then the passing tests that cover the files it changes
  (:attr:`codur.validate.localize.Localization.covering`), and only a candidate that passed both
  runs the whole suite, once, before it is accepted.

A passing test that never runs a line of a file cannot break from an edit there: test
selection by coverage, as in regression test selection (Rothermel & Harrold, "Analyzing
Regression Test Selection Techniques", IEEE TSE 1996); the whole-suite run of the winner
covers what the static import analysis missed.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from codur.core.files import IGNORED_DIRS
from codur.core.pyast import parse_ast
from codur.testing.ids import file_of, is_test_module
from codur.testing.suite import Suite

#: Collected test cases of the related files localization runs besides the failing tests' own files.
RELATED_TEST_BUDGET = 200
_SKIP_DIRS = IGNORED_DIRS | {"build", "dist"}


def imported_modules(source: str) -> list[str]:
    """Top-level names of the modules a file imports, in order (``a.b`` → ``a.b`` and ``a``;
    ``from a import b`` → ``a`` and ``a.b``). Raises SyntaxError."""
    names: list[str] = []
    for n in ast.walk(parse_ast(source)):
        if isinstance(n, ast.Import):
            mods = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            mods = [n.module, *(f"{n.module}.{a.name}" for a in n.names if a.name != "*")]
        else:
            mods = []
        for m in mods:
            names += [m, m.split(".")[0]] if "." in m else [m]
    return list(dict.fromkeys(names))


def test_files(repo: Path) -> list[str]:
    """The repo's test files (``test_*.py``, ``*_test.py``), relative, sorted; environments,
    caches and build folders skipped."""
    out = []
    for here, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")]
        out += [Path(here, f).relative_to(repo).as_posix() for f in files if is_test_module(f)]
    return sorted(out)


def _own_modules(repo: Path, path: str) -> set[str]:
    """The dotted names a test file imports that are the repo's own modules (or under src/)."""
    try:
        names = imported_modules((repo / path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return set()
    own = set()
    for name in names:
        rel = name.replace(".", "/")
        if any((base / f"{rel}.py").is_file() or (base / rel / "__init__.py").is_file()
               for base in (repo, repo / "src")):
            own.add(name)
    return own


def module_name(path: str) -> str:
    """The dotted module of a source file: ``src/pkg/sub/mod.py`` → ``pkg.sub.mod``,
    ``pkg/__init__.py`` → ``pkg``."""
    parts = Path(path).with_suffix("").parts
    parts = parts[1:] if parts[:1] == ("src",) else parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def related_test_files(repo: Path, failing: list[str], sources: set[str] | frozenset[str],
                       suite: Suite, budget: int = RELATED_TEST_BUDGET) -> list[str]:
    """Test files of the project's ``suite`` (:mod:`codur.testing.suite`: what its own test
    command collects; a file it excludes is never listed) beside the failing tests' own that
    import a module the failing tests ran (``sources``: the source files a failing test ran a
    line of), best first: the files importing the most of them first. Files are taken while
    their collected test cases fit in ``budget``. The failing tests' own files are not listed."""
    repo = Path(repo)
    own_files = {file_of(t) for t in failing}
    wanted = {module_name(p) for p in sources}
    ranked = []
    for path in suite.files():
        if path not in own_files and (shared := _own_modules(repo, path) & wanted):
            ranked.append((-len(shared), path))
    out, left = [], budget
    for _, path in sorted(ranked):
        count = suite.counts[path]
        if count <= left:
            out.append(path)
            left -= count
    return out


_NAMED = re.compile(r"[\w./-]+\.py(?:::[\w\[\]\-.]+)*")
_BARE = re.compile(r"(?<![\w./:-])(test_\w+|Test\w+)(?![\w.]*\.py)(?![\w/])")


def named_tests(task: str, repo: Path) -> list[str]:
    """The test files and ids a task names (``make tests/test_x.py::test_y pass``) that exist in
    ``repo`` as test files; [] when it names none."""
    out = []
    for found in _NAMED.findall(task):
        found = found.rstrip(".")
        path = file_of(found)
        if is_test_module(Path(path).name) and (Path(repo) / path).is_file():
            out.append(found)
    return list(dict.fromkeys(out))


def bare_test_names(task: str) -> list[str]:
    """Test function or class names a task gives without their file (``make test_parse_dates
    pass``), in order; :meth:`codur.testing.suite.Suite.named` finds their ids."""
    return list(dict.fromkeys(_BARE.findall(task)))
