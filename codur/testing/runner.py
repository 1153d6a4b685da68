"""The one test runner: every run of the repository's tests (observe, verify, the
``run_pytest`` tool, fault localization, repair's candidates) starts in :func:`run_tests`.

It takes the command line (built here: :func:`argv_of` for a pytest run given whole, as
repair's workers and localization give it; :func:`reporting_argv` for the tool path's run
with a selection), the report's environment (:func:`report_env`, :func:`plugin_options`),
and starts the run one of three ways:

- through the warm fork server (:class:`codur.testing.forkserver.Runner`) when one is given
  and sees the folder: a fork instead of an interpreter start;
- through ``launch``, the tool context's confined process (:meth:`codur.tools.context.ToolContext.run`);
- else as a subprocess confined by :func:`codur.testing.confine.run_confined`, through the
  one process runner (:func:`codur.sandbox.process.run_process`), in the plugin's
  environment (:func:`codur.testing.command.plugin_env`).

Each way kills the run's process group past ``timeout_s``; the run comes back as one
:class:`codur.testing.report.TestRun`: exit code, output and wall time, with the tests of
its report (:func:`codur.testing.report.read_report`) when one was asked for.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from codur.sandbox.process import ProcessResult
from codur.testing.command import PLUGIN, RUNTIME_DIR, TestCommand, own_plugins_off, plugin_env
from codur.testing.confine import OriginSecrets, run_confined
from codur.testing.forkserver import Runner
from codur.testing.report import TestRun, read_report, run_of

#: Environment variable naming the file the plugin writes its report to.
REPORT_ENV = "CODUR_REPAIR_OUT"
#: The tool path's pytest flags: quiet, short tracebacks, no cache written into the repo.
TOOL_FLAGS = ("-q", "--tb=short", "-p", "no:cacheprovider")

#: How the tool path starts a process: (argv, environment added, timeout seconds or None
#: for the context's) -> its result. :meth:`codur.tools.context.ToolContext.run` behind it.
Launch = Callable[[list[str], dict[str, str], float | None], ProcessResult]


def report_env(out: Path, *, coverage: bool = False) -> dict[str, str]:
    """Environment that makes the repair plugin write its report to ``out``, with per-test
    line coverage (of ``CODUR_REPAIR_SOURCE``, else the run's folder) only when ``coverage``."""
    return {REPORT_ENV: str(out), **({} if coverage else {"CODUR_REPAIR_NO_COVERAGE": "1"})}


def plugin_options(out: Path, test_timeout_s: float, *, by_option: bool = True) -> tuple[list[str], dict[str, str]]:
    """pytest options and environment that load the repair plugin to write its report (no
    coverage) to ``out``, with a per-test limit of ``test_timeout_s`` seconds (0: none): a test
    running longer fails with a TimeoutError raised where it loops. ``by_option`` False loads
    it through ``PYTEST_PLUGINS`` instead of ``-p`` (a command that passes pytest's options
    through a wrapper, ``tox -e py --``: a wrapper that drops the environment then runs
    without it, and writes no report, where ``-p`` would stop pytest)."""
    path = os.pathsep.join(p for p in (str(RUNTIME_DIR), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": path, **report_env(out)}
    if test_timeout_s:
        env["CODUR_REPAIR_TEST_TIMEOUT"] = f"{test_timeout_s:g}"
    if by_option:
        return ["-p", PLUGIN], env
    return [], {**env, "PYTEST_PLUGINS": ",".join(filter(None, [os.environ.get("PYTEST_PLUGINS", ""), PLUGIN]))}


def argv_of(command: TestCommand, args: list[str] | tuple[str, ...] = ()) -> list[str]:
    """``<python> -m pytest <args>`` for a pytest command (``args``: pytest's whole argument
    list, the command's own arguments included when wanted); the command as configured for
    any other (``make test``: run whole)."""
    if command.is_pytest:
        assert command.python is not None
        return [command.python, "-m", "pytest", *args]
    return list(command.argv)


def reporting_argv(command: TestCommand, root: Path, out: Path, *, selection: list[str] | None = None,
                   test_timeout_s: float) -> tuple[list[str], dict[str, str]]:
    """The tool path's run (observe, verify, ``run_pytest``): the command with :data:`TOOL_FLAGS`
    and the plugin writing its report to ``out`` (per-test limit ``test_timeout_s`` seconds, 0:
    none), ``selection`` (test ids or paths relative to ``root``) in place of its own paths,
    when the command takes pytest's options; else the command as configured.
    Returns (argv, environment to add)."""
    plugin, env = plugin_options(out, test_timeout_s, by_option=command.is_pytest)
    argv = command.run_argv(root, [*TOOL_FLAGS, *plugin], selection)
    return argv, (env if command.passes_args else {})


def _no_kill(kill: Callable[[], None]) -> None:
    return None


def run_tests(command: TestCommand, cwd: Path, argv: list[str], env: Mapping[str, str], timeout_s: float | None,
              *, server: Runner | None = None, launch: Launch | None = None, report: Path | None = None,
              on_start: Callable[[Callable[[], None]], None] = _no_kill, origin: Path | None = None,
              confined: bool = True, shadow_src: bool = False,
              secrets: OriginSecrets = OriginSecrets()) -> TestRun:
    """Start one run of the repo's tests, wait for it, and read its report: the one function
    that starts a test run.

    Args:
        command: the repo's test command (:func:`codur.testing.command.resolve`).
        cwd: the folder the run starts in (the repo, or a worker's copy).
        argv: the command line (:func:`argv_of`, :func:`reporting_argv`).
        env: variables added to the run's environment (the plugin's files, limits).
        timeout_s: limit of the whole run, seconds (None: ``launch``'s default); the run's
            process group is killed past it.
        server: the warm fork server; the run forks there when it sees ``cwd``.
        launch: the tool context's process runner; the run goes there when given (its
            environment: the context's allowlist, ``env``, codur's own plugins off).
        report: the file the plugin writes its report to (set in ``env`` by the caller): its
            tests and coverage join the run's (``tests`` stays {} when it wrote none).
        on_start: gets, once the run started, the function that kills it.
        origin: the repo a copy in ``cwd`` was made from (bound back in a confined
            subprocess); default ``cwd``.
        confined: a subprocess runs under bwrap when it works (False: the allowlist only).
        secrets: ``origin``'s credential files and ``.git`` credentials, hidden in a confined
            subprocess (:class:`codur.testing.confine.OriginSecrets`; none under ``allow_secrets``).
        shadow_src: a subprocess puts ``cwd/src`` first on ``PYTHONPATH`` (a worker's copy
            shadows an install of the original ``src/`` layout).

    Returns:
        The :class:`codur.testing.report.TestRun` (``exit_code`` None when it was killed).

    Raises:
        ToolError: from ``launch`` (the command is not found, the run was cancelled).
        RuntimeError: the fork server died.
    """
    start = time.monotonic()
    if launch is not None:
        done = launch(argv, {**own_plugins_off(command.python), **env}, timeout_s)
        code, timed_out, output, duration = done.exit_code, done.timed_out, done.stdout + done.stderr, done.duration_s
    elif server is not None and server.sees(cwd):
        assert timeout_s is not None
        code, timed_out = server.run(cwd, argv[3:], dict(env), timeout_s, on_start)
        output, duration = "", time.monotonic() - start
    else:
        assert timeout_s is not None
        full = plugin_env(command.python, **env)
        if shadow_src and (cwd / "src").is_dir():
            full["PYTHONPATH"] = os.pathsep.join([str(cwd / "src"), full["PYTHONPATH"]])
        done = run_confined(argv, cwd, full, timeout_s, on_start, origin or cwd, command.interpreter,
                            confined=confined, secrets=secrets)
        code, timed_out, output, duration = done.exit_code, done.timed_out, done.stdout + done.stderr, done.duration_s
    found = read_report(report) if report is not None else None
    return run_of(found.tests if found else None, code, timed_out=timed_out, duration_s=duration, output=output,
                  lines=found.lines if found else None)
