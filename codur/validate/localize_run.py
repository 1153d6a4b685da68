"""How localization's test run goes when it runs in the repo itself
(:func:`codur.validate.localize.localize_faults`): a pytest suite through the warm fork
server (:func:`run_forked`), anything else directly (:func:`run_direct`), a non-pytest
command whole, as one test, under ``coverage run`` when its interpreter has coverage.py.
"""

from __future__ import annotations

import re
import tempfile
from collections import defaultdict
from pathlib import Path

from codur.sandbox.bwrap import allowed_env
from codur.testing import command as testcmd
from codur.testing.confine import OriginSecrets, run_confined, scratch_root
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
               timeout_s: float, *, allow_secrets: bool = False) -> tuple[str, TestRun | None]:
    """Run ``command`` with ``args`` in ``repo`` in a process of its own, confined as every run
    of the repo's code is (under bwrap when it works: the repo read-only, its credential files
    empty unless ``allow_secrets``, the scratch area the one place written). Returns (the end of
    its output, the report of a non-pytest command, None for pytest: its plugin writes one).
    A non-pytest command runs under ``coverage run`` (data in the scratch area) when it can
    (:func:`whole_command_report`). Raises RuntimeError when it runs over ``timeout_s`` seconds."""
    secrets = origin_secrets(repo, allow_secrets=allow_secrets)
    with tempfile.TemporaryDirectory(prefix="coverage-", dir=scratch_root()) as scratch:
        argv = argv_of(command, args)
        data = Path(scratch) / "coverage"
        if not command.is_pytest and can_cover(argv[0], repo, secrets):
            argv[1:1] = ["-m", "coverage", "run", f"--data-file={data}", f"--source={repo}"]
        done = run_tests(command, repo, argv, env, timeout_s, secrets=secrets)
        if done.timed_out:
            raise RuntimeError(f"test run exceeded {timeout_s:.0f}s")
        output = done.output[-4000:]
        if command.is_pytest:
            return output, None
        code = -1 if done.exit_code is None else done.exit_code
        return output, whole_command_report(repo, code, output, command.argv, data)


def can_cover(python: str, repo: Path, secrets: OriginSecrets = OriginSecrets()) -> bool:
    """True if ``python`` (the repo's interpreter: its venv's ``.pth`` files run at its start) is
    an interpreter that can ``-m coverage run``; asked in the repo, confined like a test run, with
    the allowlisted environment only."""
    if not testcmd.is_python(python):
        return False
    try:
        probe = run_confined([python, "-c", "import coverage"], repo, allowed_env({}), 60.0, lambda kill: None,
                             repo, python, secrets=secrets)
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
