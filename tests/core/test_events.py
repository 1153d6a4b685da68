"""Typed events: one dataclass per event type, one serializer, the registry as the code stands.

A renamed event type or field must be an error where it is built or read, never silence: every
type the progress view subscribes to is built by some emit site of codur, no emit site builds a
plain dict, and AGENTIC_LOGIC.md's events table lists exactly the registered types.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from codur.core.events import EVENT_TYPES, OMIT, Event, emit, parse, wire
from codur.core.events.model import ModelCall
from codur.core.events.tool import SecretRedacted
from codur.ui.progress import SUBSCRIBED

ROOT = Path(__file__).resolve().parents[2]
CODUR = ROOT / "codur"


def built_in_codur() -> dict[str, set[str]]:
    """{class name: modules of codur that call it} for every call of a bare or dotted name,
    outside the events' own package."""
    calls: dict[str, set[str]] = {}
    for path in CODUR.rglob("*.py"):
        if path.is_relative_to(CODUR / "core" / "events"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                calls.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return calls


def test_every_event_type_the_progress_view_draws_is_emitted_somewhere():
    """The view drew ``agent.fallback`` long after nothing emitted it (it became ``model.fallback``)."""
    calls = built_in_codur()
    assert SUBSCRIBED, "the view subscribes to nothing"
    never = sorted(t.event_type for t in SUBSCRIBED if not (calls.get(t.__name__, set()) - {"codur/ui/progress.py"}))
    assert never == []


def test_every_event_type_is_emitted_somewhere():
    calls = built_in_codur()
    never = sorted(kind for kind, cls in EVENT_TYPES.items() if cls.__name__ not in calls)
    assert never == []


def test_no_emit_site_builds_a_plain_dict():
    """The only ``{"event_type": ...}`` literals left are the one serializer's and the CLI's own
    ``run.result`` line (the result, not an event)."""
    found = set()
    for path in CODUR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "event_type"
                                                  for k in node.keys):
                found.add(str(path.relative_to(ROOT)))
    assert found == {"codur/core/events/base.py", "codur/commands/run.py"}


def sample(cls: type[Event]) -> Event:
    """An event of ``cls`` with every field it requires given (a distinct value per field)."""
    given = {f.name: f"<{f.name}>" for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING}
    return cls(**given)


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_the_one_serializer_keeps_the_envelope_first_and_the_declared_order(kind: str):
    cls = EVENT_TYPES[kind]
    event = sample(cls)
    record = wire(event, "run-1", ts=12.5)
    required = [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    assert list(record) == ["event_type", "run_id", "ts", *required]  # an OMIT field not given: not there
    assert record["event_type"] == kind and record["run_id"] == "run-1" and record["ts"] == 12.5
    assert parse(record) == event and type(parse(record)) is cls
    assert event["event_type"] == kind and dict(event) == {k: v for k, v in record.items() if k not in ("run_id", "ts")}


def test_an_optional_field_is_on_the_wire_only_when_given():
    ok = ModelCall(model="m", role="actor", node="execute", input_tokens=1, output_tokens=2, seconds=0.5, cost_usd=0.0)
    failed = ModelCall(model="m", input_tokens=0, output_tokens=0, seconds=0.5, cost_usd=0.0, error="Timeout")
    assert list(wire(ok)) == ["event_type", "run_id", "ts", "model", "role", "node", "input_tokens",
                              "output_tokens", "seconds", "cost_usd"]
    assert list(wire(failed))[3:] == ["model", "input_tokens", "output_tokens", "seconds", "cost_usd", "error"]
    assert failed.role is OMIT and not failed.role and "role" not in failed and failed.get("role") is None
    assert list(wire(SecretRedacted(command="sh", count=1, kinds=["Secret Keyword"])))[3:] == ["command", "count",
                                                                                               "kinds"]


def test_a_renamed_field_or_type_is_an_error_not_silence():
    with pytest.raises(TypeError, match="tokens_in"):
        ModelCall(model="m", tokens_in=1, output_tokens=2, seconds=0.5, cost_usd=0.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="input_tokens"):
        parse({"event_type": "model.call", "run_id": "", "ts": 0, "model": "m", "output_tokens": 2, "seconds": 0,
               "cost_usd": 0})
    assert parse({"event_type": "agent.fallback", "role": "actor"}) is None  # no such type: not drawn, not guessed
    with pytest.raises(dataclasses.FrozenInstanceError):
        sample(ModelCall).seconds = 1.0  # type: ignore[misc]


def test_an_event_type_is_declared_once_and_named():
    with pytest.raises(TypeError, match="is ModelCall already"):
        type("Again", (Event,), {}, kind="model.call")
    with pytest.raises(TypeError, match="names its wire type"):
        type("Nameless", (Event,), {})


def test_emit_takes_events_only():
    with pytest.raises(TypeError, match="not dict"):
        emit({"event_type": "tool.call", "tool": "read_file"})  # type: ignore[arg-type]
    assert emit(sample(ModelCall)) is False  # outside a graph run: nowhere to go


def test_the_design_document_lists_the_event_types_as_the_code_stands():
    text = (ROOT / "AGENTIC_LOGIC.md").read_text(encoding="utf-8")
    section = text.split("## Events and the trace", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    listed = {name for row in rows for name in re.findall(r"`([a-z_]+\.[a-z_]+)`", row.split("|")[1])}
    assert listed == set(EVENT_TYPES)
