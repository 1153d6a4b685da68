"""The held-out check of bench/real: is a green patch also correct?

A bug repo holds only the tests the fix added or changed (``take``). The project's releases
ship more: every test file of the suite of the **newest release of the project pinned in the
manifest** (:func:`source`; for most bugs a later release than the fix's, as consecutive
releases add few tests) that differs from the bug repo's (or is new) holds tests the bug repo
did not take. Those tests are the **held-out** check, never shown to codur:

- :func:`reference` (once per bug, cached under ``<bench cache>/heldout/``): that release's
  changed test files copied over the bug repo with the developers' fix applied, and over the
  bug repo as it is, and run in each with the repo's ``.venv``. A held-out test is one that is
  not a test of the bug's own suite and *passes in both*: the behaviour the older release had
  and the developers' fix kept, which a correct patch keeps too. Left out: tests that fail with
  the developers' own fix (they need more of the later releases than the fix), and tests that
  fail on the bug repo itself (``changed``): they check a change the older release lacks, and
  a fix file of a release often holds more than the bug's fix (semver 3.0.4's ``version.py``
  fixes the subclass comparison *and* prerelease ordering; parse 1.20.1's ``parse.py`` adds a
  ``format`` property beside the ``%f`` fix), so a patch of the bug alone fails them. Their
  outcomes are reported, not judged.
- :func:`check`: after codur's run, the same files copied into a *copy* of the repo as codur
  left it (so nothing is written to the repo codur saw), run, and **correct** when every
  held-out test passes. A test failing in a run is run again (:data:`RERUNS` more times, its
  file alone) and counts as failing only when it fails every time: some tests fail by chance
  (cachetools' ``RRCache`` evicts a random item). The reference runs count a test failing the
  same way.
- :func:`same_as_fix`: the patched source equals the developers' fix after normalization
  (:func:`normalize`: docstrings and version assignments dropped, the AST compared, so
  formatting and comments do not count).

Qi et al. (ISSTA 2015) judged plausible patches the same way: by tests the repair never saw.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

import bugs
import sdists

CACHE = sdists.CACHE / "heldout"
#: The cache's format: a reference of another format is selected again.
FORMAT = 2
#: More runs of a failing test before it counts as failing.
RERUNS = 2
VERSION_NAMES = {"__version__", "__version_tuple__", "version", "version_tuple", "VERSION"}


def newest(versions: list[str]) -> str:
    """The newest of dotted release numbers (``"1.22.4"`` over ``"1.9"``)."""
    return max(versions, key=lambda v: tuple(int(x) if x.isdigit() else 0 for x in v.split(".")))


def source(bug: bugs.Bug) -> Path:
    """The unpacked sdist the held-out tests come from: the newest release of ``bug``'s
    project that the manifest pins."""
    pins = tomllib.loads(bugs.MANIFEST.read_text())["sha256"]
    versions = [k.split("==")[1] for k in pins if k.split("==")[0] == bug.package]
    v = newest(versions)
    return sdists.sdist(bug.package, v, pins[f"{bug.package}=={v}"])


def changed_test_files(repo: Path, newer: Path, tests: list[str]) -> list[str]:
    """Paths (relative, sorted) of the ``.py`` files under ``tests`` in the ``newer`` tree that
    are absent from ``repo`` or differ from its copy: the newer release's tests the repo lacks
    (conftest and helper modules included, as the test files may need them)."""
    out = []
    for rel in tests:
        root = newer / rel
        files = [root] if root.is_file() else sorted(root.rglob("*.py")) if root.is_dir() else []
        for f in files:
            r = f.relative_to(newer).as_posix()
            if "__pycache__" in r:
                continue
            mine = repo / r
            if not mine.is_file() or mine.read_bytes() != f.read_bytes():
                out.append(r)
    return sorted(out)


def select(outcomes: dict[str, str], shown: set[str], failing_on_bug: set[str] = frozenset()) -> list[str]:
    """The held-out node ids: those that PASSED in the reference run with the developers' fix
    (``outcomes``, node id → outcome), are not among the node ids of the bug's own suite
    (``shown``) and did not fail on the bug repo (``failing_on_bug``)."""
    return sorted(t for t, v in outcomes.items() if v == "PASSED" and t not in shown and t not in failing_on_bug)


def failing(bug: bugs.Bug, repo: Path, paths: list[str], reruns: int = RERUNS) -> tuple[dict[str, str], set[str]]:
    """(outcomes of the first run, node ids failing in every run) of the test files ``paths``
    in ``repo``: a test that did not pass is run again, its file alone, up to ``reruns`` more
    times, and counts as failing only when it never passes."""
    first = bugs.run_suite(bug, repo, paths=paths).outcomes
    bad = {t for t, v in first.items() if v not in ("PASSED", "XFAIL")}
    for _ in range(reruns):
        files = sorted({t.split("::")[0] for t in bad if "::" in t})
        if not files:
            break
        again = bugs.run_suite(bug, repo, paths=files).outcomes
        bad = {t for t in bad if again.get(t, first[t]) not in ("PASSED", "XFAIL")}
    return first, bad


def _test_files(files: list[str]) -> list[str]:
    return [f for f in files if Path(f).name.startswith("test_") or Path(f).name.endswith("_test.py")]


def _copy_in(newer: Path, files: list[str], repo: Path) -> None:
    for rel in files:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(newer / rel, repo / rel)


def reference(bug: bugs.Bug, *, refresh: bool = False) -> dict:
    """``{"files": changed test files, "heldout": held-out node ids, "changed": node ids passing
    with the developers' fix and failing on the bug}`` of ``bug`` (see the module docstring),
    from the cache unless ``refresh`` or of another :data:`FORMAT`. Builds the bug three times
    the first time (~15-60 s).

    Raises:
        sdists.SdistError: a download or the venv failed.
    """
    path = CACHE / f"{bug.id}.json"
    if path.is_file() and not refresh:
        cached = json.loads(path.read_text())
        if cached.get("format") == FORMAT:
            return cached
    newer = source(bug)
    with tempfile.TemporaryDirectory(prefix=f"heldout_{bug.id}_") as tmp:
        repo = bugs.build(bug, Path(tmp) / bug.id, fixed=True)
        shown = set(bugs.run_suite(bug, repo).outcomes)
        files = changed_test_files(repo, newer, bug.tests)
        tests = _test_files(files)
        _copy_in(newer, files, repo)
        outcomes, _ = failing(bug, repo, tests, reruns=0) if tests else ({}, set())
        on_bug: set[str] = set()
        if tests:
            plain = bugs.build(bug, Path(tmp) / "bug")
            _copy_in(newer, files, plain)
            on_bug = failing(bug, plain, tests)[1]
    passed = select(outcomes, shown)
    out = {"format": FORMAT, "from": newer.name, "files": files, "heldout": select(outcomes, shown, on_bug),
           "changed": [t for t in passed if t in on_bug]}
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    return out


def check(bug: bugs.Bug, repo: Path, ref: dict) -> tuple[bool | None, list[str], list[str]]:
    """(correct, held-out tests not passing, left-out tests not passing) of the repo as codur
    left it, run in a copy (its ``.venv`` linked, not copied). ``correct`` is None when the bug
    has no held-out test. The left-out tests (``ref["changed"]``: they fail on the bug repo
    itself) are run too and reported, not judged."""
    if not ref["heldout"] and not ref.get("changed"):
        return None, [], []
    newer = source(bug)
    with tempfile.TemporaryDirectory(prefix=f"heldout_{bug.id}_") as tmp:
        copy = Path(tmp) / bug.id
        shutil.copytree(repo, copy, symlinks=True, ignore=shutil.ignore_patterns(".venv", ".codur", ".git"))
        os.symlink(repo / ".venv", copy / ".venv")
        _copy_in(newer, ref["files"], copy)
        outcomes, never = failing(bug, copy, _test_files(ref["files"]))
    bad = [t for t in ref["heldout"] if t in never or t not in outcomes]
    left = [t for t in ref.get("changed", []) if t in never or t not in outcomes]
    return (not bad if ref["heldout"] else None), bad, left


def normalize(source: str) -> str:
    """``ast.dump`` of ``source`` with docstrings and assignments to a version name
    (``__version__ = "1.2"``) dropped: two sources are the same fix when these are equal.

    Raises:
        SyntaxError: ``source`` does not parse.
    """
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        keep = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                        and isinstance(s.value.value, str) and s is body[0])]
        keep = [s for s in keep if not (isinstance(s, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id in VERSION_NAMES
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target])))]
        node.body = keep or [ast.Pass()]
    return ast.dump(tree, annotate_fields=False, include_attributes=False)


def _same(a: Path, b: Path) -> bool:
    if a.is_file() != b.is_file():
        return False
    try:
        return normalize(a.read_text()) == normalize(b.read_text())
    except SyntaxError:
        return False


def same_as_fix(bug: bugs.Bug, repo: Path) -> bool:
    """Every fix file of ``repo`` equals the newer release's after :func:`normalize`, and every
    other source file (tests, ``.venv`` and ``.codur`` aside) equals the older release's."""
    old, newer = bugs.trees(bug)
    if not all(_same(repo / f, newer / f) for f in bug.fix):
        return False
    skip = (*bug.tests, ".venv", ".codur", ".git", "conftest.py")
    for f in repo.rglob("*.py"):
        rel = f.relative_to(repo).as_posix()
        if rel in bug.fix or rel.startswith(skip) or "__pycache__" in rel:
            continue
        if not _same(f, old / rel):
            return False
    return True
