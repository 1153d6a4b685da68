"""Repair's test runs are confined (issue 12): no writes outside the worker's copy, no
process left behind (setsid too), no secret from codur's environment."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from codur.sandbox.bwrap import bwrap_problem
from codur.testing import command as testcmd
from codur.validate.localize import localize_faults

from .conftest import OFF_BY_ONE, mutation_run, write_repo

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no working bwrap: {bwrap_problem()}")


def _with_test(name: str, body: str) -> dict[str, str]:
    return {**OFF_BY_ONE, f"tests/{name}": body}


@needs_bwrap
def test_a_test_run_cannot_write_outside_its_copy(tmp_path: Path) -> None:
    hidden = tmp_path / "outside"  # under /tmp: the sandbox has its own
    hidden.mkdir()
    with tempfile.TemporaryDirectory(dir="/var/tmp") as visible:  # read-only in the sandbox
        targets = [hidden / "pwned.txt", Path(visible) / "pwned.txt"]
        repo = write_repo(tmp_path / "repo", _with_test("test_escape.py", f'''
            from pathlib import Path


            def test_escape():
                for target in {[str(t) for t in targets]!r}:
                    try:
                        Path(target).write_text("written by a mutant's test run")
                    except OSError:
                        pass
            '''))
        result = mutation_run(repo, repair_workers=2)
        assert result.ok, result.reason  # the reports still reach the engine
        assert [t for t in targets if t.exists()] == []


@needs_bwrap
def test_a_setsid_child_of_a_test_does_not_outlive_its_run(tmp_path: Path) -> None:
    marker = f"codur-sleeper-{uuid.uuid4().hex}"
    repo = write_repo(tmp_path / "repo", _with_test("test_daemon.py", f'''
        import subprocess
        import sys


        def test_daemon():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "{marker}"],
                             start_new_session=True)
        '''))
    try:
        result = mutation_run(repo, repair_workers=2)
        assert result.ok, result.reason
        deadline = time.monotonic() + 3
        while _with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _with_marker(marker) == []
    finally:
        for pid in _with_marker(marker):  # only the sleepers this test started
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@needs_bwrap
def test_the_repos_own_credential_files_read_as_empty_by_their_absolute_path_too(tmp_path: Path) -> None:
    """The worker copies hold the repo's .env empty (and no .git), but the repo itself lies in the
    read-only filesystem: a test that reads its .env or its .git/config by their paths must find the
    one empty and the other without the remote's token, in place (localization through the fork
    server) and from a worker's copy (the repair)."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as place:  # outside /tmp: the sandbox sees it
        origin = Path(place) / "repo"
        remote = '[remote "origin"]\n\turl = https://kim:ghp_4bX9kQ2mZ7pL1nR8sT3vW6yA0cE5dF@github.com/kim/app\n'
        repo = write_repo(origin, {**OFF_BY_ONE, ".env": "API_TOKEN=tok-3f9a17c2e\n", ".git/config": remote,
                                   "tests/test_env_file.py": f'''
            from pathlib import Path


            def test_the_credentials_read_as_empty():
                assert Path({str(origin / ".env")!r}).read_text() == ""
                config = Path({str(origin / ".git" / "config")!r}).read_text()
                assert "github.com/kim/app" in config and "ghp_" not in config  # the remote kept, its token not
            '''})
        loc = localize_faults(repo)
        outcome = {t.nodeid: t.outcome for t in loc.tests}
        assert outcome["tests/test_env_file.py::test_the_credentials_read_as_empty"] == "passed"
        result = mutation_run(repo, repair_workers=2)
        assert result.ok, result.reason  # a failing credential test would leave no plausible patch
        assert (origin / ".env").read_text() == "API_TOKEN=tok-3f9a17c2e\n"
        assert (origin / ".git/config").read_text() == remote


@needs_bwrap
def test_a_run_that_allows_secrets_localizes_with_the_repos_credential_files_as_they_are(tmp_path: Path) -> None:
    """allow_secrets lets the run's tools read .env; localization in the repo must see the same
    .env as those tools, or a test needing it fails there alone and steers the ranking wrong."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as place:  # outside /tmp: the sandbox sees it
        repo = write_repo(Path(place) / "repo", {**OFF_BY_ONE, ".env": "API_TOKEN=tok-3f9a17c2e\n",
                                                 "tests/test_env_file.py": '''
            from pathlib import Path


            def test_the_token_is_configured():
                assert "API_TOKEN=" in (Path(__file__).parents[1] / ".env").read_text()
            '''})
        test = "tests/test_env_file.py::test_the_token_is_configured"
        hidden = {t.nodeid: t.outcome for t in localize_faults(repo).tests}
        allowed = {t.nodeid: t.outcome for t in localize_faults(repo, allow_secrets=True).tests}
        assert (hidden[test], allowed[test]) == ("failed", "passed")
        assert (repo / ".env").read_text() == "API_TOKEN=tok-3f9a17c2e\n"


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_a_secret_in_codurs_environment_is_not_visible_to_the_tests(tmp_path: Path, monkeypatch,
                                                                    sandbox: str) -> None:
    monkeypatch.setenv("CODUR_SANDBOX", sandbox)
    monkeypatch.setenv("GH_PAT", "ghp_secret")
    repo = write_repo(tmp_path / "repo", {**OFF_BY_ONE, "tests/test_env.py": '''
        import os


        def test_no_secret():
            assert "GH_PAT" not in os.environ
        '''})
    loc = localize_faults(repo)
    outcome = {t.nodeid: t.outcome for t in loc.tests}
    assert outcome["tests/test_env.py::test_no_secret"] == "passed"


def _with_marker(marker: str) -> list[int]:
    """Pids (ours) of the processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


@needs_bwrap
def test_localization_of_a_non_pytest_command_runs_confined_in_the_repo(tmp_path: Path, monkeypatch) -> None:
    """A unittest suite is localized in the repo itself (the whole command under coverage), not
    through the fork server: its run, and the probe of the repo's interpreter for coverage, start
    the repo's own venv (whose ``.pth`` files run at every start) and must be confined like every
    other run of the repo's code: no write outside, no secret of codur's environment."""
    monkeypatch.setenv("CODUR_PROBE_API_KEY", "sk-probe-9f2c41")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as visible:  # outside /tmp: the sandbox sees it
        target = Path(visible) / "pwned.txt"
        repo = write_repo(Path(visible) / "repo", {"calc.py": OFF_BY_ONE["calc.py"], "test_calc.py": '''
            import unittest

            from calc import total


            class TotalTest(unittest.TestCase):
                def test_total(self):
                    self.assertEqual(total([1, 2, 3]), 6)
            '''})
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
        site = next((repo / ".venv" / "lib").glob("python3*/site-packages"))
        (site / "probe.pth").write_text(  # a line starting with "import" runs at every start
            f"import os, pathlib; p = pathlib.Path({str(target)!r}); "
            f"p.write_text(os.environ.get('CODUR_PROBE_API_KEY', '-')) if os.access(p.parent, os.W_OK) else None\n")
        command = testcmd.resolve(repo, [str(repo / ".venv" / "bin" / "python"), "-m", "unittest"])
        assert not command.is_pytest
        loc = localize_faults(repo, command)
        assert loc.failing, loc.output  # the run happened, and failed as the bug says
        assert not target.exists(), target.read_text()
