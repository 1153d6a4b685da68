"""Model patch sampling with the real embedded model (Qwen2.5-Coder-1.5B via xllamacpp).

Asserts flow and format, not the model's cleverness: the run goes plan → patch, the
sampler draws samples from the real model and reports each (index, prompt variant,
temperature, outcome, tokens), every spliced candidate is tested by the evaluator with
its provenance, and the run ends either patched by a model sample (success, the diff
touches the suspicious function) or with no plausible patch (failed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", autouse=True)
def _model(local_model_installed):
    """The real embedded model (tests/e2e/conftest.py)."""


def test_sampling_on_paginate_example(paginate_repo: Path):
    config = CodurConfig(fixers=["sampling"], samples=3, repair_workers=2, timeout_s=600)
    events: list[dict] = []
    result = run(RunRequest(task="make the failing tests pass", repo=paginate_repo), config=config,
                 on_event=events.append)

    assert result.nodes[:4] == ["initialize", "observe", "plan", "patch"]
    assert result.status in (RunStatus.SUCCESS, RunStatus.FAILED), result.reason
    phase = next(e for e in events if e["event_type"] == "patch.phase" and e["phase"] == "sampling")
    assert phase["file"] == "pages.py" and "get_page" in phase["functions"]

    samples = [e for e in events if e["event_type"] == "patch.sample"]
    assert 1 <= len(samples) <= 3
    assert [s["k"] for s in samples] == list(range(len(samples)))
    assert samples[0]["variant"] == "plain" and samples[0]["temperature"] == 0.0
    assert all(s["outcome"] in ("candidate", "duplicate", "unchanged", "no_code", "stopped") for s in samples)
    assert all(s["tokens"] > 0 for s in samples if s["outcome"] != "stopped")

    tested = [e for e in events if e["event_type"] == "patch.candidate"]
    assert len(tested) <= sum(s["outcome"] == "candidate" for s in samples)
    assert all(e["source"] == "sampling" and e["provenance"]["sample"] in range(3) for e in tested)
    assert result.llm_calls >= 1 and result.tokens > 0 and result.cost_usd == 0.0

    done = next(e for e in events if e["event_type"] == "patch.done")
    if result.status is RunStatus.SUCCESS:
        assert done["status"] == "patched" and done["source"] == "sampling"
        assert "model patch sample" in result.summary and "pages.py" in result.diff
        assert result.nodes[4:] == ["verify", "review", "done"]
    else:
        assert result.reason == "no_plausible_patch" and result.diff == ""
    trace = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["k"] for e in trace if e["event_type"] == "patch.sample"] == [s["k"] for s in samples]
