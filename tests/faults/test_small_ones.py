"""Issue 52, item 7, the small ones: a file name that is not UTF-8 end to end, a reason that names
the real cause (a reply refused for its size is not a timeout), and ``codur trust --help`` whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from codur.llm.breaker import CircuitBreaker
from codur.llm.deadline import DeadlineChatOpenAI
from codur.llm.http import MAX_REPLY_BYTES

CODUR = Path(sys.executable).with_name("codur")
# the test leaves a file whose name is not UTF-8 (b"caf\xe9.txt", Latin-1) in the repo
WRITES_A_LATIN1_NAME = ("import os\n\nfrom ages import is_adult\n\n\ndef test_eighteen():\n"
                        "    folder = os.fsencode(os.path.dirname(os.path.abspath(__file__)))\n"
                        "    with open(os.path.join(folder, b'caf\\xe9.txt'), 'wb') as f:\n        f.write(b'x')\n"
                        "    assert is_adult(18)\n")


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_a_fix_beside_a_file_name_that_is_not_utf8_ends_whole(ages_repo: Path, tmp_path: Path, sandbox: str) -> None:
    (ages_repo / "test_ages.py").write_text(WRITES_A_LATIN1_NAME)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODUR_", "OPENAI_"))}
    env.update({"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODUR_FIXERS": "mutation", "CODUR_REPAIR_WORKERS": "1",
                **({"CODUR_SANDBOX": "off"} if sandbox == "off" else {})})
    done = subprocess.run([str(CODUR), "make the failing tests pass", "--repo", str(ages_repo)], capture_output=True,
                          env=env, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert b"Traceback" not in done.stderr and b"UnicodeEncodeError" not in done.stderr
    [run] = (ages_repo / ".codur" / "runs").iterdir()
    result = json.loads((run / "result.json").read_text())
    assert result["status"] == "success"
    patch = (run / "diff.patch").read_bytes()
    assert b"+    return age >= 18" in patch
    if sandbox == "off":  # the suite wrote the repo: the file is in the run's diff, by its own bytes
        assert b"+++ b/caf\xe9.txt" in patch and b"caf\xe9.txt" in done.stdout
        assert "caf\udce9.txt" in result["metadata"]["files_changed"]
    else:  # the suite wrote its layer: reported by the same bytes, the repo never had it
        assert b"the test suite created caf\xe9.txt" in done.stdout
        assert not (ages_repo / os.fsdecode(b"caf\xe9.txt")).exists()


def test_replies_refused_for_their_size_are_named_so_not_timeouts(faults, fault_server) -> None:
    fault_server.play(default=faults.huge(MAX_REPLY_BYTES + 1024 * 1024))
    breaker = CircuitBreaker(2)
    model = DeadlineChatOpenAI(base_url=fault_server.base_url, api_key="x", model="fault", max_retries=0, timeout=30,
                               breaker=breaker)
    for _ in range(2):
        with pytest.raises(openai.APIConnectionError):
            model.invoke("hello")
    [(url, why)] = breaker.down().items()
    assert why.startswith("2 replies refused in a row; last: reply refused: the model's reply is over "
                          f"{MAX_REPLY_BYTES} bytes"), why
    assert "timeout" not in why


def test_trust_help_keeps_the_table_name() -> None:
    done = subprocess.run([str(CODUR), "trust", "--help"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0
    assert "The repository whose codur.toml / [tool.codur] to trust." in done.stdout
