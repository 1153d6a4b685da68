"""How the repository's tests are run: one interpreter rule and one test command for every
run of the repo's code (observe, verify, the ``run_pytest`` tool, fault localization, the
candidate evaluator, entry points).

The interpreter (:func:`find_interpreter`), first found:

1. an activated environment, wherever it lies: ``$VIRTUAL_ENV``, then ``$CONDA_PREFIX``
   (not codur's own environment, which is the active one when codur is started from its own
   venv, nor conda's base environment);
2. ``$UV_PROJECT_ENVIRONMENT`` in a uv project (``uv.lock``), relative to the repo or absolute;
3. the repo's ``.venv`` or ``venv``, a folder or a link to one elsewhere;
4. a poetry project (``poetry.lock``): the environment poetry made for it in its cache
   (:func:`poetry_env`, read from files: ``poetry`` is not run);
5. codur's own interpreter.

No tool of the project's is run to find it (``uv run`` and ``poetry env info`` build or load
the project, and a repo may ship its own build backend, ``backend-path = ["."]``): uv's
environment is the project's ``.venv`` or ``$UV_PROJECT_ENVIRONMENT``, poetry's is found
where poetry names it.

An activated environment comes first because activating one is the user saying which to
use; the sandbox sees every one of them (:mod:`codur.sandbox.interpreter`).

The test command (:func:`resolve`) is the configured ``test_command`` when there is one
(``codur.toml`` / ``[tool.codur]`` / ``CODUR_TEST_COMMAND`` / ``--test-cmd``), its bare
``python`` or ``pytest`` taken from that interpreter's environment, else
``<interpreter> -m pytest``. A pytest command (``python -m pytest ...`` or ``pytest ...``)
gets per-test coverage in fault localization and runs in a warm fork server in the
workers; any other command (``make test``, ``python -m unittest``) is run whole, as one
test, in a subprocess. A command ending in ``--`` (``tox -e py311 --``) passes pytest's
options through: its runs report each test.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from codur.sandbox.bwrap import allowed_env
from codur.testing.ids import file_of

RUNTIME_DIR = Path(__file__).parent / "_runtime"
PLUGIN = "codur_repair_plugin"
#: Flags added to every pytest run of a mutant: stop at the first failure, print no
#: traceback, skip assertion rewriting, write no cache into the worker's copy.
FAST_FLAGS = ["-x", "-q", "--tb=no", "--assert=plain", "-p", "no:cacheprovider"]
#: Flags of the probe, the failing tests run with a report: every test runs, and assertions
#: are rewritten, so a failure's message holds the values compared (the feedback of
#: conversational sampling).
PROBE_FLAGS = ["-q", "--tb=no", "-p", "no:cacheprovider"]
#: Environment of a run without the installed (auto-loaded) pytest plugins.
NO_PLUGINS = (("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"),)
#: The plugin's file arguments (environment variable -> "in" (read) or "out" (written)).
PLUGIN_FILES = {"CODUR_REPAIR_SELECT": "in", "CODUR_REPAIR_TEST_LIMITS": "in", "CODUR_REPAIR_OUT": "out",
                "CODUR_REPAIR_COLLECT": "out"}
#: Per-test time limit, seconds, of a test run with no baseline to scale from (observe, verify,
#: the ``run_pytest`` tool, localization): a test running longer fails with a TimeoutError
#: raised inside it (the repair plugin's SIGALRM), its traceback pointing into the loop.
TEST_TIMEOUT_S = 10.0
#: Wrappers that run a command in the project's environment: the interpreter rule finds
#: that environment anyway, so ``uv run pytest -x`` runs as ``<its python> -m pytest -x``.
ENV_RUNNERS = (("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run"))


class TestCommandError(ValueError):
    """A test command that cannot run: empty, or its program is not found."""

    __test__ = False


@dataclass(frozen=True)
class TestCommand:
    """A resolved test command.

    Attributes:
        argv: the full command.
        python: the interpreter of a ``python -m pytest``-able command (the fork server's);
            None for other commands.
        pytest_args: the arguments after ``pytest`` for such a command; None otherwise.
        interpreter: the repo's interpreter (entry points and ``run_python_file`` use it).
        origin: where the command came from: ``test_command`` or the interpreter rule's step
            (``$VIRTUAL_ENV``, ``$CONDA_PREFIX``, ``$UV_PROJECT_ENVIRONMENT``, ``.venv``,
            ``venv``, ``uv``, ``poetry``, ``codur's interpreter``).
        passes_args: pytest options may be appended (a pytest command, or one ending in ``--``).
    """

    __test__ = False

    argv: tuple[str, ...]
    python: str | None = None
    pytest_args: tuple[str, ...] | None = None
    interpreter: str = sys.executable
    origin: str = "codur's interpreter"
    passes_args: bool = False

    @property
    def is_pytest(self) -> bool:
        return self.pytest_args is not None

    def run_argv(self, repo: Path, extra: list[str], selection: list[str] | None = None) -> list[str]:
        """The command with pytest's ``extra`` options and a ``selection`` of test ids or paths
        (which replaces the command's own path arguments), when the command takes them; else the
        command as configured."""
        if not self.passes_args:
            return list(self.argv)
        own = list(self.pytest_args) if self.pytest_args is not None else []
        if selection:
            own = [a for a in own if a.startswith("-") or not (repo / file_of(a)).exists()]
        if self.pytest_args is not None:
            assert self.python is not None
            return [self.python, "-m", "pytest", *own, *extra, *(selection or [])]
        return [*self.argv, *extra, *(selection or [])]

    def describe(self, repo: Path) -> str:
        """One line for the user: ``.venv/bin/python -m pytest (.venv)``, paths relative to ``repo``."""
        def short(arg: str) -> str:
            try:
                return Path(arg).relative_to(repo).as_posix() if os.path.isabs(arg) else arg
            except ValueError:
                return arg
        return f"{shlex.join(short(a) for a in self.argv)} ({self.origin})"


def _python_in(prefix: Path) -> Path | None:
    for rel in ("bin/python", "Scripts/python.exe"):
        if (prefix / rel).is_file():
            return prefix / rel
    return None


def poetry_env(repo: Path) -> Path | None:
    """The environment poetry made for the project ``repo`` (resolved) in its cache, read from
    files as poetry names it (``poetry.utils.env.EnvManager.generate_env_name``):
    ``<virtualenvs>/<name>-<hash>-py<X.Y>``, ``<name>`` the project's name (``[tool.poetry]`` or
    ``[project]``) with spaces and shell characters as ``_``, cut to 42 characters, lower case,
    ``<hash>`` the first 8 characters of the URL-safe base64 of the SHA-256 of the project's
    path; ``<virtualenvs>`` is ``$POETRY_VIRTUALENVS_PATH``, else ``$POETRY_CACHE_DIR/virtualenvs``,
    else ``~/.cache/pypoetry/virtualenvs`` (``$XDG_CACHE_HOME`` honoured). The newest Python's
    when there are several; None when there is none."""
    import base64
    import glob
    import hashlib
    import re
    import tomllib

    try:
        data = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("tool", {}).get("poetry", {}).get("name") or data.get("project", {}).get("name")
    if not isinstance(name, str) or not name:
        return None
    name = re.sub(r'[ $`!*@"\\\r\n\t]', "_", name.lower())[:42]
    digest = base64.urlsafe_b64encode(hashlib.sha256(os.path.normcase(str(repo)).encode()).digest()).decode()[:8]
    cache = os.environ.get("POETRY_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pypoetry")
    base = Path(os.environ.get("POETRY_VIRTUALENVS_PATH") or os.path.join(cache, "virtualenvs"))
    found = sorted(base.glob(f"{glob.escape(name)}-{glob.escape(digest)}-py*"),
                   key=lambda p: tuple(int(x) for x in re.findall(r"\d+", p.name.rsplit("-py", 1)[1])))
    return found[-1] if found else None


def find_interpreter(repo: Path) -> tuple[str, str]:
    """The repo's interpreter by the module's rule, as (path, origin). The path is as found
    (a linked ``.venv`` is not resolved): the sandbox binds what it links to
    (:func:`codur.sandbox.interpreter.interpreter_paths`)."""
    repo = Path(repo).resolve()
    if active := _activated():
        return str(active[1]), active[0]
    uv_env = os.environ.get("UV_PROJECT_ENVIRONMENT")
    if uv_env and (repo / "uv.lock").is_file() and (python := _python_in(repo / uv_env)):
        return str(python), "$UV_PROJECT_ENVIRONMENT"
    for name in (".venv", "venv"):
        if python := _python_in(repo / name):
            return str(python), name
    if (repo / "poetry.lock").is_file() and (found := poetry_env(repo)) and (python := _python_in(found)):
        return str(python), "poetry"
    return sys.executable, "codur's interpreter"


def _activated() -> tuple[str, Path] | None:
    """The innermost activated environment, as (variable, interpreter): ``$VIRTUAL_ENV``,
    else ``$CONDA_PREFIX``; neither when it is codur's own environment (``sys.prefix``, or the
    base ``sys.base_prefix`` codur's venv was made from), nor conda's base environment (active
    in every shell by default: it says nothing about the project)."""
    own = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        value = os.environ.get(variable, "")
        if not value or not os.path.isabs(value) or Path(value).resolve() in own:
            continue
        if variable == "CONDA_PREFIX" and (os.environ.get("CONDA_DEFAULT_ENV") == "base"
                                           or (Path(value) / "condabin").is_dir()):
            continue
        if python := _python_in(Path(value)):
            return f"${variable}", python
    return None


def default_python(repo: Path) -> str:
    """The repo's interpreter (:func:`find_interpreter`)."""
    return find_interpreter(repo)[0]


def is_python(arg: str) -> bool:
    """True if ``arg`` names a Python interpreter (``python3``, ``/x/bin/python``...)."""
    name = Path(arg).name.lower()
    return name.startswith("python") or name in ("py", "py.exe")


def _script_python(script: str, fallback: str) -> str:
    """The interpreter of a console script (its ``#!`` line), else ``fallback``."""
    try:
        first = Path(script).read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        first = ""
    if first.startswith("#!") and first[2:].strip() and is_python(first[2:].strip().split()[0]):
        return first[2:].strip().split()[0]
    return fallback


def _program(repo: Path, arg: str, python: str) -> str:
    """Where ``arg`` (a command's first word) is: the interpreter's environment first (``pytest``
    → ``.venv/bin/pytest``), then a path relative to the repo, then PATH. Raises
    TestCommandError when it is nowhere."""
    if arg in ("python", "python3"):
        return python
    if "/" not in arg:
        local = Path(python).parent / arg
        if local.is_file() and os.access(local, os.X_OK):
            return str(local)
        found = shutil.which(arg)
    else:
        path = Path(arg) if os.path.isabs(arg) else repo / arg
        found = str(path) if path.is_file() and os.access(path, os.X_OK) else None
    if found is None:
        raise TestCommandError(f"command not found: {arg}")
    return found


def resolve(repo: Path, test_cmd: list[str] | str | None = None) -> TestCommand:
    """The test command of ``repo``: ``test_cmd`` (an argv list, or one string split like a
    shell would) when given, else ``<interpreter> -m pytest`` (see the module doc).

    Raises:
        TestCommandError: an empty command, or a program that is not found.
    """
    repo = Path(repo).resolve()
    python, origin = find_interpreter(repo)
    if test_cmd is None:
        return TestCommand((python, "-m", "pytest"), python, (), python, origin, True)
    argv = shlex.split(test_cmd) if isinstance(test_cmd, str) else list(test_cmd)
    for runner in ENV_RUNNERS:
        if tuple(argv[:2]) == runner:
            argv = argv[2:]
            while argv and argv[0].startswith("-"):  # the runner's own options (--frozen...)
                argv = argv[1:]
    if not argv or not argv[0]:
        raise TestCommandError("empty test command")
    argv[0] = _program(repo, argv[0], python)
    base = TestCommand(tuple(argv), interpreter=python, origin="test_command")
    if is_python(argv[0]) and argv[1:3] == ["-m", "pytest"]:
        return replace(base, python=argv[0], pytest_args=tuple(argv[3:]), interpreter=argv[0], passes_args=True)
    if Path(argv[0]).name in ("pytest", "py.test"):
        script_python = _script_python(argv[0], python)
        return replace(base, python=script_python, pytest_args=tuple(argv[1:]), passes_args=True)
    return replace(base, passes_args=argv[-1] == "--")


#: pytest plugins that codur's own dependencies install: langsmith's imports ~1.8 s of client
#: code into every test process. They are turned off when the tests run on codur's own
#: interpreter (a repo with no environment of its own), whose packages are not the repo's;
#: a repo's own environment keeps every plugin it has.
OWN_PLUGINS = ("langsmith_plugin",)


def own_plugins_off(python: str | None) -> dict[str, str]:
    """``{"PYTEST_ADDOPTS": "... -p no:<plugin>"}`` for the :data:`OWN_PLUGINS` when ``python``
    is codur's own interpreter; {} for any other (the repo's plugins are the repo's business).
    A ``PYTEST_ADDOPTS`` of codur's environment is kept in front."""
    if not python or not _is_own(python):
        return {}
    off = " ".join(f"-p no:{name}" for name in OWN_PLUGINS)
    return {"PYTEST_ADDOPTS": " ".join(filter(None, [os.environ.get("PYTEST_ADDOPTS", ""), off]))}


def _is_own(python: str) -> bool:
    """The same interpreter path as codur's (symlinks not followed: a repo's venv made from the
    same base Python links to the same binary, and its plugins are the repo's)."""
    return os.path.abspath(python) == os.path.abspath(sys.executable)


def plugin_env(python: str | None = None, **values: str) -> dict[str, str]:
    """Environment for a test process that loads the repair pytest plugin: codur's own
    variables through the allowlist (:func:`codur.sandbox.bwrap.allowed_env`), the plugin's
    folder on PYTHONPATH, no bytecode, codur's own pytest plugins off when ``python`` (the test
    interpreter) is codur's (:func:`own_plugins_off`), then ``values``."""
    env = allowed_env() | own_plugins_off(python)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(RUNTIME_DIR), env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(values)
    return env
