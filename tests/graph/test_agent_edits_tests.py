"""An agent that makes the failing test pass by editing it does not end success/verified: its
change is refused at verification (codur/graph/change_verdict.py: change_refusal), the next turn is
told why, and a run that ends on it says ``refused: edited <file>``. A task that asks for the
test to be fixed may edit it."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider

CODE = "def area(w, h):\n    return w + h\n"
TEST = "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"
#: the test rewritten to expect the bug
TEST_BENT = "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 5\n"


def shapes(tmp_path: Path) -> Path:
    repo = tmp_path / "shapes"
    (repo / "tests").mkdir(parents=True)
    (repo / "shapes.py").write_text(CODE)
    (repo / "tests" / "test_shapes.py").write_text(TEST)
    (repo / "pyproject.toml").write_text('[project]\nname = "shapes"\nversion = "0.1.0"\n\n'
                                         '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    return repo


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def agent_run(repo: Path, task: str, replies: list[str], max_turns: int):
    actor = ScriptedChatModel(replies=replies)
    config = CodurConfig(critic=False, fixers=["agent"], max_turns=max_turns, retry_base_delay_s=0,
                         stop_without_progress=False)
    return run(RunRequest(task=task, repo=repo), models=StaticModelProvider({"actor": actor}), config=config), actor


def test_an_agent_that_edits_the_failing_test_is_refused(tmp_path: Path):
    repo = shapes(tmp_path)
    result, _ = agent_run(repo, "make the failing tests pass",
                          [call("write_file", path="tests/test_shapes.py", content=TEST_BENT), "Fixed."], 1)
    assert result.status is RunStatus.FAILED and result.reason == "refused: edited tests/test_shapes.py"
    verdict = result.metadata.verdict
    assert verdict["refused"] == "edited tests/test_shapes.py" and verdict["failing_tests"] == []  # the tests pass
    assert {"command": "footprint check", "output": "refused: edited tests/test_shapes.py", "ok": False} \
        in verdict["evidence"]
    assert "refused the change: edited tests/test_shapes.py" in result.summary
    assert (repo / "tests" / "test_shapes.py").read_text() == TEST  # a failed run undoes itself


def test_the_next_turn_is_told_and_a_fix_of_the_code_then_passes(tmp_path: Path):
    repo = shapes(tmp_path)
    fixed = CODE.replace("w + h", "w * h")
    result, actor = agent_run(repo, "make the failing tests pass", [
        call("write_file", path="tests/test_shapes.py", content=TEST_BENT), "Fixed.",
        call("write_file", path="tests/test_shapes.py", content=TEST),
        call("write_file", path="shapes.py", content=fixed), "Fixed the code."], 2)
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", result.reason
    second_turn = "\n".join(str(m.content) for m in actor.calls[2])
    assert "the change was refused: it edited tests/test_shapes.py; put tests/test_shapes.py back as it was" \
        in second_turn
    assert result.files_changed == ["shapes.py"]


def test_a_task_that_asks_for_the_test_to_be_fixed_may_edit_it(tmp_path: Path):
    repo = shapes(tmp_path)
    result, _ = agent_run(repo, "fix the test in tests/test_shapes.py: area adds, as documented",
                          [call("write_file", path="tests/test_shapes.py", content=TEST_BENT), "Fixed."], 1)
    assert result.status is RunStatus.SUCCESS and result.reason == "verified", result.reason
    assert result.files_changed == ["tests/test_shapes.py"]
