"""The run's time split is told by the calls that spend it: the test runs tell their seconds as
test time, a tool call that ran no tests tells its own as tool time. Nothing is guessed from a
tool's name."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codur.core.usage import UsageLedger
from codur.tools import ToolContext, ToolExecutor, ToolRegistry, tool


def test_tool_calls_tell_tool_time_and_test_runs_tell_test_time(invoice_repo: Path):
    ledger = UsageLedger()
    ex = ToolExecutor(invoice_repo, ledger=ledger)
    read = ex.execute("read_file", {"path": "billing.py"})
    assert read.ok and ledger.seconds["tools_s"] == pytest.approx(read.duration_s) and ledger.seconds["tests_s"] == 0
    tested = ex.execute("run_pytest", {})
    assert tested.ok and "2 failed" in tested.output
    # the test tool's seconds are test time (what the test run took), not tool time as well
    assert ledger.seconds["tools_s"] == pytest.approx(read.duration_s)
    assert 0 < ledger.seconds["tests_s"] <= tested.duration_s
    before = ledger.seconds["tests_s"]
    report = ex.run_tests(caller="verify")  # observe's and verify's runs: the same
    assert report.exit_code == 1 and ledger.seconds["tests_s"] == pytest.approx(before + report.duration_s, abs=0.01)
    assert ledger.seconds["tools_s"] == pytest.approx(read.duration_s)
    assert ledger.timings(100.0)["tests_s"] == round(ledger.seconds["tests_s"], 3)


def test_a_tool_named_for_tests_that_runs_none_is_tool_time(invoice_repo: Path):
    reg = ToolRegistry()

    @tool(scenarios=["code_fix"], registry=reg)
    def list_tests(ctx: ToolContext) -> str:
        """List the test files (runs nothing)."""
        time.sleep(0.05)
        return "test_billing.py"

    ledger = UsageLedger()
    ex = ToolExecutor(invoice_repo, registry=reg, ledger=ledger)
    listed = ex.execute("list_tests", {})
    assert listed.ok and listed.duration_s >= 0.05 and ledger.seconds["tools_s"] == pytest.approx(listed.duration_s)
    assert ledger.seconds["tests_s"] == 0


def test_a_run_bound_executor_tells_the_runs_ledger(invoice_repo: Path):
    import threading

    shared = ToolExecutor(invoice_repo)  # the caller's executor (EngineComponents.tools), no ledger of its own
    ledger = UsageLedger()
    run = shared.for_run(run_dir=None, cancel=threading.Event(), on_event=None, ledger=ledger)
    run.execute("read_file", {"path": "billing.py"})
    assert ledger.seconds["tools_s"] > 0


def test_the_ledger_takes_known_kinds_of_time_only():
    ledger = UsageLedger()
    ledger.spent("repair_s", 3.5)
    ledger.spent("tools_s", 0.25)
    assert ledger.timings(10.0) == {"tools_s": 0.25, "tests_s": 0.0, "repair_s": 3.5, "model_s": 0.0, "total_s": 10.0}
    with pytest.raises(ValueError, match="unknown kind of time 'test_s'"):
        ledger.spent("test_s", 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="negative"):
        ledger.spent("tests_s", -1.0)
    assert ledger.seconds == {"tools_s": 0.25, "tests_s": 0.0, "repair_s": 3.5}  # a bad call changed nothing
