"""Model set-up in one flag: README's endpoint examples run for real (a `codur` process against a
local OpenAI-compatible server), the model an endpoint serves is found when none is named, and
a choice that cannot be made is one line, exit 2."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODUR = Path(sys.executable).with_name("codur")
# mutation search would fix the ages bug without asking any model: these runs use the agent alone,
# and the server's reply is the plan and the agent's tool call at once, so every role can read it
FIX = json.dumps({"name": "replace_in_file", "arguments": {"path": "ages.py", "old": "return age > 18",
                                                           "new": "return age >= 18"}})
PLAN_AND_FIX = '{"task_type": "code_fix", "steps": ["fix"]}\n```json\n' + FIX + "\n```"


def readme_examples() -> list[list[str]]:
    """The `codur ... --base-url ...` commands of README's Models section, as argv."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Models"):]
    block = section[section.index("```bash"):section.index("```", section.index("```bash") + 7)]
    return [shlex.split(line) for line in block.splitlines() if line.startswith("codur ")]


def codur(argv: list[str], repo: Path, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CODUR_", "OPENAI_"))}
    base.update({"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODUR_FIXERS": "mutation,agent", "CODUR_CRITIC": "false",
                 "CODUR_REPAIR_WORKERS": "1", "CODUR_TIMEOUT_S": "90", "CODUR_MAX_RETRIES": "0", **env})
    return subprocess.run([str(CODUR), *argv[1:], "--repo", str(repo), "--quiet"], capture_output=True, text=True,
                          env=base, timeout=180)


def test_readme_has_an_example_per_server():
    examples = readme_examples()
    urls = [argv[argv.index("--base-url") + 1] for argv in examples]
    assert len(examples) == 4 and any("openai.com" in u for u in urls) and any(":11434" in u for u in urls)
    assert sum("--model" not in argv for argv in examples) == 1  # llama.cpp: the served model is found


@pytest.mark.parametrize("argv", readme_examples(), ids=lambda a: re.sub(r"\W+", "-", a[a.index("--base-url") + 1]))
def test_a_readme_example_runs_against_a_local_server(argv, faults, fault_server, ages_repo: Path, tmp_path: Path):
    """The example as written, its --base-url pointed at the local server: the request carries the
    model named (or the one /v1/models lists) and the key from the variable named."""
    fault_server.models = ["served-model"]
    fault_server.play(default=faults.ok(PLAN_AND_FIX))
    argv = list(argv)
    argv[argv.index("--base-url") + 1] = fault_server.base_url
    argv[1] = "is_adult(18) should be True"  # README's task words; this one the planner model is asked about
    key_env = argv[argv.index("--api-key-env") + 1] if "--api-key-env" in argv else None
    result = codur(argv, ages_repo, tmp_path, CODUR_FIXERS="agent", **({key_env: "sk-test-123"} if key_env else {}))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "return age >= 18" in (ages_repo / "ages.py").read_text()
    asked = [body.get("model") for _, body in fault_server.requests]
    assert asked, "the run sent no request to the server"  # the ambiguous task is planned by the model
    want = argv[argv.index("--model") + 1] if "--model" in argv else "served-model"
    assert set(asked) == {want}
    if key_env:
        assert set(fault_server.auth) == {"Bearer sk-test-123"}


def test_an_endpoint_serving_several_models_needs_one_named(fault_server, ages_repo: Path, tmp_path: Path):
    fault_server.models = ["big", "small"]
    before = (ages_repo / "ages.py").read_text()
    result = codur(["codur", "is_adult(18) should be True", "--base-url", fault_server.base_url], ages_repo, tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"codur: no model named and {fault_server.base_url} serves several: big, small; pick one with --model "
        "or CODUR_MODEL"]
    assert not fault_server.requests and (ages_repo / "ages.py").read_text() == before


def test_an_unknown_variable_is_a_warning_naming_the_nearest(fault_server, ages_repo: Path, tmp_path: Path):
    result = codur(["codur", "is_adult(18) should be True", "--base-url", fault_server.base_url, "--model", "m"],
                   ages_repo, tmp_path, CODUR_MAX_TURN="3")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "codur: warning: CODUR_MAX_TURN is not a codur setting (did you mean CODUR_MAX_TURNS?)" in result.stderr


def test_a_known_hosted_model_is_priced_without_a_profile(faults, fault_server, ages_repo: Path):
    """gpt-4o-mini's price comes from genai-prices' table (USD 0.15 / 0.60 per million tokens);
    the fault server reports 10 prompt and 5 completion tokens per call."""
    from codur import CodurConfig, RunRequest, run

    fault_server.play(default=faults.ok(PLAN_AND_FIX))
    config = CodurConfig(base_url=fault_server.base_url, model="gpt-4o-mini", api_key="k", critic=False,
                         fixers=["agent"], repair_workers=1, max_retries=0, timeout_s=90)
    result = run(RunRequest(task="is_adult(18) should be True", repo=ages_repo), config=config)
    calls = result.metadata.usage["llm_calls"]
    assert calls >= 1
    assert result.cost_usd == pytest.approx(calls * (10 * 0.15 + 5 * 0.60) / 1e6, abs=6e-7)  # 6 decimals kept


def test_max_cost_ends_the_run_budget_exceeded_with_the_figures(fault_server, ages_repo: Path, tmp_path: Path):
    before = (ages_repo / "ages.py").read_text()
    result = codur(["codur", "is_adult(18) should be True", "--base-url", fault_server.base_url, "--model",
                    "gpt-4o-mini", "--max-cost", "0.000001"], ages_repo, tmp_path, CODUR_FIXERS="agent")
    assert result.returncode == 1, result.stderr[-2000:]
    assert "status: budget_exceeded  reason: cost_budget" in result.stdout
    assert "spent $0.000005 of the $0.000001 limit (--max-cost)" in result.stdout
    assert (ages_repo / "ages.py").read_text() == before


def test_a_malformed_base_url_and_an_unset_key_variable_are_one_line_exit_2(ages_repo: Path, tmp_path: Path):
    bad = codur(["codur", "is_adult(18) should be True", "--base-url", "notaurl"], ages_repo, tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        "codur: --base-url: not an http(s) URL with a host, e.g. http://127.0.0.1:8080/v1 (got 'notaurl')"]
    unset = codur(["codur", "is_adult(18) should be True", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                   "--api-key-env", "CODUR_TEST_NO_SUCH_KEY"], ages_repo, tmp_path)
    assert unset.returncode == 2 and len(unset.stderr.strip().splitlines()) == 1
    assert "--api-key-env: the variable CODUR_TEST_NO_SUCH_KEY is not set" in unset.stderr
    assert not (ages_repo / ".codur").exists()  # nothing started


def test_an_endpoint_that_refuses_the_key_or_is_down_stops_a_run_that_needs_it_before_the_suite(
        fault_server, ages_repo: Path, tmp_path: Path):
    """With only model fixers there is nothing to go on with: exit 2 (with mutation search the run
    goes on without the model: test_model_absent.py)."""
    import socket
    import time

    fault_server.key = "sk-right"
    started = time.monotonic()
    refused = codur(["codur", "is_adult(18) should be True", "--base-url", fault_server.base_url, "--model", "m",
                     "--api-key-env", "MY_KEY"], ages_repo, tmp_path, MY_KEY="sk-wrong", CODUR_FIXERS="agent")
    assert refused.returncode == 2, refused.stdout[-2000:]
    [line] = refused.stderr.strip().splitlines()
    assert line.startswith(f"codur: model endpoint {fault_server.base_url}: authentication refused (HTTP 401) "
                           "with the key in MY_KEY")
    assert fault_server.requests == []  # one GET /models, no chat call of any role
    assert not (ages_repo / ".codur" / "runs").exists()  # no run started, no test ran
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/v1"  # a port nothing listens on
    down = codur(["codur", "is_adult(18) should be True", "--base-url", closed, "--model", "m"], ages_repo, tmp_path,
                 CODUR_FIXERS="agent")
    assert down.returncode == 2
    assert down.stderr.strip().startswith(f"codur: model endpoint {closed}: cannot connect (network: ")
    assert time.monotonic() - started < 30
    fault_server.play(default=__import__("codur_fault_server").ok(PLAN_AND_FIX))
    right = codur(["codur", "is_adult(18) should be True", "--base-url", fault_server.base_url, "--model", "m",
                   "--api-key-env", "MY_KEY"], ages_repo, tmp_path, MY_KEY="sk-right", CODUR_FIXERS="agent")
    assert right.returncode == 0, right.stderr[-2000:]


def test_config_check_tries_the_endpoint_and_says_the_cause(fault_server, ages_repo: Path, tmp_path: Path):
    fault_server.key = "sk-right"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CODUR_", "OPENAI_"))}
    base.update({"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODUR_BASE_URL": fault_server.base_url,
                 "CODUR_MODEL": "m", "CODUR_API_KEY_ENV": "MY_KEY"})

    def check(key: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(CODUR), "config", "--check", "--repo", str(ages_repo)], capture_output=True,
                              text=True, env={**base, "MY_KEY": key}, timeout=60)

    good = check("sk-right")
    assert good.returncode == 0, good.stderr
    assert "database: none set" in good.stdout
    assert f"model endpoint {fault_server.base_url}: answers (key from MY_KEY)" in good.stdout
    bad = check("sk-wrong")
    assert bad.returncode == 2
    assert f"codur: check: model endpoint {fault_server.base_url}: authentication refused (HTTP 401)" in bad.stderr
