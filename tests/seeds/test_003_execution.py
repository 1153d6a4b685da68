"""Specification 003, "Execution Module", requirement by requirement, in its words.

Runs use codur's scripted chat models on fresh repos in tmp_path: a plain script repo
(``main.py`` without a ``__main__`` guard, and the output it must print in ``expected.txt``)
keeps them free of test runs. Rows being finished elsewhere (review's retry of a different
error, the message history and tool calls in the state, ``execute_node``'s ``llm_calls``) are
listed in docs/SPEC_CONFORMANCE.md as in progress, without a test here yet.
"""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.config import ConfigError, load_config
from codur.graph.context import build_context
from codur.graph.records import PlanInfo
from codur.graph.state import ExecuteNodeResult, initial_state
from codur.graph.verification.deterministic import verify_repo
from codur.graph.verification.verdict import Verdict
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.tools.executor import ToolExecutor
from tests.seeds.conftest import ROOT, python_blocks, run_example

BUGGY = "def total(xs):\n    return sum(xs[1:])\n\n\nprint('total:', total([1, 2, 3]))\n"
PLAN = json.dumps({"task_type": "code_fix", "agent": "coder", "steps": ["fix total() in main.py"]})


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def edit(new: str) -> str:
    return call("replace_in_file", path="main.py", old="sum(xs[1:])", new=new)


@pytest.fixture
def script_repo(tmp_path: Path) -> Path:
    """A plain script (no ``__main__`` guard, no tests) that prints 5 where expected.txt says 6."""
    repo = tmp_path / "script"
    repo.mkdir()
    (repo / "main.py").write_text(BUGGY)
    (repo / "expected.txt").write_text("total: 6\n")
    return repo


def fix_run(repo: Path, actor: list, *, planner: list | None = None, **settings):
    models = {"actor": ScriptedChatModel(replies=actor),
              "planner": ScriptedChatModel(replies=planner or [lambda _messages: PLAN] * 6)}
    config = CodurConfig(**{"critic": False, "repair": False, "retry_base_delay_s": 0, **settings})
    result = run(RunRequest(task="fix the bug in main.py", repo=repo), models=StaticModelProvider(models),
                 config=config)
    return result, models


# -- Architecture ----------------------------------------------------------------------------------

@pytest.mark.parametrize("module", ["delegate", "execute", "review", "agent_executor", "verification_agent",
                                    "repair"])
def test_the_execution_module_is_organized_into_its_named_modules(module: str):
    assert importlib.import_module(f"codur.graph.execution.{module}").__file__.endswith(f"execution/{module}.py")


def test_coding_agent_is_in_codur_graph():
    from codur.graph import coding_agent

    assert coding_agent.__file__.endswith("codur/graph/coding_agent.py") and callable(coding_agent.build_agent)


def test_import_specific_functions_from_codur_graph_execution():
    from codur.graph.execution import (
        AgentExecutor,
        ExecuteNodeResult,
        delegate_node,
        execute_node,
        review_node,
        verification_agent_node,
    )

    assert {n.name for n in (delegate_node, execute_node, review_node, verification_agent_node)} == {
        "delegate", "execute", "review", "verify"}
    assert inspect.isclass(AgentExecutor) and ExecuteNodeResult.__required_keys__ == frozenset()


def test_see_also_documents_exist():
    for path in ("AGENTIC_LOGIC.md", "CODING.md", "codur/tools/README.md", "codur/graph/planning"):
        assert (ROOT / path).exists()


# -- Execution Flow and review_node ----------------------------------------------------------------

def test_execution_flow_delegate_execute_verification_review_and_verification_passed_ends(script_repo: Path):
    result, _ = fix_run(script_repo, [edit("sum(xs)"), "Fixed."])
    assert (result.status, result.reason) == (RunStatus.SUCCESS, "verified")
    assert result.nodes == ["initialize", "observe", "plan", "delegate", "execute", "verify", "review", "done"]


def test_fix_task_runs_python_main_py_and_compares_with_expected_txt(script_repo: Path):
    """The plain script is run (no ``__main__`` guard needed) and its output compared with
    expected.txt: a wrong fix no longer ends ``success verified`` on a syntax check."""
    result, _ = fix_run(script_repo, [edit("sum(xs[2:])"), "Fixed."], max_turns=1)
    assert result.status is RunStatus.FAILED and result.reason == "max_turns"
    verdict = result.verification
    assert verdict["strategy"] == "entry_points" and not verdict["passed"]
    commands = [e["command"] for e in verdict["evidence"]]
    assert commands[:2] == ["python main.py", "compare with expected.txt"]
    assert "expected 'total: 6', got 'total: 3'" in verdict["evidence"][1]["output"]


def test_app_py_is_run_too_and_its_output_compared(tmp_path: Path):
    (tmp_path / "app.py").write_text("print('ready')\n")
    (tmp_path / "expected.txt").write_text("ready\n")
    ctx = ToolExecutor(tmp_path).ctx
    good = verify_repo(ctx, task="fix app.py", task_type="code_fix", changed=["app.py"], has_tests=False)
    assert good.passed and [e.command for e in good.evidence][:2] == ["python app.py", "compare with expected.txt"]
    (tmp_path / "expected.txt").write_text("started\n")
    assert not verify_repo(ctx, task="fix app.py", task_type="code_fix", changed=["app.py"], has_tests=False).passed


def test_an_entry_script_runs_with_a_time_limit(tmp_path: Path, monkeypatch):
    from codur.graph.verification import deterministic

    monkeypatch.setattr(deterministic, "ENTRY_TIMEOUT_S", 1.0)
    (tmp_path / "main.py").write_text("import time\nprint('starting', flush=True)\ntime.sleep(60)\n")
    verdict = verify_repo(ToolExecutor(tmp_path).ctx, task="fix main.py", task_type="code_fix",
                          changed=["main.py"], has_tests=False)
    assert not verdict.passed and "still running after 1 s" in verdict.evidence[0].output


def test_same_error_repeats_agent_is_stuck_exit(script_repo: Path):
    result, _ = fix_run(script_repo, [edit("sum(xs[2:])"), "Fixed.", "I am sure it is right now."], max_turns=3)
    assert (result.status, result.reason, result.turns) == (RunStatus.FAILED, "stuck", 2)


def test_tool_result_only_continues_to_planning_then_success_is_accepted(script_repo: Path):
    actor = [call("read_file", path="main.py"), "It sums from the second item.", edit("sum(xs)"), "Fixed."]
    result, models = fix_run(script_repo, actor, max_turns=3)
    assert result.nodes.count("plan") == 2 and result.nodes[result.nodes.index("review") + 1] == "plan"
    assert (result.status, result.reason, result.turns) == (RunStatus.SUCCESS, "verified", 2)
    assert models["planner"].calls  # the replan asked the planner


def test_fix_tasks_are_detected_once_by_plan_and_review_reads_the_task_type():
    """Deviation: the task type is decided once, by plan (its wording's fast path, else the
    planner model), not by review re-reading the message; review reads ``task_type``."""
    from codur.graph.planning.plan import classify
    from codur.tools.registry import TaskType

    assert classify("fix the crash in main.py", failing_tests=True) is TaskType.CODE_FIX
    assert classify("why does main.py print 5?", failing_tests=False) in (TaskType.EXPLANATION,
                                                                          TaskType.CODE_ANALYSIS)


def test_with_tests_the_suite_is_the_verification_and_entry_scripts_are_not_run(tmp_path: Path):
    """Deviation: ``python main.py or app.py`` with ``expected.txt`` is the verification of a repo
    without tests; where the repo has tests, they decide."""
    (tmp_path / "main.py").write_text("print('wrong')\n")
    (tmp_path / "expected.txt").write_text("right\n")
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1\n")
    verdict = verify_repo(ToolExecutor(tmp_path).ctx, task="fix", task_type="code_fix", changed=[],
                          has_tests=True)
    assert verdict.passed and verdict.strategy == "tests"
    assert all("main.py" not in e.command for e in verdict.evidence)


def test_local_repair_runs_first_as_the_patch_node_not_as_a_last_resort(script_repo: Path):
    """Deviation: the mutation search (the patch node) runs right after plan for a fix task with
    failing tests, the cheapest fixer first; ``_attempt_local_repair`` stays for callers."""
    from codur.graph.records import Observation, TestObservation
    from codur.graph.routing import patch_eligible
    from codur.testing.report import records_of, run_of

    ctx = build_context(script_repo, CodurConfig(critic=False),
                        models=StaticModelProvider({"actor": ScriptedChatModel(replies=[])}))
    state = {**initial_state("fix the failing test", str(script_repo), "r-1"), "task_type": "code_fix",
             "observation": Observation(files=["calc.py", "test_calc.py"], has_tests=True,
                                        tests=TestObservation(
                                            run=run_of(records_of(failed=["test_calc.py::test_area"]), 1)))}
    assert patch_eligible(state, ctx)
    assert not patch_eligible({**state, "patch_attempted": True}, ctx)  # once per run


# -- delegate_node ---------------------------------------------------------------------------------

def test_delegate_node_routes_to_the_selected_agent_or_the_configured_default(script_repo: Path):
    from codur.graph.execution import delegate_node

    config = CodurConfig(critic=False, agents={"reviewer": {"kind": "llm"}}, default_agent="coder")
    ctx = build_context(script_repo, config, models=StaticModelProvider({"actor": ScriptedChatModel(replies=[])}))
    state = initial_state("fix main.py", str(script_repo), "r-1")
    chosen = delegate_node.body({**state, "plan": PlanInfo(agent="reviewer")}, ctx)
    assert chosen["agent_outcome"]["agent"] == "reviewer" and chosen["agent_outcome"]["status"] == "delegated"
    fallback = delegate_node.body({**state, "plan": PlanInfo(agent="no-such-agent")}, ctx)
    assert fallback["agent_outcome"]["agent"] == "coder" and fallback["agent_outcome"]["status"] == "delegated"


# -- AgentExecutor ---------------------------------------------------------------------------------

def test_agent_executor_tool_loop_max_5_iterations_by_default(script_repo: Path):
    from codur.graph.execution import AgentExecutor

    assert inspect.signature(AgentExecutor).parameters["max_iterations"].default == 5
    assert CodurConfig().runtime.tool_iterations == 5
    for n in range(8):
        (script_repo / f"note{n}.txt").write_text(f"note {n}\n")
    reads = [call("read_file", path=f"note{n}.txt") for n in range(8)]
    result, models = fix_run(script_repo, reads, max_turns=1)
    assert len(models["actor"].calls) == 5  # the loop's model calls stop at 5


def test_tool_loop_detects_tool_calls_executes_them_and_feeds_results_back(script_repo: Path):
    result, models = fix_run(script_repo, [call("read_file", path="main.py"), edit("sum(xs)"), "Fixed."])
    second = models["actor"].calls[1]
    assert "sum(xs[1:])" in second[-1].content  # the read's result went back to the model
    assert result.ok and len(models["actor"].calls) == 3  # no tool call in the third reply: the loop ends


def test_agent_executor_supports_llm_profiles_llm_agents_and_registered_agents(script_repo: Path):
    from codur.core.ports import AgentPort
    from codur.graph.coding_agent import build_agent

    config = CodurConfig(critic=False, profiles={"small": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}},
                         agents={"profiled": {"kind": "llm", "profile": "small"}, "plain": {"kind": "llm"},
                                 "shell": {"kind": "cli", "command": ["true"]}})
    ctx = build_context(script_repo, config, models=StaticModelProvider({"actor": ScriptedChatModel(replies=[])}))
    state = initial_state("fix main.py", str(script_repo), "r-1")
    for name in ("profiled", "plain", "shell", "coder"):
        agent, _ = build_agent(state, ctx, name)
        assert isinstance(agent, AgentPort)


# -- verification_agent_node -----------------------------------------------------------------------

def test_verification_agent_node_returns_execute_node_result_with_verification_details(script_repo: Path):
    from codur.graph.execution import verification_agent_node

    ctx = build_context(script_repo, CodurConfig(critic=False),
                        models=StaticModelProvider({"actor": ScriptedChatModel(replies=[])}))
    state = {**initial_state("fix the bug in main.py", str(script_repo), "r-1"), "task_type": "code_fix"}
    update: ExecuteNodeResult = verification_agent_node.body(state, ctx)
    details = update["verification_details"]
    assert isinstance(details, Verdict) and details["passed"] is False
    assert details["reasoning"].startswith("failed:") and isinstance(details["suggestions"], list)
    assert update["failure_signatures"] == [details["signature"]]


def test_verification_agent_infers_its_strategy_test_execution_static_hybrid(tmp_path: Path):
    static = tmp_path / "static"
    static.mkdir()
    (static / "lib.py").write_text("X = 1\n")
    tested = tmp_path / "tested"
    tested.mkdir()
    (tested / "test_one.py").write_text("def test_one():\n    assert 1\n")
    ctx = ToolExecutor(static).ctx
    assert verify_repo(ctx, task="fix", task_type="code_fix", changed=["lib.py"], has_tests=False).strategy == "static"
    tests = verify_repo(ToolExecutor(tested).ctx, task="fix", task_type="code_fix", changed=[], has_tests=True)
    assert tests.strategy == "tests" and tests.passed
    hybrid = verify_repo(ToolExecutor(tested).ctx, task="fix", task_type="code_fix", changed=["test_one.py"],
                         has_tests=True)
    assert hybrid.strategy == "hybrid"


def test_verification_agent_uses_existing_tools_and_no_hardcoded_patterns():
    from codur.graph.verification.llm import verifier_prompt, verifier_tools

    specs = verifier_tools()
    names = {spec["name"] for spec in specs}
    assert {"discover_entry_points", "run_python_file", "run_pytest"} <= names
    text = verifier_prompt(specs)
    assert not any(pattern in text for pattern in ("main.py", "app.py", "expected.txt"))


def test_streaming_verification_early_exit_on_output_mismatch(tmp_path: Path):
    from codur.tools.python import run_entry_point

    (tmp_path / "main.py").write_text("import time\nprint('wrong', flush=True)\ntime.sleep(30)\nprint('late')\n")
    done = run_entry_point(ToolExecutor(tmp_path).ctx, "main.py", timeout_s=20, expected_output="right\n")
    assert done.stopped_early and done.duration_s < 10


# -- _attempt_local_repair -------------------------------------------------------------------------

def test_attempt_local_repair_tries_the_seven_mutation_patterns(tmp_path: Path):
    from codur.mutation import generate_mutants

    patterns = {  # the document's seven, each on the code it names
        "range boundary fixes (off-by-one)": ("for i in range(n):\n        t += i", "range(n + 1)"),
        "continue guard removal": ("for i in range(n):\n        if i < 0:\n            continue\n        t += i", None),
        "division by 100 removal": ("t = n * 3 / 100", "t = n * 3\n"),
        "comparison operator flipping": ("t = 1 if n < 3 else 0", "n <= 3"),
        "loop condition fixes": ("while t < n:\n        t += 1", "while t <= n"),
        "f-string prefix addition": ("print('n={n}')", "f'n={n}'"),
        "list access fixes": ("t = [n, n][0]", "[n, n][-1]"),
    }
    for words, (body, wanted) in patterns.items():
        source = f"def f(n):\n    t = 0\n    {body}\n    return t\n"
        (tmp_path / "m.py").write_text(source)
        scores = {("m.py", line): 1.0 for line in range(1, source.count("\n") + 1)}
        mutants, texts = generate_mutants(tmp_path, scores, limit=10_000)
        outs = [m.apply(texts["m.py"]) for m in mutants]
        if wanted is None:  # the guard deleted
            assert any("continue" not in out and "if i < 0" not in out for out in outs), words
        else:
            assert any(wanted in out for out in outs), words


def test_attempt_local_repair_tests_mutations_in_parallel_4_workers_and_returns_success_and_message(tmp_path: Path):
    from codur.graph.execution.repair import _attempt_local_repair

    assert inspect.signature(_attempt_local_repair).parameters["workers"].default == 4
    (tmp_path / "calc.py").write_text("def area(w, h):\n    return w + h\n")
    (tmp_path / "test_calc.py").write_text("from calc import area\n\n\ndef test_area():\n"
                                           "    assert area(2, 3) == 6\n    assert area(4, 5) == 20\n")
    answer = _attempt_local_repair(tmp_path, workers=4, time_budget_s=60)
    assert set(answer) == {"success", "message"} and answer["success"] is True
    assert "return w * h" in (tmp_path / "calc.py").read_text()


# -- Integration Points ----------------------------------------------------------------------------

def test_state_carries_selected_agent_iteration_counters_and_error_tracking():
    from codur.graph.state import CodurState

    keys = CodurState.__annotations__
    assert {"agent", "turn", "failure_signatures", "verification_details"} <= set(keys)


def test_tool_execution_through_the_centralized_execute_tool_calls_and_the_tool_detector(tmp_path: Path):
    from langchain_core.messages import AIMessage

    from codur.graph.execution.agent_executor import AgentRun
    from codur.graph.tool_executor import _TOOL_DETECTOR, execute_tool_calls

    (tmp_path / "notes.txt").write_text("alpha\n")
    bound = {"read_file"}
    as_json = _TOOL_DETECTOR(AIMessage(content='{"name": "read_file", "arguments": {"path": "notes.txt"}}'), bound)
    as_text = _TOOL_DETECTOR(AIMessage(content='read_file(path="notes.txt")'), bound)
    assert [c["name"] for c in as_json.calls] == [c["name"] for c in as_text.calls] == ["read_file"]
    record = AgentRun()
    execute_tool_calls(ToolExecutor(tmp_path), as_json.calls, record)
    assert "alpha" in record.messages[-1].content  # the result, fed back as the next message


def test_configuration_uses_codur_config_and_config_runtime_max_iterations_bounds_verification_retries(
        script_repo: Path):
    config = CodurConfig(runtime={"max_iterations": 2})
    assert config.runtime.max_iterations == config.max_turns == 2
    wrong = [edit("sum(xs[2:])"), "Fixed.", call("replace_in_file", path="main.py", old="xs[2:]", new="xs[:2]"),
             "Fixed.", "never asked"]
    result, models = fix_run(script_repo, wrong, runtime={"max_iterations": 2})
    assert (result.status, result.reason, result.turns) == (RunStatus.FAILED, "max_turns", 2)


def test_runtime_is_settable_in_codur_toml(tmp_path: Path):
    (tmp_path / "codur.toml").write_text("[runtime]\nmax_iterations = 4\ntool_iterations = 7\n")
    config = load_config(tmp_path)
    assert (config.runtime.max_iterations, config.runtime.tool_iterations) == (4, 7)
    assert (config.max_turns, config.max_iterations) == (4, 7)
    assert load_config(tmp_path, max_turns=2).runtime.max_iterations == 2  # a flag still wins over the file
    (tmp_path / "codur.toml").write_text("[runtime]\nmax_iteration = 4\n")
    with pytest.raises(ConfigError, match=r"codur.toml: runtime.max_iteration: .*did you mean max_iterations"):
        load_config(tmp_path)
    (tmp_path / "codur.toml").write_text("max_turns = 3\n[runtime]\nmax_iterations = 4\n")
    with pytest.raises(ConfigError, match="set the same limit"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match="set the same limit"):
        CodurConfig(max_turns=3, runtime={"max_iterations": 4})


def test_supports_multiple_llm_profiles_for_fallback_execution():
    config = CodurConfig(profiles={"a": {"base_url": "http://127.0.0.1:9/v1", "model": "one"},
                                   "b": {"base_url": "http://127.0.0.1:9/v1", "model": "two"}},
                         roles={"actor": ["a", "b"]})
    assert [p.model for p in config.profiles_for("actor")] == ["one", "two"]


# -- Building Agent System Prompts -----------------------------------------------------------------

def test_the_system_prompt_pattern_runs_with_only_its_two_elided_lists_defined(tmp_path: Path):
    """The example appends to ``validation_tools`` and ``file_tools`` that its ``# ...`` leaves
    undefined; with those two lists defined first, nothing else changed, it runs on codur."""
    pattern = python_blocks("003")[0]
    done = run_example("validation_tools, file_tools = [], []\n" + pattern + "\nprint(AGENT_SYSTEM_PROMPT)\n",
                       tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    validation = next(line for line in done.stdout.splitlines() if line.startswith("**Validation**"))
    assert "discover_entry_points" in validation and "run_pytest" in validation


def test_the_anti_pattern_example_runs_and_codurs_prompts_list_tools_from_the_registry(tmp_path: Path):
    anti = python_blocks("003")[1]
    assert run_example(anti, tmp_path).returncode == 0
    from codur.graph.prompts import build_system_prompt
    from codur.tools.registry import TaskType, list_tools_for_tasks

    text, specs = build_system_prompt("actor", TaskType.CODE_FIX)
    registry_names = {tool["name"] for tool in list_tools_for_tasks([TaskType.CODE_FIX])}
    assert specs and {spec.name for spec in specs} <= registry_names
    assert all(spec.name in text for spec in specs)
