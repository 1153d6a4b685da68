"""Issue 36, item 4: the code codur runs in the sandbox does not see the repo's ``.env`` (nor
other credential files at its top or one folder down) unless ``allow_secrets``."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.sandbox.bwrap import bwrap_problem
from codur.tools import ToolExecutor, ToolSettings

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no bubblewrap here: {bwrap_problem()}")

PEEK = ("from pathlib import Path\nfor name in ('.env', 'config/.env.local', 'settings.py'):\n"
        "    print(name, repr(Path(name).read_text()))\n")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / ".env").write_text("PAYMENT_TOKEN=tok_live_fake123\n")
    (repo / "config" / ".env.local").write_text("DB_PASSWORD=hunter2-fake\n")
    (repo / "settings.py").write_text("DEBUG = True\n")
    (repo / "peek.py").write_text(PEEK)
    return repo


def test_agent_run_code_reads_the_repo_env_as_empty(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = ToolExecutor(repo).execute("run_python_file", {"path": "peek.py"}).output
    assert ".env ''" in out and "config/.env.local ''" in out and "settings.py 'DEBUG = True\\n'" in out, out
    assert (repo / ".env").read_text() == "PAYMENT_TOKEN=tok_live_fake123\n"  # the file itself is untouched


def test_allow_secrets_shows_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = ToolExecutor(repo, ToolSettings(allow_secrets=True)).execute("run_python_file", {"path": "peek.py"}).output
    assert "tok_live_fake123" in out, out
