"""Sanity-check every agent benchmark task under bench/agent/tasks.

For each task folder (any prefix):
  * the project (without task.toml and solution/) is copied to a temp dir;
  * for kinds other than `question`, the tests must FAIL there (a timeout
    counts as failing, which is what `hang` tasks rely on), and after
    overlaying solution/ they must pass (exit 0);
  * for `question`, the tests (if any) must pass and `keywords` must be a
    non-empty list of strings.

Usage: python bench/agent/check_suite.py [task-name ...]
Prints one line per task; exits 1 if any task is broken.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
TIMEOUT = 20
KINDS = {
    "one_function",
    "hang",
    "one_function_rewrite",
    "missing_line",
    "missing_statement",
    "two_function",
    "fixture",
    "feature",
    "question",
}
IGNORE = shutil.ignore_patterns("task.toml", "solution", "__pycache__", ".pytest_cache")


def run_pytest(cwd: Path) -> tuple[int | None, str]:
    """Run pytest in `cwd`; return (exit code or None on timeout, output tail)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
        return proc.returncode, out[-1500:]
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, "timeout"


def has_tests(root: Path) -> bool:
    return any(root.rglob("test_*.py")) or any(root.rglob("*_test.py"))


def check_task(task: Path) -> list[str]:
    """Return a list of problems (empty when the task is fine)."""
    toml_path = task / "task.toml"
    if not toml_path.is_file():
        return ["missing task.toml"]
    try:
        meta = tomllib.loads(toml_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        return [f"bad task.toml: {exc}"]
    problems = _meta_problems(meta)
    with tempfile.TemporaryDirectory(prefix=f"check_{task.name}_") as tmp:
        work = Path(tmp) / task.name
        shutil.copytree(task, work, ignore=IGNORE)
        check = _check_question if meta.get("kind") == "question" else _check_fix
        return problems + check(meta, task / "solution", work)


def _meta_problems(meta: dict) -> list[str]:
    """What task.toml lacks: a non-empty ``task``, ``kind`` and ``bug``, a known kind."""
    problems = [f"task.toml: `{key}` missing or empty" for key in ("task", "kind", "bug")
                if not isinstance(meta.get(key), str) or not meta[key].strip()]
    if meta.get("kind") not in KINDS:
        problems.append(f"unknown kind {meta.get('kind')!r}")
    return problems


def _check_question(meta: dict, solution: Path, work: Path) -> list[str]:
    """A question: keywords, no solution/, and its tests (if any) pass as they are."""
    problems = []
    kw = meta.get("keywords")
    if not (isinstance(kw, list) and kw and all(isinstance(k, str) and k for k in kw)):
        problems.append("question needs a non-empty `keywords` list of strings")
    if solution.exists():
        problems.append("question must not have solution/")
    if has_tests(work):
        code, out = run_pytest(work)
        if code != 0:
            problems.append(f"tests should pass but got {code}: {out}")
    return problems


def _check_fix(meta: dict, solution: Path, work: Path) -> list[str]:
    """A bug to fix: a solution/, tests that fail before it and pass after it is copied in."""
    if not solution.is_dir() or not any(p.is_file() for p in solution.rglob("*")):
        return ["missing or empty solution/"]
    if not has_tests(work):
        return ["no tests found"]
    problems = []
    code, out = run_pytest(work)
    if code == 0:
        problems.append("tests pass before the fix (should fail)")
    for src in solution.rglob("*"):
        if src.is_file() and "__pycache__" not in src.parts:
            dest = work / src.relative_to(solution)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    code, out = run_pytest(work)
    if code != 0:
        problems.append(f"tests fail after the fix ({'timeout' if code is None else code}): {out}")
    return problems


def main(argv: list[str]) -> int:
    tasks = sorted(p for p in TASKS_DIR.iterdir() if p.is_dir())
    if argv:
        tasks = [t for t in tasks if t.name in argv]
    broken = 0
    for task in tasks:
        problems = check_task(task)
        kind = "?"
        with contextlib.suppress(OSError, tomllib.TOMLDecodeError):
            kind = tomllib.loads((task / "task.toml").read_text()).get("kind", "?")
        if problems:
            broken += 1
            print(f"FAIL {task.name} [{kind}]")
            for p in problems:
                print("     - " + p.replace("\n", "\n       "))
        else:
            print(f"ok   {task.name} [{kind}]")
    print(f"{len(tasks) - broken}/{len(tasks)} tasks ok")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
