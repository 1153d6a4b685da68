"""``--ray ray://HOST:PORT`` against a real Ray head started here (``ray start --head`` in a temp
dir, token authentication on, as Ray's default is): the token Ray reads is sent, a client
without it is refused with the cause named, a stopped head fails within the timeout, and Ray's
banner stays out of codur's output."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RAY = Path(sys.executable).with_name("ray")
TOKEN = "codur-test-token-0123456789abcdef0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_closed_address_is_a_network_error_at_once():
    from codur.batch.ray_connect import RayConnectError, connect

    started = time.monotonic()
    with pytest.raises(RayConnectError, match=r"network: cannot reach 127\.0\.0\.1:\d+") as caught:
        connect(None, f"ray://127.0.0.1:{free_port()}", timeout_s=30)
    assert caught.value.cause == "network" and time.monotonic() - started < 6


def test_the_token_comes_from_rays_own_places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from codur.batch.ray_connect import token_source

    for name in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert token_source() is None
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text(TOKEN)
    assert token_source() == str(tmp_path / ".ray" / "auth_token")
    named = tmp_path / "team-token"
    named.write_text(TOKEN)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(named))
    assert token_source() == str(named)
    monkeypatch.setenv("RAY_AUTH_TOKEN", TOKEN)
    assert token_source() == "RAY_AUTH_TOKEN"


@pytest.fixture(scope="module")
def head() -> Iterator[dict]:
    """A Ray head on 127.0.0.1 with token authentication, in a temp dir; its client address."""
    pytest.importorskip("ray", reason="Ray is the optional extra codur[ray]")
    if not RAY.exists():
        pytest.skip(f"no ray command beside {sys.executable}")
    temp = Path(tempfile.mkdtemp(prefix="cr-", dir="/tmp"))  # short: Ray's socket paths have a length limit
    client = free_port()
    env = {**os.environ, "HOME": str(temp), "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN,
           "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT)}
    started = subprocess.run([str(RAY), "start", "--head", f"--port={free_port()}", "--node-ip-address=127.0.0.1",
                              f"--ray-client-server-port={client}", "--num-cpus=2", "--include-dashboard=false",
                              f"--temp-dir={temp}", "--disable-usage-stats"], env=env, capture_output=True,
                             text=True, timeout=180)
    if started.returncode != 0:
        shutil.rmtree(temp, ignore_errors=True)
        raise RuntimeError(f"ray start --head failed: {started.stdout[-1500:]}{started.stderr[-1500:]}")
    info = {"address": f"ray://127.0.0.1:{client}", "env": env, "temp": temp}
    try:
        yield info
    finally:
        subprocess.run([str(RAY), "stop", "--force"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)


def batch(tmp_path: Path, address: str, env: dict, *extra: str) -> subprocess.CompletedProcess:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "invoice", "repo": str(EXAMPLES / "invoice"),
                                 "task": "make the failing tests pass", "fixers": ["mutation"]}) + "\n")
    return subprocess.run([sys.executable, "-m", "codur._entry", "batch", str(tasks), "--out",
                           str(tmp_path / "results.jsonl"), "--ray", address, "--json", *extra], cwd=tmp_path,
                          env={**env, "CODUR_REPAIR_WORKERS": "1"}, capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # a Ray head's start and a task on it: about a minute on 2 shared cores
def test_a_batch_on_a_token_protected_head_over_ray_client(head: dict, tmp_path: Path):
    client_env = {k: v for k, v in head["env"].items() if k not in ("RAY_AUTH_MODE", "HOME")}
    client_env["HOME"] = str(tmp_path)  # no ~/.ray/auth_token: the token comes from RAY_AUTH_TOKEN alone
    # a Ray client's first connection starts a server process on the head: on 2 loaded cores that
    # took over the 30 s default once (CI shares the machine with the whole suite), so give it room
    done = batch(tmp_path, head["address"], client_env, "--ray-timeout", "120")
    assert done.returncode == 0, done.stderr[-3000:]
    events = [json.loads(line) for line in done.stdout.splitlines()]  # every stdout line is codur's JSON
    [finished] = [e for e in events if e["event_type"] == "task.finished"]
    assert finished["record"]["status"] == "success" and finished["record"]["fixer"] == "mutation search"
    assert "Connected to Ray" not in done.stderr and "ray.init" not in done.stderr  # Ray's banner kept out

    no_token = {k: v for k, v in client_env.items() if k != "RAY_AUTH_TOKEN"}
    started = time.monotonic()
    (tmp_path / "refused").mkdir()
    refused = batch(tmp_path / "refused", head["address"], no_token, "--ray-timeout", "20")
    assert refused.returncode == 2
    assert f"--ray {head['address']}: " in refused.stderr
    assert "no token was sent" in refused.stderr and time.monotonic() - started < 60


@pytest.mark.slow
def test_a_stopped_head_fails_within_the_timeout_naming_the_cause(head: dict, tmp_path: Path):
    subprocess.run([str(RAY), "stop", "--force"], env=head["env"], capture_output=True, timeout=120)
    started = time.monotonic()
    done = batch(tmp_path, head["address"], {**head["env"], "HOME": str(tmp_path)}, "--ray-timeout", "15")
    assert done.returncode == 2
    assert f"codur batch: --ray {head['address']}: network: cannot reach" in done.stderr
    assert time.monotonic() - started < 30


class _SlowRay:
    """Stands in for the ``ray`` module where only codur's side is under test: ``init`` prints a
    banner on file descriptor 1 as Ray does, then waits or fails as told."""

    def __init__(self, wait_s: float = 0.0, error: BaseException | None = None) -> None:
        self.wait_s, self.error, self.calls = wait_s, error, []

    def init(self, **kwargs) -> None:
        self.calls.append(kwargs)
        os.write(1, b"2026-01-01 INFO worker.py:2000 -- Connected to Ray cluster.\n")
        time.sleep(self.wait_s)
        if self.error is not None:
            raise self.error


def test_no_connection_within_the_timeout_is_a_timeout_and_the_banner_stays_out(capfd, monkeypatch):
    from codur.batch.ray_connect import RayConnectError, connect

    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    started = time.monotonic()
    with pytest.raises(RayConnectError, match=r"--ray auto: timeout: no connection within 1 s") as caught:
        connect(_SlowRay(wait_s=5), "auto", timeout_s=1)
    assert caught.value.cause == "timeout" and time.monotonic() - started < 3
    fine = _SlowRay()
    connect(fine, "auto", timeout_s=5, log_to_driver=False)
    assert fine.calls == [{"address": "auto", "log_to_driver": False}]
    out, err = capfd.readouterr()
    assert "Connected to Ray" not in out + err  # went to codur's Ray log file


def test_an_authentication_refusal_is_named():
    from codur.batch.ray_connect import RayConnectError, connect

    with pytest.raises(RayConnectError, match="authentication: the cluster refused the client") as caught:
        connect(_SlowRay(error=ConnectionError("UNAUTHENTICATED: authentication token is missing")), "auto",
                timeout_s=5)
    assert caught.value.cause == "authentication"
    with pytest.raises(RayConnectError, match="network: ConnectionError") as caught:
        connect(_SlowRay(error=ConnectionError()), "auto", timeout_s=5)
    assert caught.value.cause == "network"


def test_a_client_server_the_head_could_not_start_is_asked_for_once_more(monkeypatch, tmp_path):
    """Seen in CI on this 2-core machine: the head's proxy could not start the server process for a new client
    (Ray's "Initialization failure from server"), and the batch ended with a network error; the next try works."""
    from codur.batch.ray_connect import RayConnectError, connect

    class Ray:
        def __init__(self, failures):
            self.failures, self.inits, self.shutdowns = failures, 0, 0

        def init(self, **kwargs):
            self.inits += 1
            if self.inits <= self.failures:
                raise ConnectionError("Initialization failure from server: Traceback ... proxier.py, in Datapath")

        def shutdown(self):
            self.shutdowns += 1

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    once = Ray(failures=1)
    connect(once, "auto", timeout_s=10)
    assert (once.inits, once.shutdowns) == (2, 1)
    twice = Ray(failures=2)
    with pytest.raises(RayConnectError, match="network: Initialization failure"):
        connect(twice, "auto", timeout_s=10)
    assert twice.inits == 2
