"""Issue 52, item 6: the model's absence degrades a run, it does not stop it. A model endpoint
that hangs at the start gets one line; a bug mutation search can fix is then fixed without it,
one it cannot ends failed / model_unavailable, and a question still exits 2 at once."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

CODUR = Path(sys.executable).with_name("codur")


@pytest.fixture
def hung_endpoint() -> Iterator[str]:
    """An HTTP endpoint on 127.0.0.1 that accepts every connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])  # read nothing, answer nothing
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


def codur(task: str, repo: Path, tmp_path: Path, url: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CODUR_", "OPENAI_"))}
    base.update({"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODUR_REPAIR_WORKERS": "1", "CODUR_TIMEOUT_S": "120",
                 **env})
    return subprocess.run([str(CODUR), task, "--repo", str(repo), "--base-url", url, "--model", "m", "--quiet"],
                          capture_output=True, text=True, env=base, timeout=240)


def test_a_mutation_fixable_bug_is_fixed_beside_a_hung_endpoint(hung_endpoint: str, ages_repo: Path,
                                                                 tmp_path: Path) -> None:
    done = codur("make the failing tests pass", ages_repo, tmp_path, hung_endpoint)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [line] = [x for x in done.stderr.splitlines() if "model endpoint" in x]
    assert line == (f"codur: model endpoint {hung_endpoint}: no answer within 5 s (network: is the server up and the "
                    "address right?); going on without it: mutation only")
    assert "return age >= 18" in (ages_repo / "ages.py").read_text()


def test_a_bug_only_a_model_could_fix_ends_model_unavailable(hung_endpoint: str, tmp_path: Path) -> None:
    repo = tmp_path / "greet"
    repo.mkdir()
    (repo / "greet.py").write_text("def greet(name):\n    return 'Hello'\n")
    (repo / "test_greet.py").write_text("from greet import greet\n\n\ndef test_greet():\n"
                                        "    assert greet('Ann') == 'Hello, Ann!'\n")
    done = codur("make the failing tests pass", repo, tmp_path, hung_endpoint)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"reason: model_unavailable ({hung_endpoint}: no answer within 5 s" in done.stdout
    result = next((repo / ".codur" / "runs").glob("*/result.json")).read_text()
    assert '"reason": "model_unavailable (' in result and "before_model_unavailable" in result


def test_a_question_beside_a_hung_endpoint_still_exits_2_at_once(hung_endpoint: str, ages_repo: Path,
                                                                 tmp_path: Path) -> None:
    done = codur("what does is_adult do?", ages_repo, tmp_path, hung_endpoint)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"codur: model endpoint {hung_endpoint}: no answer within 5 s (network: is the server up and the address "
        "right?)"]
    assert not (ages_repo / ".codur" / "runs").exists()
