"""The one interpreter rule and test command (codur.testing.command)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from codur.testing.command import OWN_PLUGINS, TestCommandError, find_interpreter, own_plugins_off, resolve
from codur.testing.report import records_of, run_of, setup_problem


def env(root: Path, name: str, *scripts: str) -> Path:
    """A virtual environment's layout: bin/python (and scripts with its #! line)."""
    bin_dir = root / name / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text("")
    python.chmod(0o755)
    for script in scripts:
        (bin_dir / script).write_text(f"#!{python}\nimport sys\n")
        (bin_dir / script).chmod(0o755)
    return python


def test_the_interpreter_rule_in_order(tmp_path, monkeypatch):
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "UV_PROJECT_ENVIRONMENT"):
        monkeypatch.delenv(name, raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    assert find_interpreter(repo) == (sys.executable, "codur's interpreter")
    venv = env(repo, "venv")
    assert find_interpreter(repo) == (str(venv), "venv")
    dot = env(repo, ".venv")
    assert find_interpreter(repo) == (str(dot), ".venv")  # .venv before venv
    active = env(repo, "envs/py311")
    monkeypatch.setenv("VIRTUAL_ENV", str(active.parent.parent))
    assert find_interpreter(repo) == (str(active), "$VIRTUAL_ENV")
    outside = env(tmp_path, "elsewhere")
    monkeypatch.setenv("VIRTUAL_ENV", str(outside.parent.parent))  # activated anywhere: the user's choice
    assert find_interpreter(repo) == (str(outside), "$VIRTUAL_ENV")
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)  # codur's own venv, active when it runs from it: not the repo's
    assert find_interpreter(repo) == (str(dot), ".venv")
    conda = env(tmp_path, "conda/envs/proj")
    monkeypatch.setenv("CONDA_PREFIX", str(conda.parent.parent))
    assert find_interpreter(repo) == (str(conda), "$CONDA_PREFIX")
    monkeypatch.setenv("CONDA_DEFAULT_ENV", "base")  # conda's base env, active in every shell: not a choice
    assert find_interpreter(repo) == (str(dot), ".venv")


def test_resolve_takes_python_and_pytest_from_the_repos_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    repo = tmp_path / "repo"
    (repo / "tests" / "unit").mkdir(parents=True)
    python = env(repo, ".venv", "pytest")
    default = resolve(repo)
    assert default.argv == (str(python), "-m", "pytest") and default.is_pytest and default.origin == ".venv"
    assert default.describe(repo) == ".venv/bin/python -m pytest (.venv)"
    cmd = resolve(repo, "pytest tests/unit -x")
    assert cmd.argv[0] == str(repo / ".venv/bin/pytest") and cmd.python == str(python)
    assert cmd.pytest_args == ("tests/unit", "-x") and cmd.origin == "test_command"
    # a selection replaces the command's own test paths, keeps its options
    assert cmd.run_argv(repo, ["-q"], ["tests/unit/test_a.py::test_b"]) == [
        str(python), "-m", "pytest", "-x", "-q", "tests/unit/test_a.py::test_b"]
    assert resolve(repo, ["python", "-m", "pytest", "-q"]).pytest_args == ("-q",)
    assert resolve(repo, "uv run --frozen pytest -x").pytest_args == ("-x",)  # the env runner is the rule's


def test_other_commands_run_whole_or_pass_pytest_options_through(tmp_path, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    python = env(repo, ".venv")
    unittest = resolve(repo, "python -m unittest discover")
    assert unittest.argv == (str(python), "-m", "unittest", "discover") and not unittest.is_pytest
    assert unittest.run_argv(repo, ["-q"], ["x"]) == list(unittest.argv) and not unittest.passes_args
    assert unittest.interpreter == str(python)
    tox = resolve(repo, ["sh", "-c", "exit 0", "--"])  # `tox -e py311 --` style: options pass through
    assert tox.passes_args and not tox.is_pytest
    assert tox.run_argv(repo, ["-q"], ["tests/t.py"])[-2:] == ["-q", "tests/t.py"]


def test_a_uv_project_uses_the_environment_the_user_made_and_makes_none(tmp_path, monkeypatch):
    """Issue 52: codur runs no ``uv run`` to find a uv project's interpreter (it builds the
    project); the environment is the project's ``.venv`` once the user made it (``uv sync``)."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    uv = Path(sys.executable).with_name("uv")  # the dev extra's
    assert uv.is_file(), "uv is a dev dependency"
    monkeypatch.setenv("PATH", f"{uv.parent}{os.pathsep}{os.environ['PATH']}")
    repo = tmp_path / "uvproj"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "uvproj"\nversion = "0.1.0"\n'
                                         'requires-python = ">=3.11"\ndependencies = []\n')
    subprocess.run([str(uv), "lock", "--offline", "--quiet"], cwd=repo, check=True, capture_output=True)
    assert find_interpreter(repo) == (sys.executable, "codur's interpreter")
    assert not (repo / ".venv").exists()  # nothing of uv's ran
    subprocess.run([str(uv), "sync", "--offline", "--quiet"], cwd=repo, check=True, capture_output=True)
    assert find_interpreter(repo) == (str(repo / ".venv" / "bin" / "python"), ".venv")


@pytest.mark.parametrize("command, message", [("", "empty test command"), ("   ", "empty test command"),
                                              ("pytset -x", "command not found: pytset"),
                                              ("./run.sh", "command not found: ./run.sh")])
def test_a_command_that_cannot_run_is_refused(tmp_path, command, message):
    with pytest.raises(TestCommandError, match=message):
        resolve(tmp_path, command)


def test_setup_problem_tells_a_missing_dependency_from_a_bug(tmp_path):
    (tmp_path / "shop").mkdir()
    cmd = resolve(tmp_path)
    missing = "E   ModuleNotFoundError: No module named 'requests'"
    report = run_of(records_of([], ["tests/test_a.py", "tests/test_b.py::test_x"],
                               {"tests/test_a.py": missing, "tests/test_b.py::test_x": missing}), 2)
    problem = setup_problem(report, cmd, tmp_path)
    assert problem is not None and "No module named 'requests'" in problem and "-m pytest" in problem
    own = "E   ModuleNotFoundError: No module named 'shop.pricing'"  # the repo's own: a bug to fix
    assert setup_problem(run_of(records_of([], ["t::a"], {"t::a": own}), 1), cmd, tmp_path) is None
    partly = run_of(records_of(["t::b"], ["t::a"], {"t::a": missing}), 1)
    assert setup_problem(partly, cmd, tmp_path) is None  # some tests run: the suite started
    usage = run_of(None, 4, output="ERROR: file or directory not found: tests/nope\n")
    assert "exit code 4" in setup_problem(usage, cmd, tmp_path)
    no_pytest = run_of(None, 1, output="/x/python: No module named pytest\n")
    assert "pytest is not installed" in setup_problem(no_pytest, cmd, tmp_path)
    assert setup_problem(run_of(records_of([], ["t::a"], {"t::a": "assert 1 == 2"}), 1), cmd, tmp_path) is None


def test_codurs_own_pytest_plugins_are_off_on_codurs_interpreter_only(tmp_path: Path):
    """langsmith (a dependency of codur's, not of the repo) installs a pytest plugin that imports
    ~1.8 s of client code into every test process: off when the tests run on codur's own
    interpreter, kept for any other."""

    assert own_plugins_off("/opt/other/bin/python") == {}
    # a repo's venv made from the same base Python links to the same binary: still the repo's
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    theirs = tmp_path / "venv" / "bin" / "python"
    assert theirs.exists()
    assert own_plugins_off(str(theirs)) == {}
    env = own_plugins_off(sys.executable)
    assert all(f"-p no:{name}" in env["PYTEST_ADDOPTS"] for name in OWN_PLUGINS)
    (tmp_path / "conftest.py").write_text(
        "def pytest_configure(config):\n"
        "    print('LANGSMITH', config.pluginmanager.has_plugin('langsmith_plugin'))\n")
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert True\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tmp_path,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LANGSMITH False" in done.stdout
