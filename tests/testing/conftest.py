"""A repo with its own virtual environment: the one place its dependency is installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ALERTS = '''"""Frost alerts for the greenhouse controller."""

from tempconv import c_to_f

FREEZING_F = 32.0


def is_freezing(celsius: float) -> bool:
    """True at or below the freezing point of water."""
    return c_to_f(celsius) < FREEZING_F


def alert(celsius: float) -> str:
    return "frost" if is_freezing(celsius) else "ok"
'''

TESTS = '''from thermo.alerts import alert, is_freezing


def test_zero_is_freezing():
    assert is_freezing(0.0)


def test_below_zero():
    assert is_freezing(-4.5)


def test_warm_day():
    assert not is_freezing(21.0)


def test_alert_text():
    assert alert(0.0) == "frost"
'''

TEMPCONV = '''"""Temperature conversions (installed in the project's environment only)."""


def c_to_f(celsius: float) -> float:
    return celsius * 9 / 5 + 32
'''


def write_repo(root: Path) -> Path:
    """The thermo project's files (no environment): a bug in is_freezing (< for <=)."""
    (root / "thermo").mkdir(parents=True, exist_ok=True)
    (root / "thermo" / "__init__.py").write_text("")
    (root / "thermo" / "alerts.py").write_text(ALERTS)
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_alerts.py").write_text(TESTS)
    return root


def make_venv(prefix: Path) -> Path:
    """A virtual environment at ``prefix`` with pytest and the thermo project's ``tempconv``
    dependency (neither importable from codur's environment); returns its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", str(prefix)], check=True)
    python = prefix / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "pytest"],
                   check=True, capture_output=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "tempconv.py").write_text(TEMPCONV)
    return python


@pytest.fixture(scope="module")
def venv_repo(tmp_path_factory) -> Path:
    """The thermo project with its own ``.venv`` (:func:`make_venv`). Built once per module:
    tests restore alerts.py."""
    root = write_repo(tmp_path_factory.mktemp("venv-repo") / "thermo-project")
    make_venv(root / ".venv")
    return root


@pytest.fixture
def fresh_venv_repo(venv_repo: Path):
    """:func:`venv_repo` with its bug, and no run folder from an earlier test."""
    import shutil

    (venv_repo / "thermo" / "alerts.py").write_text(ALERTS)
    shutil.rmtree(venv_repo / ".codur", ignore_errors=True)
    for extra in ("codur.toml", "run_tests.sh"):
        (venv_repo / extra).unlink(missing_ok=True)
    return venv_repo
