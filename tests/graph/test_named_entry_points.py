"""The execution module's named entry points (issue 23, item 3): thin front doors over codur's
own functions, each importable under the name its specification gives it."""

from __future__ import annotations

import pytest

from codur.graph.records import AgentOutcome
from codur.graph.verification.verdict import Verdict
from codur.tools import list_tools_for_tasks


def test_verification_agent_node_is_the_verify_node():
    from codur.graph.execution import delegate_node, execute_node, review_node, verification_agent_node
    from codur.graph.execution.verification_agent import verification_agent_node as defined

    assert verification_agent_node is defined and verification_agent_node.name == "verify"
    for node in (delegate_node, execute_node, review_node, verification_agent_node):
        assert callable(node.body)  # the graph node wrapper around the body


def test_constants_task_type_is_the_registry_enum():
    from codur.constants import TaskType
    from codur.tools.registry import TaskType as registry_task_type

    assert TaskType is registry_task_type
    assert TaskType("code_fix") is TaskType.CODE_FIX


def test_listed_tools_read_as_the_documented_dicts():
    tools = list_tools_for_tasks(["explanation"])
    by_name = {tool["name"]: tool for tool in tools}
    assert "read_file" in by_name
    assert "explanation" in by_name["read_file"].get("scenarios")
    assert by_name["read_file"].get("no_such_field", "absent") == "absent"
    assert "summary" in by_name["read_file"] and by_name["read_file"].keys()[0] == "name"
    with pytest.raises(KeyError):
        by_name["read_file"]["annotated"]  # a property, not a field


def test_node_outputs_answer_status_read_only():
    outcome = AgentOutcome(agent="coder", status="completed", summary="fixed")
    assert outcome["status"] == "completed" and outcome.get("summary") == "fixed"
    assert outcome.get("missing") is None and dict(outcome)["agent"] == "coder"
    with pytest.raises(KeyError):
        outcome["missing"]
    with pytest.raises(TypeError):
        outcome["status"] = "failed"  # type: ignore[index]
    verdict = Verdict(passed=False, strategy="tests", reasoning="pytest: 1 failed")
    assert verdict["passed"] is False and verdict.get("strategy") == "tests"


def test_config_runtime_max_iterations_bounds_the_verification_retries(invoice_repo):
    from codur import CodurConfig, RunRequest, RunStatus, run
    from codur.llm import ScriptedChatModel, StaticModelProvider

    def edit(old: str, new: str) -> str:
        return f'```json\n{{"name": "replace_in_file", "arguments": {{"path": "billing.py", "old": "{old}", ' \
               f'"new": "{new}"}}}}\n```'

    config = CodurConfig(max_turns=2, critic=False, repair=False, retry_base_delay_s=0)
    assert config.runtime.max_iterations == 2 and config.runtime.tool_iterations == config.max_iterations
    with pytest.raises(AttributeError):
        config.runtime.max_iterations = 9  # type: ignore[misc]  # a view: the setting is max_turns
    actor = ScriptedChatModel(replies=[edit("VAT_PERCENT = 20", "VAT_PERCENT = 21"), "done",
                                       edit("VAT_PERCENT = 21", "VAT_PERCENT = 22"), "done", "done"])
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo),
                 models=StaticModelProvider({"actor": actor}), config=config)
    assert result.status is RunStatus.FAILED and result.reason == "max_turns"
    assert result.turns == config.runtime.max_iterations and result.nodes.count("verify") == 2
