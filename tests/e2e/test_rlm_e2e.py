"""End to end: the RLM engine with the real embedded model on a >1 MB needle-in-a-haystack context.

Asserts flow and format (code ran in the sandbox, the trace is complete and on disk), not the
model's cleverness; whether it found the needle is printed. Bounded: 3 iterations, 200-token
replies, a 150 s wall budget. Skips only when the `local` extra (xllamacpp) is not installed.
"""

import importlib.util
import json
from pathlib import Path

import pytest

from codur.config import CodurConfig
from codur.config.tables import ModelProfile
from codur.llm import get_chat_model
from codur.llm.local import stop_shared_server
from codur.rlm import FORCED_WARNING, RLMConfig, RLMEngine

pytestmark = pytest.mark.e2e
# codur imports xllamacpp lazily (codur/llm/local.py), so the imports above work without it
pytest.importorskip("xllamacpp")


def _niah():
    path = Path(__file__).resolve().parents[2] / "bench" / "rlm" / "niah.py"
    spec = importlib.util.spec_from_file_location("rlm_bench_niah", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def local_model():
    model = get_chat_model(ModelProfile(base_url=None, max_tokens=200), CodurConfig().local)
    yield model
    stop_shared_server()


def test_needle_in_a_1mb_haystack(local_model, tmp_path):
    niah = _niah()
    haystack, code = niah.make_haystack(1_100_000, seed=7)
    assert len(haystack) >= 1_000_000
    config = RLMConfig(max_iterations=3, max_depth=0, max_wall_s=150, block_timeout_s=30, sub_call_chars=4000)
    result = RLMEngine(local_model, config, run_dir=tmp_path).run(niah.QUESTION, haystack)
    trace = result.trace
    print(f"\nneedle {code} · answer {result.answer!r} · {result.answer_source} · "
          f"{len(trace.iterations)} iterations · {trace.duration_s:.0f}s\n{trace.render_tree()}")

    assert result.answer_source in ("final_direct", "final_var", "extracted", "forced"), trace.error
    assert result.answer
    executions = [e for it in trace.iterations for e in it.executions]
    assert executions, "the model wrote no code that ran"
    assert any(e.error is None for e in executions)
    if result.answer_source == "forced":
        assert FORCED_WARNING in trace.warnings

    data = json.loads(result.trace_path.read_text())
    assert data["id"] == trace.id and data["depth"] == 0 and data["task"] == niah.QUESTION
    assert data["answer"] == result.answer and data["answer_source"] == result.answer_source
    assert data["iterations"] and all(it["response"] for it in data["iterations"])
    for it in data["iterations"]:  # a model turn (none in the forced one), its JSON answer call, its check
        forced = any(n.startswith("forced:") for n in it["notes"])
        asked_again = any(n.startswith("forced answer refused") for n in it["notes"])
        assert it["usage"]["calls"] == (not forced) + bool(it["extraction"]) + bool(it["check"]) + asked_again
    assert all({"code", "stdout", "stderr", "error", "duration_s"} <= set(e)
               for it in data["iterations"] for e in it["executions"])
    sub_calls = sum(s["usage"]["calls"] for s in data["subcalls"])
    assert data["usage"]["calls"] == sum(it["usage"]["calls"] for it in data["iterations"]) + sub_calls
    assert data["usage"]["input_tokens"] > 0 and data["usage"]["cost_usd"] == 0
