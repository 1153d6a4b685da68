"""Issue 14, item 1: the critic model verifies with tools and answers a structured verdict;
codur's own checks are its fallback and overrule it where they are the ground truth."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.config.tables import ModelProfile
from codur.graph.context import build_context
from codur.graph.verification.judge import from_model
from codur.graph.verification.llm import ChangeUnderReview, ModelRun, run_model_verifier, verifier_tools
from codur.graph.verification.verdict import Evidence, ModelVerdict, Verdict, parse_model_verdict
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.llm.factory import ConfigModelProvider
from codur.tools.executor import ToolExecutor
from codur.tools.registry import render_tool_block


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def greet_repo(tmp_path: Path, greeting: str = "hello, world") -> Path:
    """No tests; one module with a __main__ guard (its name is no convention codur knows)."""
    repo = tmp_path / "greet"
    repo.mkdir()
    (repo / "salute.py").write_text(f'def greeting():\n    return "{greeting}"\n\n\n'
                                    'if __name__ == "__main__":\n    print(greeting())\n')
    return repo


PLAN = '{"task_type": "code_fix", "agent": "coder", "steps": ["fix salute.py"]}'


def models(actor: list, critic: list) -> tuple[StaticModelProvider, ScriptedChatModel, ScriptedChatModel]:
    a, c = ScriptedChatModel(replies=actor), ScriptedChatModel(replies=critic)
    return StaticModelProvider({"actor": a, "critic": c, "planner": ScriptedChatModel(replies=[PLAN])}), a, c


VERDICT = {"passed": True, "strategy": "entry_points",
           "evidence": [{"command": "python salute.py", "output": "hello, world"}],
           "reasoning": "salute.py prints the greeting the task asks for", "suggestions": []}


def test_the_model_picks_entry_points_with_tools_and_its_verdict_is_parsed(tmp_path: Path):
    repo = greet_repo(tmp_path)
    critic = ScriptedChatModel(replies=[
        call("discover_entry_points"),
        call("run_python_file", path="salute.py", expected_output="hello, world"),
        "Checked.\n```json\n" + json.dumps(VERDICT) + "\n```",
    ])
    result = run_model_verifier(critic, ToolExecutor(repo), ChangeUnderReview(
        task='make salute.py print "hello, world"', task_type="code_fix", changed=["salute.py"]))
    assert isinstance(result.verdict, ModelVerdict) and result.problem == ""
    assert result.verdict.passed and result.verdict.strategy == "entry_points"
    assert result.verdict.reasoning == VERDICT["reasoning"]
    assert result.llm_calls == 3 and result.tokens > 0
    # the evidence is what the tools really returned, not only what the model says
    assert [e.command for e in result.evidence] == ["discover_entry_points()",
                                                    'run_python_file(path="salute.py", expected_output="hello, world")']
    assert "main guard: python salute.py" in result.evidence[0].output
    assert "expected output: matches" in result.evidence[1].output
    # the prompt lists the registry's verification tools, rendered by the registry, and no writer
    system = critic.calls[0][0].content
    specs = verifier_tools()
    assert render_tool_block(specs) in system
    assert {"discover_entry_points", "run_python_file", "run_pytest"} <= {s.name for s in specs}
    assert not {s.name for s in specs} & {"write_file", "replace_in_file", "apply_patch", "clarify"}


def test_a_run_in_a_repo_without_tests_is_verified_by_the_model(tmp_path: Path):
    repo = greet_repo(tmp_path, greeting="helo, world")
    provider, actor, critic = models(
        [call("replace_in_file", path="salute.py", old="helo", new="hello"), "Fixed the typo."],
        [call("discover_entry_points"), call("run_python_file", path="salute.py", expected_output="hello, world"),
         json.dumps(VERDICT)])
    events: list[dict] = []
    result = run(RunRequest(task='make salute.py print "hello, world"', repo=repo), models=provider,
                 config=CodurConfig(repair=False, max_turns=1), on_event=events.append)
    assert result.status is RunStatus.SUCCESS and result.reason == "verified"
    v = result.verification
    assert v["source"] == "model" and v["strategy"] == "entry_points" and v["overruled"] is None
    assert v["reasoning"] == VERDICT["reasoning"]
    # the evidence is the two calls it made, not the one its verdict reports
    assert [e["command"].split("(")[0] for e in v["evidence"]] == ["discover_entry_points", "run_python_file"]
    assert result.files_changed == ["salute.py"]
    assert len(critic.calls) == 3 and result.llm_calls == 6  # planner + 2 actor + 3 critic calls
    assert "expected output: matches" in critic.calls[2][-1].content  # the real run, read by the model
    shown = critic.calls[0][1].content  # the change itself is in the verifier's first prompt
    assert "Files changed: salute.py" in shown and '-    return "helo, world"\n+    return "hello, world"' in shown
    kinds = [e.get("event_type") for e in events]
    assert "verify.start" in kinds
    verdict_event = next(e for e in events if e.get("event_type") == "verify.verdict")
    assert verdict_event["passed"] and verdict_event["source"] == "model"
    assert verdict_event["strategy"] == "entry_points"


def test_a_reply_that_is_no_verdict_falls_back_to_the_deterministic_verdict(tmp_path: Path):
    repo = greet_repo(tmp_path, greeting="helo, world")
    provider, _, _ = models(["I changed nothing."], [call("discover_entry_points"), "Looks fine to me!"])
    result = run(RunRequest(task='make salute.py print "hello, world"', repo=repo), models=provider,
                 config=CodurConfig(repair=False, max_turns=1))
    v = result.verification
    assert v["source"] == "deterministic" and v["strategy"] == "entry_points" and not v["passed"]
    assert "not a verdict" in v["fallback"] and "Looks fine to me!" in v["fallback"]
    assert result.status is RunStatus.FAILED


def test_invalid_verdicts_are_not_parsed():
    assert parse_model_verdict('{"passed": true, "strategy": "vibes"}') is None  # unknown strategy
    assert parse_model_verdict('{"reasoning": "fine"}') is None  # no passed
    assert parse_model_verdict("no json at all") is None
    parsed = parse_model_verdict('Done. {"passed": false, "strategy": "static", "reasoning": "x"} bye')
    assert parsed is not None and not parsed.passed and parsed.strategy == "static"


def test_a_model_that_says_passed_over_failing_tests_is_overruled(invoice_repo: Path):
    actor = ScriptedChatModel(replies=["I looked at billing.py; it is fine."])
    critic = ScriptedChatModel(replies=[
        call("run_pytest"),
        json.dumps({"passed": True, "strategy": "tests", "reasoning": "all good", "suggestions": []}),
    ])
    events: list[dict] = []
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo),
                 models=StaticModelProvider({"actor": actor, "critic": critic}),
                 config=CodurConfig(repair=False, max_turns=1), on_event=events.append)
    assert result.status is RunStatus.FAILED and result.reason == "max_turns"
    v = result.verification
    assert not v["passed"] and v["source"] == "deterministic" and v["strategy"] == "tests"
    assert v["overruled"] == "model said passed; 2 tests fail"
    assert len(v["failing_tests"]) == 2 and v["reasoning"].startswith("pytest: ")
    overruled = next(e for e in events if e.get("event_type") == "verify.overruled")
    assert overruled["model_said"] is True and overruled["overruled"] == v["overruled"]
    verdict_event = next(e for e in events if e.get("event_type") == "verify.verdict")
    assert verdict_event["overruled"] == v["overruled"] and not verdict_event["passed"]


def test_a_passed_verdict_over_a_changed_file_that_does_not_parse_is_overruled(tmp_path: Path):
    repo = greet_repo(tmp_path, greeting="helo, world")
    provider, _, _ = models([call("replace_in_file", path="salute.py", old="def greeting():", new="def greeting(:"),
                             "Done."], [call("discover_entry_points"), json.dumps(VERDICT)])
    result = run(RunRequest(task='make salute.py print "hello, world"', repo=repo), models=provider,
                 config=CodurConfig(repair=False, max_turns=1))
    v = result.verification
    assert result.files_changed == ["salute.py"]
    assert not v["passed"] and v["overruled"] == "model said passed; 1 changed file does not parse"
    assert v["source"] == "model" and result.status is RunStatus.FAILED


def test_embedded_model_critic_is_on_without_tests_and_off_with_tests():
    embedded = CodurConfig()
    ctx = build_context(None, embedded, models=ConfigModelProvider(embedded))
    assert ctx.models.uses_local_model  # type: ignore[union-attr]
    assert ctx.critic_enabled(has_tests=False) and not ctx.critic_enabled(has_tests=True)
    endpoint = CodurConfig(profiles={"api": ModelProfile(base_url="http://127.0.0.1:9/v1", model="m")},
                           roles={"actor": ["api"]})
    ctx = build_context(None, endpoint, models=ConfigModelProvider(endpoint))
    assert ctx.critic_enabled(has_tests=False) and ctx.critic_enabled(has_tests=True)
    for forced in (True, False):
        ctx = build_context(None, CodurConfig(critic=forced), models=ConfigModelProvider(CodurConfig()))
        assert ctx.critic_enabled(has_tests=True) is forced and ctx.critic_enabled(has_tests=False) is forced


def test_the_verdict_is_a_pydantic_model_kept_as_plain_data():
    v = Verdict(passed=False, strategy="tests", overruled="model said passed; 1 test fails")
    data = v.as_dict()
    assert data["source"] == "deterministic" and data["overruled"].startswith("model said passed")
    assert Verdict.model_validate(data) == v


def test_the_same_failure_twice_has_the_same_signature_whatever_the_model_says(tmp_path: Path):
    def failed(reasoning: str, seconds: str) -> str:
        run = ModelRun(evidence=[Evidence(command='run_python_file(path="salute.py")',
                                          output=f"exit code 1 ({seconds}s)\nstdout:\n(empty)\nstderr:\nNameError")])
        verdict = ModelVerdict(passed=False, strategy="entry_points", reasoning=reasoning)
        return from_model(run, verdict).signature

    assert failed("it crashes", "0.05") == failed("a NameError again", "0.31")
    assert failed("x", "0.05") != ""


def test_a_passed_verdict_without_any_check_run_falls_back(tmp_path: Path):
    """What the embedded 1.5B model did when measured: a verdict in its first reply, its evidence invented."""
    repo = greet_repo(tmp_path, greeting="helo, world")
    provider, _, critic = models(["I changed nothing."], [json.dumps(VERDICT)])
    result = run(RunRequest(task='make salute.py print "hello, world"', repo=repo), models=provider,
                 config=CodurConfig(repair=False, max_turns=1))
    v = result.verification
    assert len(critic.calls) == 1
    assert v["source"] == "deterministic" and not v["passed"] and v["strategy"] == "entry_points"
    assert v["fallback"] == "the model said passed without running any check"


def test_a_conclusion_in_prose_is_followed_by_one_verdict_call(tmp_path: Path):
    repo = greet_repo(tmp_path)
    critic = ScriptedChatModel(replies=[
        call("run_python_file", path="salute.py", expected_output="hello, world"),
        "salute.py prints the expected greeting.",
        "```json\n" + json.dumps(VERDICT) + "\n```",
    ])
    result = run_model_verifier(critic, ToolExecutor(repo), ChangeUnderReview(
        task='make salute.py print "hello, world"', task_type="code_fix", changed=[]))
    assert result.verdict is not None and result.verdict.passed and result.llm_calls == 3
    # the loop's prompt does not show the verdict's format; the last call asks for it
    assert '"passed"' not in critic.calls[0][0].content
    assert '"passed": true or false' in critic.calls[2][-1].content


def test_no_verdict_call_past_the_runs_limits(tmp_path: Path):
    critic = ScriptedChatModel(replies=["It looks right.", json.dumps(VERDICT)])
    result = run_model_verifier(critic, ToolExecutor(greet_repo(tmp_path)),
                                ChangeUnderReview(task="fix", task_type="code_fix", changed=[]),
                                should_stop=lambda: "timeout" if critic.calls else None)
    assert result.verdict is None and len(critic.calls) == 1
    assert result.problem == "no verdict: the run stopped before the verdict call (timeout)"


def test_a_passed_verdict_after_checks_that_all_failed_to_run_falls_back(tmp_path: Path):
    """Measured with the embedded model: four calls on src/salute.py (no such file), then "passed"."""
    repo = greet_repo(tmp_path, greeting="helo, world")
    missing = call("run_python_file", path="src/salute.py", expected_output="hello, world")
    provider, _, _ = models(["I changed nothing."], [missing, call("validate_python_syntax", path="src/salute.py"),
                                                     json.dumps(VERDICT)])
    result = run(RunRequest(task='make salute.py print "hello, world"', repo=repo), models=provider,
                 config=CodurConfig(repair=False, max_turns=1))
    v = result.verification
    assert v["source"] == "deterministic" and not v["passed"]
    assert v["fallback"] == "the model said passed, but each of its 2 checks failed to run"
