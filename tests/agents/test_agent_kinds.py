"""Agent kinds (issue 14, item 2): a configured LLM agent runs on its own profile with its own
prompt and TaskTypes; an unknown profile is a config error; a Python class behind AgentPort
plugs in from an entry point or a dotted path, and the AgentRunner drives it with the run's retries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from pydantic import ValidationError

import codur.agents.plugins as plugins
from codur import CodurConfig, RunRequest, RunStatus, run
from codur.config import ConfigError, load_config
from codur.config.tables import AgentConfig, ModelProfile
from codur.llm import ScriptedChatModel, StaticModelProvider

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"
TASK = "the total in billing.py for 10 items should include the discount"  # no fast path: the planner is asked

PLUGIN = '''
from codur.core.ports import AgentResult

RUNS = []


class TidyAgent:
    """Fixes the invoice example by itself; fails its first run when told to."""

    def __init__(self, name, fail_first=False):
        self.name, self.fail_first = name, fail_first

    def run(self, plan):
        RUNS.append((self.name, plan.task_type, plan.prompt.splitlines()[0]))
        if self.fail_first and len(RUNS) == 1:
            return AgentResult(success=False, output="flaky start", exit_code=1)
        path = plan.repo_root / "billing.py"
        path.write_text(path.read_text().replace("{old}", "{new}"))
        return AgentResult(success=True, output="fixed the threshold")


def flaky(name):
    return TidyAgent(name, fail_first=True)


def not_an_agent(name):
    return 42


INSTANCE = TidyAgent("instance")
'''.replace("{old}", FIX_OLD).replace("{new}", FIX_NEW)


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A tiny plugin package on sys.path, and one entry point of the group codur.agents for it."""
    pkg = tmp_path / "plugin_src"
    pkg.mkdir()
    (pkg / "tidy_agent.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(pkg))
    sys.modules.pop("tidy_agent", None)
    points = [EntryPoint(name="tidy", value="tidy_agent:TidyAgent", group="codur.agents")]
    monkeypatch.setattr(plugins, "entry_points", lambda group: [p for p in points if p.group == group])
    yield
    sys.modules.pop("tidy_agent", None)


def test_llm_agent_runs_on_its_own_profile_prompt_and_task_types(invoice_repo: Path) -> None:
    actor = ScriptedChatModel(replies=[])  # never asked: the agent has its own profile
    fast = ScriptedChatModel(replies=[call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW), "Fixed."])
    config = CodurConfig(
        profiles={"fast": ModelProfile(model="fast-model")}, default_agent="fixer", critic=False, repair=False,
        agents={"fixer": AgentConfig(kind="llm", profile="fast", system_prompt="You are the fixer agent.",
                                     task_types=["refactor"])})
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo),
                 models=StaticModelProvider({"actor": actor, "fast": fast}), config=config)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert actor.calls == [] and len(fast.calls) == 2
    system = fast.calls[0][0].content
    assert system.startswith("You are the fixer agent.")
    assert "change the structure without changing the behaviour" in system  # its TaskType (refactor), not code_fix
    assert {t.name for t in fast.bound_tools} >= {"move_file", "replace_in_file"}  # refactor's tools
    assert f"+    {FIX_NEW}" in result.diff


def test_an_unknown_profile_is_a_config_error_naming_the_field(tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(ValidationError, match=r"agents\.fixer\.profile: unknown profile 'fast'"):
        CodurConfig(agents={"fixer": AgentConfig(profile="fast")})
    monkeypatch.setenv("CODUR_AGENTS", '{"fixer": {"profile": "fast"}}')
    monkeypatch.setenv("CODUR_PROFILES", '{"big": {"model": "big-model"}}')
    with pytest.raises(ConfigError, match=r"^agents\.fixer\.profile: unknown profile 'fast' \(profiles: big\)$"):
        load_config()
    proc = subprocess.run([sys.executable, "-m", "codur.commands", "fix it", "--repo", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "agents.fixer.profile" in lines[0], proc.stderr


def test_a_bad_agent_entry_is_refused_in_one_line() -> None:
    with pytest.raises(ValidationError, match="task_types"):
        CodurConfig(agents={"x": AgentConfig(task_types=["fixing"])})
    with pytest.raises(ValidationError, match="target"):
        CodurConfig(agents={"x": AgentConfig(kind="python", target="not a path")})
    with pytest.raises(ValidationError, match=r"agents\.x\.command"):
        CodurConfig(agents={"x": AgentConfig(kind="cli")})


def test_entry_point_agent_is_delegated_to_and_its_edits_are_in_the_diff(invoice_repo: Path, plugin) -> None:
    actor = ScriptedChatModel(replies=[])
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo),
                 models=StaticModelProvider({"actor": actor}),
                 config=CodurConfig(default_agent="tidy", critic=False, repair=False))
    import tidy_agent

    assert result.status is RunStatus.SUCCESS and result.reason == "verified"
    assert tidy_agent.RUNS == [("tidy", "code_fix", "Task: make the failing tests pass")]
    assert f"-    {FIX_OLD}\n+    {FIX_NEW}" in result.diff and result.files_changed == ["billing.py"]
    assert actor.calls == []


def test_dotted_path_agent_chosen_by_the_planner_is_retried_by_the_executor(invoice_repo: Path, plugin) -> None:
    planner = ScriptedChatModel(replies=['{"task_type": "code_fix", "agent": "mine", "steps": ["fix it"]}'])
    config = CodurConfig(agents={"mine": AgentConfig(kind="python", target="tidy_agent:flaky")},
                         critic=False, repair=False, retry_base_delay_s=0, max_retries=2)
    result = run(RunRequest(task=TASK, repo=invoice_repo),
                 models=StaticModelProvider({"planner": planner, "actor": ScriptedChatModel(replies=[])}),
                 config=config)
    import tidy_agent

    assert "mine" in planner.calls[0][0].content  # the planner is offered it
    assert result.status is RunStatus.SUCCESS, result.reason
    assert [r[0] for r in tidy_agent.RUNS] == ["mine", "mine"]  # failed once, retried by the AgentRunner
    assert f"+    {FIX_NEW}" in result.diff
    outcome = [e for e in _events(result) if e["event_type"] == "agent.outcome"]
    assert outcome[0]["attempts"] == 2 and outcome[0]["agent"] == "mine"


def test_an_agent_that_does_not_load_fails_its_turn_with_the_reason(invoice_repo: Path, plugin) -> None:
    config = CodurConfig(agents={"ghost": AgentConfig(kind="python", target="no_such_module:Agent")},
                         default_agent="ghost", critic=False, repair=False, max_turns=1, max_retries=2,
                         retry_base_delay_s=0)
    result = run(RunRequest(task="make the failing tests pass", repo=invoice_repo),
                 models=StaticModelProvider({"actor": ScriptedChatModel(replies=[]),
                                             "planner": ScriptedChatModel(replies=['{"steps": ["again"]}'])}),
                 config=config)
    assert result.status is not RunStatus.SUCCESS and result.diff == ""
    outcome = [e for e in _events(result) if e["event_type"] == "agent.outcome"][0]
    assert outcome["status"] == "failed" and outcome["attempts"] == 1 and outcome["exit_code"] == -1


def test_load_agent_accepts_an_instance_and_refuses_what_is_no_agent(plugin) -> None:
    agent = plugins.load_agent("tidy")
    assert agent.name == "tidy" and type(agent).__name__ == "TidyAgent"
    with pytest.raises(plugins.AgentLoadError, match="no entry point 'nope'"):
        plugins.load_agent("nope")
    assert plugins.load_agent("x", "tidy_agent:INSTANCE").name == "instance"  # an instance is used as is
    with pytest.raises(plugins.AgentLoadError, match="gave int, not an AgentPort"):
        plugins.load_agent("x", "tidy_agent:not_an_agent")
    with pytest.raises(plugins.AgentLoadError, match="cannot load tidy_agent:missing: AttributeError"):
        plugins.load_agent("x", "tidy_agent:missing")


def _events(result) -> list[dict]:
    return [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]


def test_config_provider_gives_the_named_profiles_model() -> None:
    from codur.llm import ConfigModelProvider
    from codur.llm.factory import models_for_profile

    config = CodurConfig(base_url="http://127.0.0.1:9/v1", model="main-model",
                         profiles={"fast": ModelProfile(base_url="http://127.0.0.1:9/v1", model="fast-model")})
    provider = ConfigModelProvider(config)
    (fast,) = models_for_profile(provider, "fast")
    assert fast.model_name == "fast-model" and provider.models_for("actor")[0].model_name == "main-model"
    assert provider.models_for_profile("fast")[0] is fast  # cached per profile
    with pytest.raises(KeyError, match="no profile 'slow'"):
        provider.models_for_profile("slow")
