"""The bugs of bench/real (``bugs.toml``), and how one is built from two released sdists.

A bug is a pair of consecutive releases of a project whose changelog names a fix. The
bug repo is the older release's sdist, plus the test functions that the fix added or
changed taken from the newer sdist (:mod:`splice`), with the project's pinned requirements
in ``<repo>/.venv``. The fix is the newer release's version of the source files it names.

Manifest fields: ``[project.NAME]`` has ``package`` (PyPI name), ``source`` (the import
root: "." or "src"), ``tests`` (paths the suite runs) and ``requirements`` (pinned, pytest
among them); ``[sha256]`` maps ``package==version`` to the sdist's digest; each ``[[bug]]``
has ``id``, ``project``, ``old``, ``new``, ``what`` (one line), ``fix`` (source files),
``take`` (``file::name`` test definitions from the newer sdist, ``name`` as in
:func:`splice.take`; a bare ``file`` takes the whole file), ``failing`` (pytest node ids
that fail on the bug and pass with the fix) and optionally ``flaky`` (node ids that may
pass or fail on the bug, by chance, and pass with the fix).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import signal
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import sdists
import splice

MANIFEST = Path(__file__).resolve().parent / "bugs.toml"
PYTEST_TIMEOUT = 300  # seconds, one run of a bug's suite
#: a root conftest.py for src-layout projects: what an editable install would do, but relative
#: to the repo, so a copy of the repo imports its own source
SRC_CONFTEST = ('"""Added by bench/real: the project\'s source folder on sys.path."""\n\nimport pathlib\n'
                'import sys\n\nsys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / {src!r}))\n')


@dataclass(frozen=True)
class Bug:
    """One bug of the manifest (fields as in the module docstring)."""

    id: str
    project: str
    package: str
    old: str
    new: str
    what: str
    fix: list[str]
    take: list[str]
    failing: list[str]
    source: str
    tests: list[str]
    requirements: list[str]
    old_sha256: str
    new_sha256: str
    flaky: list[str] = field(default_factory=list)


def load(path: Path = MANIFEST) -> list[Bug]:
    """Every bug of the manifest at ``path``, in file order.

    Raises:
        KeyError: a bug names a project, or a version, that the manifest does not define.
    """
    data = tomllib.loads(path.read_text())
    bugs = []
    for b in data["bug"]:
        proj = data["project"][b["project"]]
        pkg = proj["package"]
        bugs.append(Bug(id=b["id"], project=b["project"], package=pkg, old=b["old"], new=b["new"], what=b["what"],
                        fix=b["fix"], take=b["take"], failing=b["failing"], flaky=b.get("flaky", []),
                        source=proj["source"], tests=proj["tests"], requirements=proj["requirements"],
                        old_sha256=data["sha256"][f"{pkg}=={b['old']}"],
                        new_sha256=data["sha256"][f"{pkg}=={b['new']}"]))
    return bugs


def trees(bug: Bug) -> tuple[Path, Path]:
    """The unpacked (older, newer) sdists of ``bug``, from the cache or PyPI."""
    return (sdists.sdist(bug.package, bug.old, bug.old_sha256), sdists.sdist(bug.package, bug.new, bug.new_sha256))


VERSION_LINE = re.compile(r"\s*(__version__|__version_tuple__|version|version_tuple|VERSION)\b.*=")


def fix_hunks(bug: Bug) -> dict[str, int]:
    """{fix file: its hunks from the older release to the newer}: unified-diff hunks with 3
    lines of context, less those that only bump a version string."""
    old, new = trees(bug)
    out = {}
    for f in bug.fix:
        a = (old / f).read_text().splitlines() if (old / f).is_file() else []
        b = (new / f).read_text().splitlines()
        groups = difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3)
        out[f] = sum(1 for g in groups if not all(VERSION_LINE.match(line) for _, i1, i2, j1, j2 in g
                                                  for line in a[i1:i2] + b[j1:j2] if _ != "equal"))
    return out


def _by_file(items: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items:
        file, _, name = item.partition("::")
        out.setdefault(file, [])
        if name:
            out[file].append(name)
    return out


def build(bug: Bug, dest: Path, *, fixed: bool = False, venv: bool = True) -> Path:
    """Write the bug repo of ``bug`` at ``dest`` (absent before); with ``fixed``, the fix applied.

    The repo is a git repository with one commit (the bug), ``.venv`` excluded from it.
    Raises:
        sdists.SdistError: a download or the venv failed; splice.SpliceError: a bad ``take``.
    """
    old, new = trees(bug)
    shutil.copytree(old, dest, ignore=shutil.ignore_patterns(".unpacked", "__pycache__"))
    for file, names in _by_file(bug.take).items():
        if not names:
            shutil.copy2(new / file, dest / file)
            continue
        target = dest / file
        before = target.read_text() if target.is_file() else ""
        target.write_text(splice.take(before, (new / file).read_text(), names))
    if bug.source != "." and not (dest / "conftest.py").exists():
        (dest / "conftest.py").write_text(SRC_CONFTEST.format(src=bug.source))
    if venv:
        sdists.clone_venv(sdists.venv_template(bug.requirements), dest / ".venv")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    (dest / ".git" / "info" / "exclude").write_text(".venv/\n__pycache__/\n.codur/\n.pytest_cache/\n")
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", f"{bug.package} {bug.old} with the tests of {bug.id}"],
                   cwd=dest, check=True)
    if fixed:
        apply_fix(bug, dest)
    return dest


def apply_fix(bug: Bug, dest: Path) -> None:
    """Copy the fix files of the newer release over the bug repo at ``dest``."""
    _, new = trees(bug)
    for f in bug.fix:
        shutil.copy2(new / f, dest / f)


def copy_tests(bug: Bug, src: Path, dst: Path) -> None:
    """Copy every path of ``bug.tests`` (and the root conftest.py) from the repo ``src`` over
    the repo ``dst``: to keep the bug's tests before a run, and to put them back after it, so
    edits to the tests do not count."""
    for rel in [*bug.tests, "conftest.py"]:
        if (src / rel).is_dir():
            shutil.rmtree(dst / rel, ignore_errors=True)
            shutil.copytree(src / rel, dst / rel, ignore=shutil.ignore_patterns("__pycache__"))
        elif (src / rel).is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / rel, dst / rel)


OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (.+?)(?: - .*)?$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class SuiteRun:
    """One run of a bug's suite: ``outcomes`` {node id: PASSED/FAILED/ERROR/XFAIL/XPASS},
    pytest's exit ``code`` (None: killed at the time limit), ``seconds`` and ``tail`` (the
    output's last lines)."""

    outcomes: dict[str, str]
    code: int | None
    seconds: float
    tail: str

    def bad(self) -> list[str]:
        """Node ids (or collection errors) that failed or errored."""
        return sorted(k for k, v in self.outcomes.items() if v in ("FAILED", "ERROR"))


def run_suite(bug: Bug, repo: Path, timeout: float = PYTEST_TIMEOUT, paths: list[str] | None = None) -> SuiteRun:
    """Run the bug's suite (or only ``paths``, relative to the repo) with the repo's own ``.venv``
    interpreter (``-rA`` lists each outcome)."""
    import time

    cmd = [str(repo / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
           *(bug.tests if paths is None else paths)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PYTHONDONTWRITEBYTECODE="1", COLUMNS="250")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = None
    out = ANSI.sub("", out)
    outcomes = {m.group(2): m.group(1) for line in out.splitlines() if (m := OUTCOME.match(line))}
    if code not in (0, 1) and not any(v == "ERROR" for v in outcomes.values()):
        outcomes["<suite>"] = "ERROR"  # did not start, or killed: no test result to trust
    return SuiteRun(outcomes, code, time.monotonic() - t0, "\n".join(out.splitlines()[-15:]))


def judge(bug: Bug, run: SuiteRun) -> tuple[bool, str]:
    """(fixed, why): every ``failing`` test passed and nothing else failed."""
    missing = [t for t in bug.failing if run.outcomes.get(t) != "PASSED"]
    if missing:
        return False, "not passing: " + ", ".join(f"{t} ({run.outcomes.get(t, 'absent')})" for t in missing)
    if bad := run.bad():
        return False, "failing: " + ", ".join(bad[:5])
    return True, f"{len(run.outcomes)} tests pass"
