"""The trace tree from events as main's engine contract writes them (event_type, model.call)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from codur.history.runs import RunInfo
from codur.history.trace import trace_tree


def render(events: list[dict], **run) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115 - closed with the console
    info = RunInfo(run_id="20261122-190000-abcdef", run_dir=Path("."), task="fix it", status="success", **run)
    console.print(trace_tree(info, events))
    console.file.close()
    return console.export_text()


def state(node: str, state: str, turn: int, ts: float) -> dict:
    return {"event_type": "engine.state", "node": node, "state": state, "turn": turn, "status": "running", "ts": ts}


EVENTS = [
    {"event_type": "run.start", "task": "fix it", "ts": 100.0},
    state("initialize", "initialize", 0, 100.0),
    state("plan", "plan", 0, 100.5),
    {"event_type": "model.start", "role": "planner", "model": "m", "ts": 100.6},
    {"event_type": "model.call", "role": "planner", "model": "m", "input_tokens": 1200, "output_tokens": 80,
     "seconds": 2.25, "cost_usd": 0.0012, "ts": 102.9},
    state("patch", "act", 0, 103.0),
    {"event_type": "patch.found", "label": "billing.py:19 replaced > with >=", "provenance": "mutation",
     "diff": "--- a/x\n", "ts": 104.0},
    state("verify", "verify", 1, 105.0),
    {"event_type": "tool.call", "tool": "run_pytest", "args": {"path": "tests", "content": "x" * 500}, "ok": False,
     "duration_s": 1.5, "output": "1 failed", "ts": 106.5},
    state("done", "done", 1, 107.0),
    {"event_type": "run.end", "status": "success", "reason": "verified", "ts": 107.25},
]


def test_turns_nodes_calls_and_durations():
    text = render(EVENTS, reason="verified")
    lines = [line.strip("│├└─ ") for line in text.splitlines()]
    assert lines[0] == "20261122-190000-abcdef fix it · success (verified)"
    assert lines[1:] == [
        "turn 0",
        "initialize (initialize) 0.50s",
        "plan (plan) 2.50s",
        "model planner m: 1200→80 tokens, $0.0012 2.25s",
        "turn 1",  # the patch node starts turn 1 (verify is in it)
        "patch (act) 2.00s",
        "patch.found label=billing.py:19 replaced > with >= provenance=mutation",
        "verify (verify) 2.00s",
        "run_pytest(path='tests') error 1.50s",
        "done (done) 0.25s",
    ]


def test_old_traces_with_the_event_key_and_a_run_that_never_reached_a_node():
    old = [{**e, "event": e.pop("event_type")} for e in (dict(e) for e in EVENTS)]
    assert render(old, reason="verified") == render(EVENTS, reason="verified")
    text = render([{"event_type": "run.start", "ts": 1.0}, {"event_type": "sandbox.fallback", "reason": "no bwrap"}])
    assert "sandbox.fallback reason=no bwrap" in text


def leave(node: str, state: str, turn: int, ts: float, status: str) -> dict:
    return {"event_type": "engine.state", "phase": "exit", "node": node, "state": state, "turn": turn,
            "status": status, "seconds": 0.1, "ts": ts}


def test_each_node_shows_its_own_outcome_even_when_a_run_was_killed_inside_one():
    """A node's exit event is paired with its own entry: a run killed inside observe (no exit),
    then resumed, marks the resumed observe's outcome, not the next node's."""
    events = [
        {"event_type": "run.start", "task": "fix it", "ts": 100.0},
        {**state("initialize", "initialize", 0, 100.0), "phase": "enter"},
        leave("initialize", "initialize", 0, 100.1, "success"),
        {**state("observe", "observe", 0, 100.2), "phase": "enter"},  # killed here: no exit
        {**state("observe", "observe", 0, 200.0), "phase": "enter"},  # the resumed run
        leave("observe", "observe", 0, 201.0, "error"),
        {**state("done", "done", 0, 201.1), "phase": "enter"},
        leave("done", "done", 0, 201.2, "error"),
    ]
    lines = [line.strip("│├└─ ") for line in render(events).splitlines()]
    assert [line for line in lines if line.startswith(("initialize", "observe", "done"))] == [
        "initialize (initialize) 0.20s", "observe (observe) 99.80s", "observe (observe) error 1.10s",
        "done (done) error 0.10s"]
