"""How the repository's tests are run: the test command, split into interpreter and args.

A pytest command (``python -m pytest ...`` or ``pytest ...``) gets per-test coverage in
fault localization and runs in a warm fork server in the workers; any other command is
run whole, as one test, in a subprocess.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from codur.sandbox.bwrap import allowed_env

RUNTIME_DIR = Path(__file__).parent / "_runtime"
PLUGIN = "codur_repair_plugin"
#: Flags added to every pytest run of a mutant: stop at the first failure, print no
#: traceback, skip assertion rewriting, write no cache into the worker's copy.
FAST_FLAGS = ["-x", "-q", "--tb=no", "--assert=plain", "-p", "no:cacheprovider"]
#: Environment of a run without the installed (auto-loaded) pytest plugins.
NO_PLUGINS = (("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"),)
#: The plugin's file arguments (environment variable -> "in" (read) or "out" (written)).
PLUGIN_FILES = {"CODUR_REPAIR_SELECT": "in", "CODUR_REPAIR_OUT": "out"}


@dataclass(frozen=True)
class TestCommand:
    """A resolved test command.

    ``argv`` is the full command. ``python`` and ``pytest_args`` are set when it is a
    pytest run (``pytest_args`` are the arguments after ``pytest``); otherwise None.
    """

    argv: tuple[str, ...]
    python: str | None = None
    pytest_args: tuple[str, ...] | None = None

    @property
    def is_pytest(self) -> bool:
        return self.pytest_args is not None

    def pytest_argv(self, *extra: str) -> list[str]:
        """``python -m pytest <user args> <extra>`` (only for pytest commands)."""
        assert self.python is not None and self.pytest_args is not None
        return [self.python, "-m", "pytest", *self.pytest_args, *extra]


def default_python(repo: Path) -> str:
    """The repository's own ``.venv`` interpreter if it has one, else the current one."""
    for rel in (".venv/bin/python", "venv/bin/python", ".venv/Scripts/python.exe"):
        if (repo / rel).is_file():
            return str(repo / rel)
    return sys.executable


def is_python(arg: str) -> bool:
    """True if ``arg`` names a Python interpreter (``python3``, ``/x/bin/python``...)."""
    name = Path(arg).name.lower()
    return name.startswith("python") or name in ("py", "py.exe")


def _script_python(script: str) -> str:
    path = shutil.which(script)
    if path:
        try:
            first = Path(path).read_text(errors="replace").splitlines()[0]
        except (OSError, IndexError):
            first = ""
        if first.startswith("#!") and is_python(first[2:].strip().split()[0]):
            return first[2:].strip().split()[0]
    return sys.executable


def resolve(repo: Path, test_cmd: list[str] | None) -> TestCommand:
    """Resolve ``test_cmd`` (argv list; None means ``python -m pytest``) for ``repo``.

    A bare ``python`` is replaced by :func:`default_python`. Raises ValueError on an
    empty command.
    """
    if test_cmd is None:
        python = default_python(repo)
        return TestCommand((python, "-m", "pytest"), python, ())
    argv = list(test_cmd)
    if not argv:
        raise ValueError("empty test command")
    if argv[0] in ("python", "python3"):
        argv[0] = default_python(repo)
    if is_python(argv[0]) and argv[1:3] == ["-m", "pytest"]:
        return TestCommand(tuple(argv), argv[0], tuple(argv[3:]))
    if Path(argv[0]).name in ("pytest", "py.test"):
        python = _script_python(argv[0])
        return TestCommand(tuple(argv), python, tuple(argv[1:]))
    return TestCommand(tuple(argv))


def plugin_env(**values: str) -> dict[str, str]:
    """Environment for a test process that loads the repair pytest plugin: codur's own
    variables through the allowlist (:func:`codur.sandbox.bwrap.allowed_env`), the plugin's
    folder on PYTHONPATH, no bytecode, then ``values``."""
    env = allowed_env()
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(RUNTIME_DIR), env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(values)
    return env
