"""The task is the contract: an unrelated failing test never satisfies a change request, and
"verified" means a test exercised what was asked.

On main, in this repo (one failing test: ``score > PASS_MARK`` should be ``>=``),
``make passed() raise ValueError for negative scores`` ended success/verified with zero model
calls: mutation search changed the unrelated comparison. And a feature whose code is wrong
(``word_count`` returning 0) ended success/verified because nothing checked it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.graph.planning.task import PLAIN_FIX, read_task, relate
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.tools.registry import TaskType

GRADES = ('PASS_MARK = 50\n\n\ndef passed(score):\n    """True when ``score`` reaches the pass mark."""\n'
          '    return score > PASS_MARK\n\n\ndef report(scores):\n    for score in scores:\n'
          '        print(score, "pass" if passed(score) else "fail")\n')
TESTS = ("from grades import passed\n\n\ndef test_pass_mark():\n    assert passed(50)\n\n\n"
         "def test_high():\n    assert passed(90)\n\n\ndef test_low():\n    assert not passed(10)\n")
UNRELATED = "test_grades.py::test_pass_mark"
CHANGES = ["make passed() raise ValueError for negative scores",
           "log a warning when the score is above 100",
           "use logging instead of print statements in grades.py"]


@pytest.fixture
def grades(tmp_path: Path) -> Path:
    repo = tmp_path / "grades"
    repo.mkdir()
    (repo / "grades.py").write_text(GRADES)
    (repo / "test_grades.py").write_text(TESTS)
    return repo


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def test_the_plain_fix_wording_is_not_matched_by_a_change_request():
    assert PLAIN_FIX.search("make passed() raise ValueError for negative scores") is None
    assert read_task("make passed() raise ValueError for negative scores").kind(True) is None
    for plain in ["make the failing tests pass", "fix the failing test", "Fix limiter.py so the tests pass.",
                  "The tests fail; find out why and fix it.", "make tests/test_x.py::test_y pass", "fix the bug"]:
        assert read_task(plain).plain_fix, plain


def test_which_failing_tests_are_about_the_task():
    def text(_path: str) -> str:
        return TESTS

    doubt = relate(read_task(CHANGES[0]), [UNRELATED], test_text=text, defined=lambda n: n == "passed")
    assert not doubt.decided and doubt.related == () and doubt.unrelated == (UNRELATED,)
    plain = relate(read_task("make the failing tests pass"), [UNRELATED], test_text=text)
    assert plain.decided and plain.related == (UNRELATED,)
    feature = relate(read_task("add a function word_count(text) to grades.py"), [UNRELATED], test_text=text,
                     defined=lambda n: n == "passed")
    assert feature.decided and feature.unrelated == (UNRELATED,)
    said = relate(read_task("passed(50) should be True"), [UNRELATED], test_text=text)  # a bug report
    assert said.decided and said.related == (UNRELATED,)
    named = relate(read_task("make test_pass_mark pass"), [UNRELATED, "test_grades.py::test_low"], test_text=text)
    assert named.related == (UNRELATED,) and named.unrelated == ("test_grades.py::test_low",)


@pytest.mark.parametrize("task", CHANGES)
def test_a_change_request_is_never_done_by_fixing_an_unrelated_test(grades: Path, task: str):
    """No model: the rules cannot tell, so the failing test is not the task's; the patch
    pipeline is not run for it, and the run does not succeed."""
    result = run(RunRequest(task=task, repo=grades), models=StaticModelProvider({}),
                 config=CodurConfig(fixers=["mutation"], repair_workers=1))
    assert result.status is not RunStatus.SUCCESS, (result.status, result.reason, result.output_text)
    assert (grades / "grades.py").read_text() == GRADES
    assert "patch" not in result.nodes


def test_with_a_model_the_planner_decides_and_its_verdict_is_in_the_trace(grades: Path):
    """The planner says the failing test is not the task's; the agent writes the change; the
    unrelated test still fails and is reported; no test checks the new behaviour and the
    critic is off: success with reason ``unverified``, never ``verified``."""
    planner = ScriptedChatModel(replies=[
        '{"about_task": false, "tests": [], "why": "the test checks the pass mark, not negative scores"}',
        '{"task_type": "code_generation", "steps": ["raise in passed()"]}'])
    guard = '    if score < 0:\n        raise ValueError("negative score")\n'
    new = GRADES.replace("    return score > PASS_MARK\n", guard + "    return score > PASS_MARK\n")
    actor = ScriptedChatModel(replies=[call("write_file", path="grades.py", content=new), "Done."])
    events: list[dict] = []
    result = run(RunRequest(task=CHANGES[0], repo=grades),
                 models=StaticModelProvider({"planner": planner, "actor": actor}), on_event=events.append,
                 config=CodurConfig(critic=False, max_turns=1, repair_workers=1, retry_base_delay_s=0))
    scope = [e for e in events if e["event_type"] == "plan.scope"]
    assert scope and scope[0]["decided_by"] == "planner" and scope[0]["unrelated"] == [UNRELATED]
    assert "patch" not in result.nodes
    assert result.status is RunStatus.SUCCESS and result.reason == "unverified", (result.reason, result.output_text)
    assert "score > PASS_MARK" in (grades / "grades.py").read_text()  # the unrelated comparison untouched
    assert f"1 failing test not related to the task: {UNRELATED}" in result.output_text
    assert "unverified: no test exercises what the task asks" in result.output_text


def test_the_planner_may_say_the_failing_test_is_the_task(grades: Path):
    planner = ScriptedChatModel(replies=['{"about_task": true, "tests": ["test_grades.py::test_pass_mark"]}'])
    events: list[dict] = []
    result = run(RunRequest(task="passed() is off at exactly 50", repo=grades),
                 models=StaticModelProvider({"planner": planner}), on_event=events.append,
                 config=CodurConfig(fixers=["mutation", "sampling"], critic=False, repair_workers=1, samples=0))
    scope = next(e for e in events if e["event_type"] == "plan.scope")
    assert scope["decided_by"] == "planner" and scope["related"] == [UNRELATED]
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", (result.reason, result.output_text)


def test_a_plain_bug_fix_is_still_fixed_by_mutation_first_without_a_model_call(grades: Path):
    models = StaticModelProvider({})
    result = run(RunRequest(task="make the failing tests pass", repo=grades), models=models,
                 config=CodurConfig(fixers=["mutation"], repair_workers=1))
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", result.reason
    assert "score >= PASS_MARK" in (grades / "grades.py").read_text()
    assert result.llm_calls == 0


WORDS_TASK = "add a function word_count(text) to grades.py that returns the number of words in text"


def wrong_word_count() -> str:
    return GRADES + "\n\ndef word_count(text):\n    return 0\n"


def test_a_wrong_feature_is_never_verified(grades: Path):
    """word_count returning 0, no test of it, critic off: success/unverified at most."""
    actor = ScriptedChatModel(replies=[call("write_file", path="grades.py", content=wrong_word_count()), "Added."])
    result = run(RunRequest(task=WORDS_TASK, repo=grades), models=StaticModelProvider({"actor": actor}),
                 config=CodurConfig(critic=False, max_turns=1, repair_workers=1, retry_base_delay_s=0))
    assert result.reason != "verified"
    assert result.status is RunStatus.SUCCESS and result.reason == "unverified", result.reason
    assert result.metadata.verdict["unverified"]


def test_the_critic_judges_an_unproven_feature_and_its_failed_is_not_success(grades: Path):
    actor = ScriptedChatModel(replies=[call("write_file", path="grades.py", content=wrong_word_count()), "Added."])
    critic = ScriptedChatModel(replies=[
        call("read_file", path="grades.py"),
        '{"passed": false, "strategy": "static", "reasoning": "word_count always returns 0"}'])
    result = run(RunRequest(task=WORDS_TASK, repo=grades),
                 models=StaticModelProvider({"actor": actor, "critic": critic}),
                 config=CodurConfig(critic=True, max_turns=1, repair_workers=1, retry_base_delay_s=0))
    assert result.status is RunStatus.FAILED, (result.status, result.reason)
    assert "word_count always returns 0" in result.metadata.verdict["reasoning"]


def test_a_feature_with_the_users_test_is_verified(grades: Path):
    """A test file of the user's that exercises word_count (it fails before the run: the
    feature's test) is the proof: verified."""
    (grades / "test_words.py").write_text("def test_count():\n    from grades import word_count\n\n"
                                           "    assert word_count('a b c') == 3\n")
    right = GRADES + "\n\ndef word_count(text):\n    return len(text.split())\n"
    actor = ScriptedChatModel(replies=[call("write_file", path="grades.py", content=right), "Added."])
    result = run(RunRequest(task=WORDS_TASK, repo=grades), models=StaticModelProvider({"actor": actor}),
                 config=CodurConfig(critic=False, max_turns=1, fixers=["agent"], retry_base_delay_s=0))
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", (result.reason, result.metadata.verdict)
    assert "about the task" in result.metadata.verdict["checked"]


def test_a_change_request_that_changed_nothing_is_no_success(grades: Path):
    """The unrelated failing test is not held against the run, but nothing changed: failed, not
    success/unverified."""
    planner = ScriptedChatModel(replies=[
        '{"about_task": false, "tests": [], "why": "not the pass mark"}', '{"task_type": "code_generation"}'])
    actor = ScriptedChatModel(replies=["I made passed() raise for negative scores."])
    result = run(RunRequest(task=CHANGES[0], repo=grades),
                 models=StaticModelProvider({"planner": planner, "actor": actor}),
                 config=CodurConfig(critic=False, max_turns=1, repair_workers=1, retry_base_delay_s=0))
    assert result.status is RunStatus.FAILED, (result.status, result.reason)
    assert {"command": "changed files", "output": "no file was changed", "ok": False} in result.metadata.verdict[
        "evidence"]


def test_every_bug_fix_of_bench_agent_reads_as_a_plain_fix():
    """bench/agent's fix tasks ("... Fix limiter.py so the tests in test_limiter.py pass.") are
    plain fixes: their failing tests are the task's by rule, no model call, the cheap fixers
    first as before; its features ("Implement ... so the tests pass") stay features."""
    import tomllib

    tasks = Path(__file__).resolve().parents[2] / "bench" / "agent" / "tasks"
    for toml in sorted(tasks.glob("*/task.toml")):
        meta = tomllib.loads(toml.read_text())
        reading = read_task(meta["task"])
        if meta["kind"] == "question":
            continue
        assert reading.plain_fix, toml.parent.name
        if meta["kind"] == "feature":
            assert reading.kind(True) in (None, TaskType.CODE_GENERATION), toml.parent.name
        else:
            assert reading.kind(True) is TaskType.CODE_FIX, toml.parent.name
