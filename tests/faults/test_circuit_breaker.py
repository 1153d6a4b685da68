"""Issue 36, item 6: a circuit breaker per run: after ``endpoint_failure_limit`` timeouts or
connection failures in a row, no role calls that endpoint again, and the run ends
``model_unavailable`` (measured before: 8 sequential 60 s attempts across roles, 502 s)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run

TASK = "is_adult(18) should be True"


def _config(base_url: str, **overrides) -> CodurConfig:
    settings = {"base_url": base_url, "model": "fault", "api_key": "k", "critic": False, "fixers": ["agent"],
                "max_retries": 2, "retry_base_delay_s": 0.0, "repair_workers": 1, "timeout_s": 300.0,
                "model_timeout_s": 1.0, **overrides}
    return CodurConfig(**settings)


def test_a_hung_endpoint_is_given_up_after_two_timeouts(faults, fault_server, ages_repo: Path) -> None:
    fault_server.play(default=faults.slow(600, fault_server.stop))
    t0 = time.monotonic()
    result = run(RunRequest(task=TASK, repo=ages_repo), config=_config(fault_server.base_url))
    elapsed = time.monotonic() - t0
    assert result.status is RunStatus.FAILED and result.reason.startswith("model_unavailable"), result.reason
    assert len(fault_server.requests) == 2  # the planner's call and one more; no role, no retry after that
    assert elapsed < 30, elapsed
    assert "return age > 18" in (ages_repo / "ages.py").read_text()


def test_a_refused_endpoint_ends_model_unavailable(ages_repo: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    t0 = time.monotonic()
    result = run(RunRequest(task=TASK, repo=ages_repo), config=_config(f"http://127.0.0.1:{port}/v1"))
    assert result.status is RunStatus.FAILED and result.reason.startswith("model_unavailable"), result.reason
    assert time.monotonic() - t0 < 30


def test_a_refused_endpoint_with_every_fixer_ends_model_unavailable_not_no_progress(tmp_path: Path) -> None:
    """Mutation search cannot fix this bug, the model fixers meet a refused endpoint: the run's
    ``no_progress`` was the endpoint's doing, and the end says so."""
    repo = tmp_path / "sums"
    repo.mkdir()
    (repo / "calc.py").write_text('def total(xs):\n    """Sum of xs, 0 for none."""\n    return None\n')
    (repo / "test_calc.py").write_text("from calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n")
    (repo / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = _config(f"http://127.0.0.1:{port}/v1", fixers=["mutation", "sampling", "agent"])
    result = run(RunRequest(task="make the failing tests pass", repo=repo), config=config)
    assert result.status is RunStatus.FAILED, result.reason
    assert result.reason.startswith(f"model_unavailable (http://127.0.0.1:{port}/v1: 2 connection failures in a row"), \
        result.reason
    assert result.metadata.stop["before_model_unavailable"] == "no_progress"
