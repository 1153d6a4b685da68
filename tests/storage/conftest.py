"""A real PostgreSQL server for the storage tests: the distribution's binaries (initdb, pg_ctl)
run in a temporary folder, on a free port, for the test session; each test gets a fresh
database in it. Skipped, saying why, when no server binary is installed or psycopg is missing.

As root (CI containers) the server runs as the ``postgres`` user, since PostgreSQL refuses
to run as root; that is why this fixture starts the server itself instead of
pytest-postgresql's process fixture, which runs pg_ctl as the current user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def pg_bin() -> Path | None:
    """The folder of the server binaries: pg_ctl on PATH, else the newest Debian/Ubuntu install."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server started for the session (user ``postgres``, trust auth)."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install codur[postgres])")
    pytest.importorskip("langgraph.checkpoint.postgres",
                        reason="langgraph-checkpoint-postgres is not installed (pip install codur[postgres])")
    bindir = pg_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL server binary (pg_ctl) on this machine: apt-get install postgresql")
    as_user: dict = {}
    root = Path(tempfile.mkdtemp(prefix="codur-pg-"))
    if os.geteuid() == 0:  # the server refuses root: run it as the distribution's postgres user
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the PostgreSQL server as")
        os.chown(root, owner.pw_uid, owner.pw_gid)
        as_user = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
    data, port = root / "data", _free_port()
    run = {"check": True, "capture_output": True, "text": True, "timeout": 120, "cwd": root, **as_user}
    try:
        subprocess.run([bindir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], **run)
        subprocess.run([bindir / "pg_ctl", "-D", data, "-l", root / "server.log", "-w", "-t", "60", "-o",
                        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"], **run)
    except subprocess.CalledProcessError as exc:
        log = (root / "server.log").read_text(errors="replace")[-2000:] if (root / "server.log").exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {exc.stderr or exc.stdout}\n{log}") from None
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([bindir / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"],
                       **{**run, "check": False})
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def database_url(postgres_server: str) -> str:
    """A new, empty database on the session's server; its URL."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres_server.rsplit("/", 1)[0] + "/" + name
