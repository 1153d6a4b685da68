"""Issue 38, seed 004's components: ``EngineComponents`` carries the ToolExecutor every tool call
goes through, and the session store (``memory=``) is written and read by every run that has one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from codur import CodurConfig
from codur.engine import EngineComponents, InMemorySessionStore, LocalEngine, MockProvider, Policies, RunRequest
from codur.tools import ToolExecutor, ToolSettings

FIX_OLD, FIX_NEW = "if quantity > BULK_THRESHOLD:", "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def config(**overrides) -> CodurConfig:
    return CodurConfig(**{"critic": False, "repair": False, "retry_base_delay_s": 0, **overrides})


class RecordingExecutor(ToolExecutor):
    """A caller's executor: logs every tool call and test run submitted to it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.log: list[str] = []

    def execute(self, name, args=None, call_id=""):
        self.log.append(name)
        return super().execute(name, args, call_id)

    def run_tests(self, selection=None, **kwargs):
        self.log.append(f"tests:{kwargs.get('caller', '')}")
        return super().run_tests(selection, **kwargs)


def test_the_seed_minimal_example_leaves_the_user_message_in_memory(tmp_path: Path, monkeypatch) -> None:
    """Seed 004's example (``agent_core`` → ``codur``), without a session id: its store holds the run."""
    from codur.engine import LocalEngine as Engine
    from codur.memory import InMemorySessionStore as Store
    from codur.providers import MockProvider as Mock

    monkeypatch.chdir(tmp_path)
    engine = Engine()
    components = EngineComponents(models={"planner": Mock(), "actor": Mock()}, memory=Store())
    result = asyncio.run(engine.execute(RunRequest(input="Hello"), components))
    history = components.session_store.history(result.run_id)
    assert [(e.task, e.status) for e in history] == [("Hello", "running"), ("Hello", result.status.value)]
    assert history[-1].output_text == result.output_text != ""


def test_runs_without_a_session_id_each_write_their_own_entries_and_read_none_of_the_others(invoice_repo):
    store = InMemorySessionStore()
    engine = LocalEngine(config(max_turns=1))
    first = engine.run(RunRequest(input="what does billing.py compute?", repo=invoice_repo),
                       EngineComponents(models=MockProvider(["It totals invoices."]), memory=store))
    provider = MockProvider(["Still totals."])
    second = engine.run(RunRequest(input="what does billing.py compute?", repo=invoice_repo),
                        EngineComponents(models=provider, memory=store))
    assert {e.run_id for e in store.history(first.run_id)} == {first.run_id}
    assert {e.run_id for e in store.history(second.run_id)} == {second.run_id}
    assert "Earlier in this session" not in str(provider.model("actor").calls)  # a run alone is its own session


def test_a_session_id_still_shares_the_store_between_runs(invoice_repo: Path) -> None:
    store = InMemorySessionStore()
    engine = LocalEngine(config(max_turns=1))
    provider = MockProvider(["It totals invoices.", "Yes, with VAT."])
    engine.run(RunRequest(input="what does billing.py compute?", repo=invoice_repo, session_id="s1"),
               EngineComponents(models=provider, memory=store))
    engine.run(RunRequest(input="does it add VAT?", repo=invoice_repo, session_id="s1"),
               EngineComponents(models=provider, memory=store))
    assert [e.task for e in store.history("s1", limit=10)].count("what does billing.py compute?") == 2
    assert "Earlier in this session" in str(provider.model("actor").calls[-1])


def test_every_tool_call_and_test_run_goes_through_the_components_executor(invoice_repo: Path) -> None:
    tools = RecordingExecutor(invoice_repo, ToolSettings(timeout_s=120))
    replies = [call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "Fixed the bulk discount."]
    result = LocalEngine(config(max_turns=2)).run(
        RunRequest(input="make the failing tests pass", repo=invoice_repo),
        EngineComponents(models=MockProvider(replies), tools=tools))
    assert result.ok, result.reason
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()
    assert tools.log == ["tests:observe", "replace_in_file", "tests:verify"]
    assert tools.journal.changed_files == []  # each run binds the executor to a journal of its own
    assert result.files_changed == ["billing.py"]


def test_the_components_executor_policy_is_the_runs(invoice_repo: Path) -> None:
    before = (invoice_repo / "billing.py").read_text()
    tools = RecordingExecutor(invoice_repo, ToolSettings(policy="read_only", timeout_s=120))
    replies = [call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "I cannot write."]
    result = LocalEngine(config(max_turns=1, keep_failed=True)).run(
        RunRequest(input="make the failing tests pass", repo=invoice_repo),
        EngineComponents(models=MockProvider(replies), tools=tools))
    # read_only held: a fix ends with the plan and a proposed diff, nothing written
    assert (result.status.value, result.reason) == ("success", "read_only_proposal") and result.files_changed == []
    assert (invoice_repo / "billing.py").read_text() == before
    assert tools.log[0] == "tests:observe" and "replace_in_file" not in tools.log  # not offered under read_only


def test_a_components_executor_on_another_folder_or_policy_is_a_clear_error(invoice_repo: Path, tmp_path: Path):
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(ValueError, match="not on the request's repo"):
        LocalEngine(config()).run(RunRequest(input="hi", repo=invoice_repo),
                                  EngineComponents(models=MockProvider(["hi"]), tools=ToolExecutor(other)))
    with pytest.raises(ValueError, match="policies.tool_policy is 'auto'"):
        EngineComponents(tools=ToolExecutor(invoice_repo, ToolSettings(policy="read_only")),
                         policies=Policies(tool_policy="auto"))
    with pytest.raises(TypeError, match="a codur ToolExecutor"):
        EngineComponents(tools=object())  # type: ignore[arg-type]
