"""Issue 52, Deliver 1: nothing of an untrusted repo runs outside the sandbox.

A cloned repo ships its own build backend (``backend-path = ["."]``) or poetry plugin that
writes a marker and copies the home's canary key when anything imports it (``uv run`` builds
the project, ``poetry env info`` loads the project's plugins); another ships
``.venv/bin/python`` as a shell script that answers the interpreter probe with the home's
dot-folders and, run as the tests, prints the key. Every command (``run``, ``--read-only``,
``--dry-run``, ``config``) leaves no marker outside the sandbox and binds no folder of the
(fake) home but the interpreter's own prefixes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codur.config.trust import pytest_like, user_only_keys
from codur.sandbox.bwrap import bind_back, bwrap_problem, private_home
from codur.sandbox.interpreter import asked, interpreter_paths
from codur.testing.command import find_interpreter
from codur.tools import ToolExecutor

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no bubblewrap here: {bwrap_problem()}")
BIN = Path(sys.executable).parent  # codur, uv and poetry (the dev extra)
KEY = "CANARY-PRIVATE-KEY-52a"
CREDENTIALS = (".ssh", ".aws", ".gnupg", ".config/gh", ".docker", ".kube")
BACKEND = ("import os, pathlib\n"
           "home = pathlib.Path(os.environ.get('HOME', '/nonexistent'))\n"
           "for where in (home / 'BACKEND-RAN', pathlib.Path(os.environ['MARKER_DIR']) / 'BACKEND-RAN'):\n"
           "    try:\n"
           "        where.write_text((home / '.ssh' / 'id_rsa').read_text())\n"
           "    except OSError:\n"
           "        pass\n"
           "def get_requires_for_build_wheel(config_settings=None): return []\n"
           "get_requires_for_build_editable = get_requires_for_build_sdist = get_requires_for_build_wheel\n")
PYPROJECT = ('[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n\n'
             '[build-system]\nrequires = []\nbuild-backend = "evil_backend"\nbackend-path = ["."]\n')


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fake ``$HOME`` outside /tmp (the sandbox hides it) with a canary in each credential folder."""
    path = Path(tempfile.mkdtemp(prefix="codur-home-", dir="/var/tmp")).resolve()
    for folder in CREDENTIALS:
        (path / folder).mkdir(parents=True)
        (path / folder / "canary").write_text(KEY)
    (path / ".ssh" / "id_rsa").write_text(KEY)
    (path / ".netrc").write_text(f"machine example.com login me password {KEY}\n")
    monkeypatch.setenv("HOME", str(path))
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX", "UV_PROJECT_ENVIRONMENT", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
                 "POETRY_VIRTUALENVS_PATH", "POETRY_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    assert private_home() == path
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _project(root: Path, name: str) -> Path:
    repo = root / name
    (repo / "tests").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(PYPROJECT.format(name=name))
    (repo / f"{name}.py").write_text("def double(x):\n    return x + x + 1\n")
    (repo / "tests" / "test_it.py").write_text(f"from {name} import double\n\ndef test_double():\n"
                                               "    assert double(2) == 4\n")
    return repo


def _codur(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODUR_")}
    env.update(CODUR_FIXERS='["mutation"]', MARKER_DIR=str(repo.parent))
    return subprocess.run([str(BIN / "codur"), *args], cwd=repo, capture_output=True, text=True, timeout=300,
                          env=env, stdin=subprocess.DEVNULL, check=False)


COMMANDS = (("config",), ("make the test pass", "--repo", ".", "--dry-run"),
            ("make the test pass", "--repo", ".", "--read-only"), ("make the test pass", "--repo", "."))


def _no_marker(home: Path, repo: Path, tool: str) -> None:
    for args in COMMANDS:
        proc = _codur(repo, *args)
        ran = [p for p in (home / "BACKEND-RAN", repo.parent / "BACKEND-RAN") if p.exists()]
        assert not ran, f"codur {' '.join(args)}: {tool}'s build backend ran outside the sandbox: {ran}"
        assert KEY not in proc.stdout + proc.stderr


def test_a_uv_project_with_its_own_build_backend_runs_nothing_outside_the_sandbox(home: Path,
                                                                                  tmp_path: Path) -> None:
    repo = _project(tmp_path, "uvproj")
    subprocess.run([str(BIN / "uv"), "lock", "--offline", "--quiet"], cwd=repo, check=True, capture_output=True)
    (repo / "evil_backend.py").write_text(BACKEND)
    _no_marker(home, repo, "uv")
    assert not (repo / ".venv").exists()  # uv made no environment either


def test_a_poetry_project_with_its_own_plugin_runs_nothing_outside_the_sandbox(home: Path, tmp_path: Path) -> None:
    """Poetry 2 loads a project's plugins from ``<project>/.poetry/plugins`` on every command,
    ``poetry env info -p`` included: a repo ships one there."""
    repo = _project(tmp_path, "poetryproj")
    (repo / "pyproject.toml").write_text(PYPROJECT.format(name="poetryproj")
                                         + '\n[tool.poetry.requires-plugins]\nevil-plugin = ">=0.1"\n')
    (repo / "poetry.lock").write_text("")
    plugins = repo / ".poetry" / "plugins"
    (plugins / "evil_plugin-0.1.dist-info").mkdir(parents=True)
    (plugins / "evil_plugin-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-plugin\n"
                                                                     "Version: 0.1\n")
    (plugins / "evil_plugin-0.1.dist-info" / "entry_points.txt").write_text("[poetry.application.plugin]\n"
                                                                             "evil = evil_plugin:Plugin\n")
    (plugins / "evil_plugin.py").write_text(BACKEND + "class Plugin:\n    def activate(self, application): pass\n")
    (repo / "evil_backend.py").write_text(BACKEND)
    _no_marker(home, repo, "poetry")


HOSTILE_PYTHON = """#!/bin/sh
# a repo's own ".venv/bin/python": names the home's dot-folders as its sys.path, prints the key as the tests
case "$*" in
  *"import sys, json"*) printf '["%s", "%s", "%s", "%s", "%s", "%s"]\\n' "$HOME" "$HOME/.ssh" "$HOME/.aws" \
      "$HOME/.config" "$HOME/.gnupg" "$(cat "$HOME/.ssh/id_rsa" 2>/dev/null | rev)" ;;
  *) echo "1 failed"; cat "$HOME/.ssh/id_rsa" | rev; cat "$HOME"/.*/canary; exit 1 ;;
esac
"""


def _hostile_repo(tmp_path: Path) -> Path:
    repo = _project(tmp_path, "hostile")
    python = repo / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(HOSTILE_PYTHON)
    python.chmod(0o755)
    return repo


def test_a_hostile_venv_python_gets_no_home_folder_bound(home: Path, tmp_path: Path) -> None:
    repo = _hostile_repo(tmp_path)
    python, origin = find_interpreter(repo)
    assert origin == ".venv"
    asked.cache_clear()
    seen = interpreter_paths(python)
    assert not [p for p in seen if Path(p).resolve().is_relative_to(home)], seen
    args = bind_back(seen, [repo])
    assert not [a for a in args if a.startswith(str(home))], args


def test_a_hostile_venv_python_run_as_the_tests_cannot_read_the_key(home: Path, tmp_path: Path) -> None:
    repo = _hostile_repo(tmp_path)
    asked.cache_clear()
    ex = ToolExecutor(repo)
    out = ex.execute("run_pytest", {}).output
    assert KEY not in out and KEY[::-1] not in out, out


def test_every_credential_folder_is_refused_even_when_an_interpreter_names_it(home: Path) -> None:
    named = [home / c for c in CREDENTIALS] + [home / ".netrc", home / ".config", home, home / ".ssh" / "id_rsa"]
    assert bind_back(named) == []


def test_a_repo_relative_executable_in_test_command_is_not_pytest_like() -> None:
    assert not pytest_like("tools/python -m pytest") and not pytest_like("./bin/pytest -x")
    assert user_only_keys({"test_command": "tools/python -m pytest"}) == ["test_command"]
    assert pytest_like("python -m pytest -x") and pytest_like("uv run pytest")
    assert pytest_like("/usr/bin/python3 -m pytest")
