"""Issue 55, item 5: an endpoint that cannot be used is named with its real cause (a dead server, a
refused key, a wrong base URL), in the same line whether or not ``--model`` was given; and
``codur config --check`` fails, saying why, when no model can run.

Real ``codur`` processes against real local HTTP servers (the fault server answering 401 to a
wrong key, or 404 outside ``/v1``) and a closed port. On main, without ``--model`` every cause read
"no model named and .../models could not be read (...): give one with --model" (the model blamed);
with ``--model`` a wrong base URL passed the check and the run ended ``model_unavailable
(OpenAIModelNotFoundError ...)``; ``config --check`` passed with no endpoint whatever the embedded
model's state.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

CODUR = Path(sys.executable).with_name("codur")


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"  # a port nothing listens on


def environment(tmp_path: Path, **env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CODUR_", "OPENAI_"))}
    return {**base, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODUR_FIXERS": "agent", "CODUR_CRITIC": "false",
            "CODUR_MAX_RETRIES": "0", "CODUR_TIMEOUT_S": "60", "MY_KEY": "sk-wrong", **env}


def codur_run(base_url: str, model: list[str], repo: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CODUR), "is_adult(18) should be True", "--base-url", base_url, "--api-key-env",
                           "MY_KEY", *model, "--repo", str(repo), "--quiet"], capture_output=True, text=True,
                          env=environment(tmp_path), timeout=120)


@pytest.mark.parametrize("cause", ["refused key", "wrong base URL", "dead server"])
def test_the_cause_is_named_with_or_without_a_model(cause: str, fault_server, ages_repo: Path, tmp_path: Path):
    fault_server.key, fault_server.root = "sk-right", "/v1"
    url = {"refused key": fault_server.base_url, "wrong base URL": fault_server.base_url.removesuffix("/v1"),
           "dead server": closed_url()}[cause]
    said = {"refused key": f"codur: model endpoint {url}: authentication refused (HTTP 401) with the key in MY_KEY: ",
            "wrong base URL": f"codur: model endpoint {url}: not found (HTTP 404 at /models and /chat/completions): "
                              "wrong base URL? an OpenAI-compatible server answers under its API root",
            "dead server": f"codur: model endpoint {url}: cannot connect (network: "}[cause]
    lines = []
    for model in ([], ["--model", "m"]):
        done = codur_run(url, model, ages_repo, tmp_path)
        assert done.returncode == 2, (model, done.stdout[-2000:], done.stderr[-2000:])  # only model fixers: stop
        [line] = done.stderr.strip().splitlines()
        assert line.startswith(said), (model, line)
        assert "--model" not in line and "no model named" not in line  # the model is not blamed
        lines.append(line)
    assert lines[0] == lines[1]  # the same line whether or not --model was given
    assert not (ages_repo / ".codur" / "runs").exists()  # stopped before the suite


def config_check(tmp_path: Path, repo: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(CODUR), "config", "--check", "--repo", str(repo)], capture_output=True, text=True,
                          env=environment(tmp_path, **env), timeout=60)


def test_config_check_fails_when_no_model_can_run(fault_server, ages_repo: Path, tmp_path: Path):
    (tmp_path / "a-file").write_text("not a folder\n")
    unbuildable = config_check(tmp_path, ages_repo, CODUR_LOCAL__CACHE_DIR=str(tmp_path / "a-file" / "models"))
    assert unbuildable.returncode == 2, unbuildable.stdout[-2000:]
    assert (f"codur: check: embedded model: the embedded model's file must be built in {tmp_path}/a-file/models "
            f"(local.cache_dir), but {tmp_path}/a-file is not a folder") in unbuildable.stderr
    assert "codur: check: no model can run" in unbuildable.stderr

    dead = closed_url()
    attached = config_check(tmp_path, ages_repo, CODUR_LOCAL__SERVER_URL=dead)  # a batch's shared server, gone
    assert attached.returncode == 2
    assert f"codur: check: model endpoint {dead}: cannot connect (network: " in attached.stderr
    assert "codur: check: no model can run" in attached.stderr

    fault_server.root = "/v1"
    wrong = fault_server.base_url.removesuffix("/v1")
    not_found = config_check(tmp_path, ages_repo, CODUR_BASE_URL=wrong)  # no model named
    assert not_found.returncode == 2
    assert f"codur: check: model endpoint {wrong}: not found (HTTP 404 at /models and /chat/completions)" \
        in not_found.stderr and "no model named" not in not_found.stderr

    fault_server.models = ["big", "small"]
    several = config_check(tmp_path, ages_repo, CODUR_BASE_URL=fault_server.base_url)
    assert several.returncode == 2
    assert "serves several: big, small; pick one with --model" in several.stderr
    named = config_check(tmp_path, ages_repo, CODUR_BASE_URL=fault_server.base_url, CODUR_MODEL="small")
    assert named.returncode == 0, named.stderr
    assert f"model endpoint {fault_server.base_url}: answers (key from OPENAI_API_KEY); model small" in named.stdout


@pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="the 'local' extra is not installed")
def test_config_check_passes_with_the_embedded_model_available(ages_repo: Path, tmp_path: Path):
    done = config_check(tmp_path, ages_repo, CODUR_LOCAL__CACHE_DIR=str(tmp_path / "models"))
    assert done.returncode == 0, done.stderr
    assert f"embedded model: available (xllamacpp installed; its model file in {tmp_path}/models" in done.stdout
    assert not (tmp_path / "models").exists()  # nothing built, nothing started
