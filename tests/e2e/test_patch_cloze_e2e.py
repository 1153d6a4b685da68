"""The cloze fixer with the real embedded model (Qwen2.5-Coder-1.5B via xllamacpp).

Asserts flow and format, not the model's cleverness: the run goes plan → patch, the model is
asked for fill-in-the-middle fills of the suspicious lines' masks, each reported (index,
template, line, outcome, tokens), every fill that parses and differs is tested with its
provenance, and the run ends patched by a fill or with no plausible patch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.patch.masks import TEMPLATES

from ..patch.conftest import write_repo
from ..patch.test_cloze import SHIPPING

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", autouse=True)
def _model(local_model_installed):
    """The real embedded model (tests/e2e/conftest.py)."""


def test_cloze_fills_on_the_shipping_fee(tmp_path: Path):
    repo = write_repo(tmp_path, SHIPPING)
    config = CodurConfig(fixers=["cloze"], repair_workers=2, timeout_s=600, patch_time_budget_s=240)
    events: list[dict] = []
    result = run(RunRequest(task="make the failing tests pass", repo=repo), config=config, on_event=events.append)

    assert result.nodes[:4] == ["initialize", "observe", "plan", "patch"]
    assert result.status in (RunStatus.SUCCESS, RunStatus.FAILED), result.reason
    phase = next(e for e in events if e["event_type"] == "patch.phase" and e["phase"] == "cloze")
    assert phase["candidates"] >= 8  # the masks of three lines, two fills each
    assert phase["form"] == "fim"  # the embedded model has fill-in-the-middle tokens and the endpoint
    filled = [e for e in events if e["event_type"] == "patch.fill"]
    assert filled and all(f["template"] in TEMPLATES and f["file"] == "shipping.py" for f in filled)
    assert all(f["outcome"] in ("candidate", "duplicate", "unchanged", "no_parse") for f in filled)
    assert all(f["tokens"] > 0 and "\n" not in f["fill"] for f in filled)
    # every fill is a model call of the run's usage ledger, with its model.call event
    calls = [e for e in events if e["event_type"] == "model.call" and not e.get("error")]
    assert result.llm_calls >= len(filled) and result.tokens >= sum(f["tokens"] for f in filled)
    assert len(calls) >= len(filled)
    tested = [e for e in events if e["event_type"] == "patch.candidate"]
    assert len(tested) <= sum(f["outcome"] == "candidate" for f in filled)
    assert all(e["source"] == "cloze" and e["provenance"]["template"] in TEMPLATES for e in tested)
    assert not [e for e in events if e["event_type"] == "patch.sample"]  # no whole-function sample
    if result.status is RunStatus.SUCCESS:
        assert "shipping.py" in result.diff and "ceil" in result.diff
    else:
        assert result.reason == "no_plausible_patch"


def test_the_embedded_server_decodes_every_fill_under_the_grammar_that_excludes_the_masked_code(tmp_path: Path):
    from codur.config.tables import ModelProfile
    from codur.llm.factory import get_chat_model
    from codur.patch.holes import FimAsk, fim_tokens
    from codur.patch.masks import masks

    repo = write_repo(tmp_path, SHIPPING)
    text = (repo / "shipping.py").read_text()
    model = get_chat_model(ModelProfile(base_url=None))
    ask = FimAsk(model, fim_tokens(model))
    holes = [m for m in masks(text, "shipping.py", [6, 8]) if m.original]  # the guard's and the fix line's
    replies = [(m, ask("", m, text, 0.0, 0)[0].split("\n")[0].strip()) for m in holes]
    assert ask.unlike and ask.form == "fim"  # llama.cpp took the grammar: never refused, never the chat form
    assert all(fill and fill != m.original.strip() and not fill.startswith("#") for m, fill in replies), replies
