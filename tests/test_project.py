"""Promises the project makes about itself: CI runs README's test command verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```bash\n(python3 -m venv[^\n]*)\n```", readme)
    test_command = next(c for c in commands if "pytest" in c)
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_readme_demo_runs_on_a_copy_of_an_example():
    readme = (ROOT / "README.md").read_text()
    demo = next(c for c in re.findall(r"```bash\n(python3 -m venv[^\n]*)\n```", readme) if "codur \"" in c)
    example = re.search(r"cp -r (examples/\w+) (\S+)", demo)
    assert example and (ROOT / example.group(1)).is_dir()
    assert f"--repo {example.group(2)}" in demo
