"""Issue 35: the project's interpreter wherever it lives, inside the sandbox.

A venv under ``~/.cache`` (poetry's, uv's, a ``.venv`` that links there), one reached by a
link in the home (virtualenvwrapper's ``~/.virtualenvs``), an activated ``$VIRTUAL_ENV``
outside the repo: each is found by the interpreter rule and starts under bubblewrap,
whose empty tmpfs over ``$HOME`` hides all of them unless they are bound back. Everything
here is real: venvs made by ``python -m venv``, poetry and uv, the sandbox on, and a fake
``$HOME`` outside /tmp (a home under /tmp is private anyway and would prove nothing).
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

from codur.sandbox.bwrap import bwrap_problem, private_home
from codur.testing.command import find_interpreter, resolve
from codur.tools import ToolExecutor
from tests.testing.conftest import ALERTS, make_venv, write_repo
from tests.testing.test_own_environment import TASK, codur, events

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")
#: Variables that would choose an environment or a cache folder other than the test's.
CHOOSERS = ("VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "UV_PROJECT_ENVIRONMENT", "XDG_CACHE_HOME",
            "XDG_CONFIG_HOME", "XDG_DATA_HOME", "POETRY_VIRTUALENVS_IN_PROJECT", "POETRY_VIRTUALENVS_PATH")
PREFIX = "import sys; print('prefix', sys.prefix)\n"


@pytest.fixture(scope="module")
def home() -> Iterator[Path]:
    """A fake ``$HOME`` under /var/tmp, which the sandbox hides behind an empty tmpfs; removed
    after the module."""
    path = Path(tempfile.mkdtemp(prefix="codur-home-", dir="/var/tmp")).resolve()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(path))
        for name in CHOOSERS:
            mp.delenv(name, raising=False)
        mp.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # uv, poetry
        assert private_home() == path
        yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def venv(home: Path) -> Path:
    """The thermo project's environment under ``~/.cache/venvs`` (pytest and ``tempconv`` in it),
    and ``~/.virtualenvs/thermo`` a link to it; returns the link."""
    prefix = home / ".cache" / "venvs" / "thermo"
    make_venv(prefix)
    (home / ".virtualenvs").mkdir()
    (home / ".virtualenvs" / "thermo").symlink_to(prefix)
    return home / ".virtualenvs" / "thermo"


def run_here(repo: Path, code: str = PREFIX) -> str:
    """The output of ``code`` run by the repo's interpreter (the ``run_python_file`` tool: under bwrap)."""
    (repo / "where.py").write_text(code)
    return ToolExecutor(repo).execute("run_python_file", {"path": "where.py"}).output


def test_a_dot_venv_linked_out_of_the_repo_runs_in_the_sandbox(venv: Path, tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "linked")
    (repo / ".venv").symlink_to(venv.resolve())  # the measured failure: bwrap: execvp .venv/bin/python
    assert find_interpreter(repo) == (str(repo / ".venv" / "bin" / "python"), ".venv")
    assert f"prefix {repo / '.venv'}" in run_here(repo)
    out = ToolExecutor(repo).execute("run_pytest", {}).output
    assert "2 passed, 2 failed" in out and "tempconv" not in out, out  # the dependency imports: the venv's


def test_an_activated_venv_outside_the_repo_is_used_and_seen(venv: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_repo(tmp_path / "plain")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))  # ~/.virtualenvs/thermo: a link in the hidden home
    assert find_interpreter(repo) == (str(venv / "bin" / "python"), "$VIRTUAL_ENV")
    assert f"prefix {venv}" in run_here(repo)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # codur's own venv, active when codur runs from it
    assert find_interpreter(repo) == (sys.executable, "codur's interpreter")


def test_poetrys_environment_in_its_cache_runs_in_the_sandbox(home: Path, tmp_path: Path) -> None:
    poetry = shutil.which("poetry")
    if poetry is None:
        pytest.skip("poetry is not installed (the dev extra has it)")
    repo = tmp_path / "poetryproj"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "poetryproj"\nversion = "0.1.0"\n'
                                         'requires-python = ">=3.11"\ndependencies = []\n\n'
                                         '[tool.poetry]\npackage-mode = false\n')
    env = {**os.environ, "POETRY_VIRTUALENVS_USE_POETRY_PYTHON": "true"}
    for step in (["lock"], ["install", "--no-interaction"]):
        done = subprocess.run([poetry, *step], cwd=repo, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    python, origin = find_interpreter(repo)
    prefix = Path(python).parent.parent
    assert origin == "poetry" and prefix.is_relative_to(home / ".cache" / "pypoetry" / "virtualenvs")
    assert f"prefix {prefix}" in run_here(repo)


def test_uvs_project_environment_outside_the_repo_runs_in_the_sandbox(home: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    uv = shutil.which("uv")
    assert uv is not None, "uv is a dev dependency"
    repo = tmp_path / "uvproj"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "uvproj"\nversion = "0.1.0"\n'
                                         'requires-python = ">=3.11"\ndependencies = []\n')
    subprocess.run([uv, "lock", "--offline", "--quiet"], cwd=repo, check=True, capture_output=True)
    prefix = home / ".cache" / "uv-envs" / "uvproj"
    monkeypatch.setenv("UV_PROJECT_ENVIRONMENT", str(prefix))
    subprocess.run([uv, "sync", "--offline", "--quiet"], cwd=repo, check=True, capture_output=True)  # the user's
    assert find_interpreter(repo) == (str(prefix / "bin" / "python"), "$UV_PROJECT_ENVIRONMENT")
    assert f"prefix {prefix}" in run_here(repo)
    assert not (repo / ".venv").exists()


def test_an_interpreter_the_sandbox_cannot_see_is_named_with_the_fix(home: Path, tmp_path: Path) -> None:
    """A test script in the home whose ``#!`` interpreter lies elsewhere in the home: bwrap
    cannot start it, and the error says which path and which settings fix it."""
    hidden_python = home / "elsewhere" / "bin" / "python3"
    hidden_python.parent.mkdir(parents=True)
    hidden_python.symlink_to(sys.executable)
    script = home / "tools" / "bin" / "run-tests"
    script.parent.mkdir(parents=True)
    script.write_text(f"#!{hidden_python}\nprint('ran')\n")
    script.chmod(0o755)
    repo = write_repo(tmp_path / "scripted")
    ex = ToolExecutor(repo)
    ex.ctx.test_command = resolve(repo, [str(script)])
    out = ex.execute("run_pytest", {}).output
    assert f"the sandbox could not see {script}" in out and "CODUR_SANDBOX=off" in out, out
    assert "test_command" in out


def fixed(repo: Path, env: dict[str, str]) -> None:
    """``codur TASK --repo`` (mutation search, no model) with the sandbox on ends in success
    and fixes thermo's off-by-one."""
    proc = codur(TASK, "--repo", str(repo), "--json", env=env)
    seen = events(proc.stdout)
    assert not [e for e in seen if e["event_type"] == "sandbox.fallback"]
    result = seen[-1]
    assert (proc.returncode, result["status"], result["reason"]) == (0, "success", "verified"), \
        proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "c_to_f(celsius) <= FREEZING_F" in (repo / "thermo" / "alerts.py").read_text()


def test_a_repo_in_the_home_whose_venv_links_out_is_fixed_end_to_end(venv: Path, home: Path) -> None:
    repo = write_repo(home / "projects" / "thermo")
    (repo / ".venv").symlink_to(venv.resolve())
    assert (repo / "thermo" / "alerts.py").read_text() == ALERTS
    fixed(repo, {"HOME": str(home)})


def test_a_repo_whose_only_environment_is_an_activated_venv_is_fixed_end_to_end(venv: Path, home: Path,
                                                                                tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "thermo")
    fixed(repo, {"HOME": str(home), "VIRTUAL_ENV": str(venv)})
