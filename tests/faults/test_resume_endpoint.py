"""Issue 55, item 4: ``codur --resume ID`` alone goes on with the endpoint, model and key variable
the run was started with (the real command against a local OpenAI-compatible server).

On main an option not given (None) overwrote the saved value: the resumed run fell back to the
embedded model and never called the endpoint.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

CODUR = Path(sys.executable).with_name("codur")
FIX = json.dumps({"name": "replace_in_file", "arguments": {"path": "ages.py", "old": "return age > 18",
                                                           "new": "return age >= 18"}})
PLAN_AND_FIX = '{"task_type": "code_fix", "steps": ["fix"]}\n```json\n' + FIX + "\n```"


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"  # a port nothing listens on


def test_resume_alone_keeps_the_saved_endpoint_model_and_key(faults, fault_server, ages_repo: Path, tmp_path: Path):
    started: dict[str, subprocess.Popen] = {}

    def ctrl_c(handler, request):  # the user presses Ctrl-C while the first model call is answered
        started["codur"].send_signal(signal.SIGINT)
        faults.ok(PLAN_AND_FIX)(handler, request)

    fault_server.key = "sk-right"
    fault_server.play(ctrl_c, default=faults.ok(PLAN_AND_FIX))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODUR_", "OPENAI_"))}
    env.update({"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODUR_CRITIC": "false", "CODUR_FIXERS": "agent",
                "CODUR_MAX_RETRIES": "0", "CODUR_TIMEOUT_S": "60", "MY_KEY": "sk-right",
                "CODUR_LOCAL__SERVER_URL": closed_url()})  # the embedded model, if asked, fails at once
    started["codur"] = subprocess.Popen(
        [str(CODUR), "is_adult(18) should be True", "--base-url", fault_server.base_url, "--model", "m",
         "--api-key-env", "MY_KEY", "--repo", str(ages_repo), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = started["codur"].communicate(timeout=120)
    assert started["codur"].returncode == 130, out[-2000:] + err[-2000:]
    [run_id] = [d.name for d in (ages_repo / ".codur" / "runs").iterdir()]
    asked_first = len(fault_server.requests)

    again = subprocess.run([str(CODUR), "--resume", run_id, "--repo", str(ages_repo), "--quiet"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert "status: success" in again.stdout
    later = [body.get("model") for _, body in fault_server.requests[asked_first:]]
    assert later and set(later) == {"m"}  # the saved endpoint and model, not the embedded one
    assert set(fault_server.auth) == {"Bearer sk-right"}  # the key from the saved variable
    assert "return age >= 18" in (ages_repo / "ages.py").read_text()
