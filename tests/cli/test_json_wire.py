"""The ``--json`` wire format, line for line: a scripted run's events as they were recorded before
the events became dataclasses (``tests/cli/wire/*.jsonl``), with what changes from run to run
(ids, clocks, durations, paths) put in angle brackets. A field renamed, reordered, added or dropped
on any event fails here.

To record the expectations again after a deliberate change of the wire format:
``CODUR_RECORD_WIRE=1 pytest tests/cli/test_json_wire.py``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest


def call(name: str, **arguments) -> str:
    """A tool call the way the local model writes it: a fenced JSON block in the content."""
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def fix_call() -> str:
    return call("replace_in_file", path="billing.py", old="if quantity > BULK_THRESHOLD:",
                new="if quantity >= BULK_THRESHOLD:")

WIRE = Path(__file__).parent / "wire"
TASK = "make the failing tests pass"
#: keys whose values are clocks or durations: the same key, another value on every run
CLOCKS = frozenset({"ts", "duration_s", "seconds", "elapsed_s", "model_s", "total_s", "tools_s", "tests_s",
                    "repair_s"})
#: keys whose values are dicts of clocks (the patch search's seconds per phase)
CLOCK_DICTS = frozenset({"phases"})


def normal(value: Any, where: dict[str, str], key: str = "") -> Any:
    """``value`` with clocks, the run id, the repo's path and the interpreter put in angle brackets."""
    if isinstance(value, dict):
        if key in CLOCK_DICTS:
            return dict.fromkeys(value, "<s>")
        return {k: normal(v, where, k) for k, v in value.items()}
    if isinstance(value, list):
        return [normal(v, where) for v in value]
    if key in CLOCKS and isinstance(value, int | float) and not isinstance(value, bool):
        return "<s>"
    if isinstance(value, str):
        for real, mark in where.items():
            value = value.replace(real, mark)
    return value


def lines_of(stdout: str, repo: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in stdout.splitlines()]
    where = {records[0]["run_id"]: "<run>", str(repo): "<repo>", sys.executable: "<python>"}
    return [normal(r, where) for r in records]


def expect(name: str, got: list[dict[str, Any]]) -> list[dict[str, Any]]:
    path = WIRE / f"{name}.jsonl"
    if os.environ.get("CODUR_RECORD_WIRE"):
        path.write_text("".join(json.dumps(r) + "\n" for r in got), encoding="utf-8")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_agent_run_writes_the_recorded_lines(invoice_repo: Path, scripted, invoke):
    scripted([call("read_file", path="billing.py"), fix_call(), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--json")
    assert res.exit_code == 0, res.output
    got = lines_of(res.stdout, invoice_repo)
    want = expect("agent", got)
    # key order too: the wire is compared as text, line by line
    assert [json.dumps(r) for r in got] == [json.dumps(r) for r in want]


def test_a_patch_run_writes_the_recorded_kinds_of_line(invoice_repo: Path, scripted, invoke,
                                                         monkeypatch: pytest.MonkeyPatch):
    """The patch pipeline's workers finish in any order: each kind of line (its type and its keys,
    in order) is compared, and the lines before the search and after it as text (the result's
    line says how many candidates were tried: its keys are compared)."""
    monkeypatch.setenv("CODUR_REPAIR", "true")
    monkeypatch.setenv("CODUR_FIXERS", "mutation")
    scripted(["Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--json")
    assert res.exit_code == 0, res.output
    got = lines_of(res.stdout, invoice_repo)
    want = expect("patch", got)
    shape = sorted({json.dumps([r["event_type"], list(r)]) for r in got})
    assert shape == sorted({json.dumps([r["event_type"], list(r)]) for r in want})
    def fixed(records: list[dict[str, Any]]) -> list[str]:
        return [json.dumps(r) for r in records if not r["event_type"].startswith(("patch.", "run.result"))]

    assert fixed(got) == fixed(want)


