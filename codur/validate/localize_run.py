"""How localization's test run goes when it runs in the repo itself
(:func:`codur.validate.localize.localize_faults`): a pytest suite through the warm fork
server (:func:`run_forked`), anything else directly (:func:`run_direct`), a non-pytest
command whole, as one test, under ``coverage run`` when its interpreter has coverage.py.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

from codur.sandbox.lifetime import temp_dir
from codur.sandbox.process import run_process
from codur.testing import command as testcmd
from codur.testing.forkserver import keep_runner, take_runner
from codur.testing.report import WHOLE_COMMAND, TestRecord, TestRun, run_of
from codur.testing.runner import argv_of, run_tests
from codur.tools.masking import origin_secrets

_FRAME_RE = re.compile(r'File "([^"]+\.py)", line (\d+)')


def run_forked(command: testcmd.TestCommand, repo: Path, args: list[str], env: dict[str, str],
               timeout_s: float, *, allow_secrets: bool = False) -> str:
    """Run pytest with ``args`` in ``repo`` through the warm fork server (started if needed,
    kept for the next call; closed when the run raises); the repo's credential files read as
    empty in its runs unless ``allow_secrets``. Returns the run's exit, in words."""
    runner = take_runner(command.python, repo, secrets=origin_secrets(repo, allow_secrets=allow_secrets))
    try:
        done = run_tests(command, repo, argv_of(command, args), env, timeout_s, server=runner)
    except BaseException:
        runner.close()
        raise
    keep_runner(runner)
    code = -9 if done.exit_code is None else done.exit_code  # killed: a confined run of its own
    return f"exit {code}" + (" (over the time limit)" if done.timed_out else "")


def run_direct(command: testcmd.TestCommand, repo: Path, args: list[str], env: dict[str, str],
               timeout_s: float) -> tuple[str, TestRun | None]:
    """Run ``command`` with ``args`` in ``repo`` in a process of its own. Returns (the end of
    its output, the report of a non-pytest command, None for pytest: its plugin writes one).
    A non-pytest command runs under ``coverage run`` (data in a temp dir) when it can
    (:func:`whole_command_report`). Raises RuntimeError when it runs over ``timeout_s`` seconds."""
    with temp_dir("codur-coverage-") as scratch:
        argv = argv_of(command, args)
        data = scratch / "coverage"
        if not command.is_pytest and can_cover(argv[0]):
            argv[1:1] = ["-m", "coverage", "run", f"--data-file={data}", f"--source={repo}"]
        done = run_tests(command, repo, argv, env, timeout_s, confined=False)
        if done.timed_out:
            raise RuntimeError(f"test run exceeded {timeout_s:.0f}s")
        output = done.output[-4000:]
        if command.is_pytest:
            return output, None
        code = -1 if done.exit_code is None else done.exit_code
        return output, whole_command_report(repo, code, output, command.argv, data)


def can_cover(python: str) -> bool:
    """True if ``python`` is an interpreter that can ``-m coverage run``."""
    if not testcmd.is_python(python):
        return False
    try:
        probe = run_process([python, "-c", "import coverage"], cwd=Path.cwd(), timeout_s=60, env=os.environ)
    except OSError:
        return False
    return probe.exit_code == 0


def whole_command_report(repo: Path, returncode: int, output: str, argv: tuple[str, ...],
                          data: Path) -> TestRun:
    """A non-pytest command is one test (:data:`codur.testing.report.WHOLE_COMMAND`): the lines
    it covered (when ``coverage run`` could wrap it, data in ``data``) and those named in its
    tracebacks are suspects, except in the scripts named in the command (the test driver itself).
    """
    driver = {str((repo / a).resolve()) for a in argv if a.endswith(".py")}
    frames = [(str((repo / p).resolve()), int(n)) for p, n in _FRAME_RE.findall(output)]
    frames = [f for f in frames if f[0] not in driver]
    outcome = "passed" if returncode == 0 else "failed"
    lines: dict[str, dict[int, list[str]]] = defaultdict(dict)
    if data.is_file():
        import coverage

        covered = coverage.CoverageData(basename=str(data))
        covered.read()
        for path in covered.measured_files():
            if str(Path(path).resolve()) not in driver:
                for line in covered.lines(path) or ():
                    lines[path][line] = [WHOLE_COMMAND]
    for path, line in frames:
        lines[path][line] = [WHOLE_COMMAND]
    return run_of({WHOLE_COMMAND: TestRecord(WHOLE_COMMAND, outcome, frames=tuple(frames))}, returncode, lines=lines)
