"""README's "A server on a fresh machine" recipe, run as written (the apt-get line aside: the
distribution's binaries must be installed already), as a user that is not root; then
``codur config --check`` against the URL it exports."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def recipe() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("**A server on a fresh machine**"):]
    block = section[section.index("```bash") + len("```bash"):section.index("```", section.index("```bash") + 7)]
    return [line for line in block.strip().splitlines() if line.strip()]


def test_the_recipe_installs_starts_and_checks():
    lines = recipe()
    assert lines[0].startswith("sudo apt-get install -y postgresql") and lines[-1].startswith("codur config --check")
    assert any(line.startswith("PORT=5433 ") for line in lines)


def test_readme_postgres_recipe_gives_a_working_database_url(tmp_path: Path):
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install codur[postgres])")
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        pytest.skip("the distribution's PostgreSQL is not installed (apt-get install postgresql)")
    as_user: dict = {}
    home = Path(tempfile.mkdtemp(prefix="codur-recipe-"))
    if os.geteuid() == 0:  # PostgreSQL refuses root: the recipe runs as a user, here the postgres one
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to follow the recipe as")
        os.chown(home, owner.pw_uid, owner.pw_gid)
        as_user = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lines = recipe()[1:-1]  # as written, without the install and the final check
    script = "\n".join(["set -e", *[line.replace("PORT=5433 ", f"PORT={port} ") for line in lines],
                        'echo "URL=$CODUR_DATABASE_URL"'])
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    try:
        done = subprocess.run(["bash", "-c", script], cwd=home, env=env, capture_output=True, text=True,
                              timeout=180, **as_user)
        assert done.returncode == 0, done.stdout + done.stderr
        url = next(line[4:] for line in done.stdout.splitlines() if line.startswith("URL="))
        assert url.startswith("postgresql://codur:") and url.endswith(f"@127.0.0.1:{port}/codur")
        check = subprocess.run([sys.executable, "-m", "codur._entry", "config", "--check"], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(ROOT), "CODUR_DATABASE_URL": url},
                               capture_output=True, text=True, timeout=120)
        assert check.returncode == 0, check.stderr
        assert "tables ready: checkpoint_blobs, checkpoint_migrations, checkpoint_writes, checkpoints, " \
               "codur_batch_results, codur_runs, codur_sessions; 0 runs (0 resumable), 0 batches" in check.stdout
        wrong = subprocess.run([sys.executable, "-m", "codur._entry", "config", "--check"], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(ROOT),
                                    "CODUR_DATABASE_URL": url.replace("postgresql://codur:", "postgresql://codur:x")},
                               capture_output=True, text=True, timeout=120)
        assert wrong.returncode == 2 and "password authentication failed" in wrong.stderr
        assert ":x" not in wrong.stderr  # the password is hidden
    finally:
        pg = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parts[-2]))[-1]
        subprocess.run([f"{pg}/pg_ctl", "-D", str(home / "codur-pg"), "-m", "immediate", "-w", "stop"], env=env,
                       capture_output=True, timeout=60, **as_user)
        shutil.rmtree(home, ignore_errors=True)
