"""What the progress lines and the summary say for each kind of event (no run needed)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from rich.console import Console

from codur.core.events import wire
from codur.core.events.model import ModelCall, ModelFallback, ModelStart
from codur.core.events.patch import PatchCandidate, PatchDone, PatchFound, PatchLocalized, PatchPhase, PatchSample
from codur.core.events.run import EngineState
from codur.core.events.tool import SandboxFallback, ToolCall
from codur.engine.contracts import RunMetadata, RunResult, RunStatus
from codur.ui.progress import Progress
from codur.ui.summary import figures, print_summary


def piped() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=200, highlight=False), buffer


def test_model_calls_show_role_tokens_and_seconds():
    console, out = piped()
    progress = Progress(console)
    # the engine hands on wire records; the view reads them back typed
    progress(wire(EngineState(state="act", node="execute", turn=1, phase="enter", status="running"), "r"))
    progress(wire(ModelStart(role="actor", model="qwen"), "r"))
    assert progress._activity.label == "model actor (qwen)"  # the spinner's line while the call runs
    progress(ModelCall(role="actor", model="qwen", input_tokens=1341, output_tokens=57, seconds=12.34,
                       cost_usd=0.0021))
    progress(ModelCall(role="planner", model="qwen", input_tokens=10, output_tokens=5, seconds=1.0, cost_usd=0.0))
    progress(ModelCall(role="critic", model="qwen", input_tokens=0, output_tokens=0, seconds=30.0, cost_usd=0.0,
                       error="APITimeoutError: Request timed out."))
    text = out.getvalue()
    assert "↳ model critic (qwen): APITimeoutError: Request timed out. 30.0s" in text
    assert "▶ execute (act, turn 1)" in text
    assert "↳ model actor (qwen): 1341 in / 57 out tokens 12.3s, $0.0021" in text
    assert "↳ model planner (qwen): 10 in / 5 out tokens 1.0s\n" in text
    assert progress.tally.run_id == "r"


def test_patch_pipeline_lines_are_readable_never_a_dict():
    console, out = piped()
    progress = Progress(console)
    events = [
        {"event": "patch.start", "fixers": ["mutation", "sampling"], "workers": 4},  # a trace's older key
        PatchLocalized(failing_tests=["t1", "t2"], suspicious=[["pages.py", 7, 0.9]], functions=[], elapsed_s=0.61,
                       tests_run=4, selection=False),
        PatchPhase(phase="sampling", functions=["get_page"]),
        PatchSample(k=0, variant="plain", temperature=0.0, outcome="candidate", seconds=8.2, tokens=310,
                    reply="def get_page..."),
        PatchCandidate(source="sampling", label="get_page rewritten by model sample 0",
                       provenance={"source": "sampling", "k": 0}, result="near_miss", fixed=1, seconds=0.8),
        PatchCandidate(source="mutation", label="pages.py:7 replaced - with +", provenance={"source": "mutation"},
                       result="failed", fixed=0, seconds=0.3),
        PatchFound(label="get_page rewritten by model sample 1", provenance={"source": "sampling", "k": 1}, diff="..."),
        PatchDone(status="patched", source="sampling", tried={"sampling": 2, "mutation": 1}, llm_calls=2,
                  tokens=620, elapsed_s=19.5, phases={}, message="", refused=[]),
    ]
    for event in events:
        progress(event)
    text = out.getvalue()
    assert "{" not in text and "'provenance'" not in text
    assert "↳ localized: 2 failing tests; suspicious pages.py:7 0.6s" in text
    assert "↳ sampling: get_page" in text
    assert "sample 0 (plain, T=0.0): candidate 310 tokens, 8.2s" in text
    assert "#1 sampling: get_page rewritten by model sample 0 → near_miss, fixed 1" in text
    assert "pages.py:7 replaced - with +" not in text  # a failed mutant: only with --verbose
    assert "plausible patch (model patch sample): get_page rewritten by model sample 1" in text
    assert "patch search patched: tried 2 sampling, 1 mutation 19.5s" in text
    assert progress.tally.fixer == "model patch sample"
    assert "best so far get_page rewritten by model sample 0" in progress._activity.label
    assert all(line.count("\n") == 0 for line in text.splitlines())


def test_quiet_prints_nothing():
    console, out = piped()
    progress = Progress(console, quiet=True)
    progress(wire(ToolCall(tool="run_pytest", args={}, ok=True, duration_s=2.5, output=""), "r"))
    progress(ToolCall(tool="read_file", args={"path": "a.py"}, ok=True, duration_s=0.5, output=""))
    assert out.getvalue() == "" and progress.tally.run_id == "r"


def test_spinner_only_on_a_terminal():
    console, _ = piped()
    progress = Progress(console)
    progress.start()
    assert not progress.animated and progress._live is None
    terminal = Console(file=io.StringIO(), force_terminal=True, width=100)
    progress = Progress(terminal)
    progress.start()
    try:
        assert progress.animated and progress._live is not None
        progress(ModelStart(role="actor", model="qwen"))
        time.sleep(0.3)
        with progress.paused():
            assert progress._live is None  # a question to the user is not drawn over
        assert progress._live is not None
    finally:
        progress.stop()
    assert "model actor (qwen)" in terminal.file.getvalue()


def test_summary_prefers_the_results_metadata(tmp_path: Path):
    (tmp_path / "trace.jsonl").write_text("")  # the summary names a trace that exists
    result = RunResult(run_id="r1", status=RunStatus.SUCCESS, reason="verified", turns=1, metadata=RunMetadata(
        diff="--- a/x.py\n+++ b/x.py\n", files_changed=["x.py"], run_dir=tmp_path,
        usage={"llm_calls": 3, "input_tokens": 900, "output_tokens": 80, "total_tokens": 980, "cost_usd": 0.0123,
               "model_s": 7.5},
        timings={"model_s": 7.5, "tools_s": 0.4, "tests_s": 2.0, "repair_s": 1.1, "total_s": 12.0},
        fixer="model patch sample", trace_path=tmp_path / "trace.jsonl"))
    console, out = piped()
    f = figures(result)
    assert (f["model_calls"], f["input_tokens"], f["cost_usd"], f["tests_s"]) == (3, 900, 0.0123, 2.0)
    print_summary(console, result)
    text = out.getvalue()
    assert "status: success  reason: verified" in text and "fixed by: model patch sample" in text
    assert "turns 1 · model calls 3 · tokens 900 in / 80 out · cost $0.0123" in text
    assert "time 12.0s: model 7.5s · tools 0.4s · tests 2.0s · repair 1.1s" in text
    assert "files changed: x.py" in text and f"trace: {tmp_path / 'trace.jsonl'}" in text
    assert "--- a/x.py\n+++ b/x.py\n" in text


def test_summary_without_timings_uses_the_results_duration():
    """The summary never sums events: a result without a time split shows its own duration."""
    result = RunResult(run_id="r2", status=RunStatus.FAILED, reason="max_turns", duration_s=30.0,
                       metadata=RunMetadata(usage={"llm_calls": 1, "input_tokens": 400, "output_tokens": 20}))
    console, out = piped()
    print_summary(console, result)
    text = out.getvalue()
    assert "status: failed  reason: max_turns" in text
    assert "model calls 1 · tokens 400 in / 20 out" in text and "cost" not in text  # a local model: no price
    assert "time 30.0s: model 0.0s · tools 0.0s · tests 0.0s · repair 0.0s" in text
    assert "files changed: (none)" in text


def test_the_sandbox_fallback_is_printed_once_per_run():
    """The tools and repair's test runs each say it; the user reads it once (issue 21, item 1)."""
    console, out = piped()
    progress = Progress(console)
    progress(SandboxFallback(reason="code runs without the bubblewrap sandbox (x)"))
    progress(SandboxFallback(reason="repair's test runs: code runs without the bubblewrap (x)"))
    assert out.getvalue().count("sandbox.fallback") == 1


def test_a_model_falling_back_to_its_next_profile_is_said():
    """The view once listened for ``agent.fallback``, which nothing emitted after it became
    ``model.fallback``: a fallback printed nothing. It subscribes by type now."""
    console, out = piped()
    Progress(console)(wire(ModelFallback(role="actor", from_profile=0, to_profile=1), "r"))
    assert out.getvalue() == "   ! model.fallback: actor: profile 0 → 1\n"


def test_a_record_its_type_does_not_declare_is_an_error_not_silence():
    progress = Progress(piped()[0])
    with pytest.raises(TypeError, match="tokens_in"):  # a renamed field: said, not drawn as nothing
        progress({"event_type": "model.call", "run_id": "r", "ts": 1.0, "model": "m", "tokens_in": 3})
    progress({"event_type": "run.result", "run_id": "r", "status": "success"})  # not an event type: not drawn
