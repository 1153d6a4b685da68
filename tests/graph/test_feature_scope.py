"""A feature task is done when the feature exists: an unrelated failing test is reported, never "fixed".

On main, ``add a function word_count(text) to textkit/wrap.py`` on a repo with one unrelated
failing test ended success/verified: mutation search fixed that test and word_count was
never written.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.graph.task_scope import changed_test_files, requested, task_tests
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.tools.executor import ToolExecutor, ToolSettings

TASK = "add a function word_count(text) to textkit/wrap.py that counts words"
BUG = "return text[:width - 1]"
UNRELATED = "tests/test_wrap.py::test_shorten"
WRAP = ('"""Text helpers."""\n\n\ndef shorten(text, width):\n    """The first ``width`` characters."""\n'
        f"    {BUG}\n")
WORD_COUNT = "\n\ndef word_count(text):\n    return len(text.split())\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


@pytest.fixture
def textkit(tmp_path: Path) -> Path:
    """A git repo whose one failing test (shorten's off-by-one, mutation-fixable) has nothing to do with word_count."""
    repo = tmp_path / "textkit"
    (repo / "textkit").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "textkit" / "__init__.py").write_text("")
    (repo / "textkit" / "wrap.py").write_text(WRAP)
    (repo / "tests" / "test_wrap.py").write_text(
        "from textkit.wrap import shorten\n\n\ndef test_shorten():\n    assert shorten('abcdef', 3) == 'abc'\n\n\n"
        "def test_short_text():\n    assert shorten('ab', 5) == 'ab'\n")
    (repo / "pyproject.toml").write_text('[project]\nname = "textkit"\nversion = "0.1.0"\n\n'
                                         '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "textkit")
    return repo


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def test_mutation_does_not_fix_an_unrelated_test_for_a_feature_task(textkit: Path):
    result = run(RunRequest(task=TASK, repo=textkit), models=StaticModelProvider({}),
                 config=CodurConfig(fixers=["mutation"], repair_workers=1))
    assert result.status is RunStatus.FAILED, result.reason
    assert BUG in (textkit / "textkit" / "wrap.py").read_text() and result.diff == ""
    assert f"1 failing test not related to the task: {UNRELATED}" in result.output_text


def test_the_feature_written_passes_with_the_unrelated_failure_reported(textkit: Path):
    new_text = WRAP + WORD_COUNT
    actor = ScriptedChatModel(replies=[call("write_file", path="textkit/wrap.py", content=new_text), "Added."])
    result = run(RunRequest(task=TASK, repo=textkit), models=StaticModelProvider({"actor": actor}),
                 config=CodurConfig(critic=False, repair_workers=1, retry_base_delay_s=0))
    # no test exercises word_count and the critic is off: success, but never "verified"
    assert result.status is RunStatus.SUCCESS and result.reason == "unverified", result.reason
    assert "patch" not in result.nodes  # the pipeline never ran for the unrelated test
    assert BUG in (textkit / "textkit" / "wrap.py").read_text()  # left as it was
    assert result.metadata.verdict["ignored_tests"] == [UNRELATED]
    assert f"1 failing test not related to the task: {UNRELATED}" in result.output_text


def test_a_feature_that_was_never_written_does_not_pass(textkit: Path):
    actor = ScriptedChatModel(replies=["I added word_count."])
    result = run(RunRequest(task=TASK, repo=textkit), models=StaticModelProvider({"actor": actor}),
                 config=CodurConfig(critic=False, max_turns=1, repair_workers=1, retry_base_delay_s=0))
    assert result.status is RunStatus.FAILED, result.reason
    evidence = result.metadata.verdict["evidence"]
    assert {"command": "requested change", "output": "not found: function word_count", "ok": False} in evidence


def test_a_test_added_since_head_belongs_to_the_task(textkit: Path):
    (textkit / "tests" / "test_count.py").write_text("def test_words():\n    assert False\n")
    (textkit / "tests" / "test_wrap.py").write_text((textkit / "tests" / "test_wrap.py").read_text() + "\n")
    ctx = ToolExecutor(textkit, ToolSettings(timeout_s=60)).ctx
    assert changed_test_files(ctx) == ["tests/test_count.py", "tests/test_wrap.py"]
    failing = ["tests/test_count.py::test_words", "tests/other_test.py::test_y", "tests/test_a.py::test_z"]
    assert task_tests("add word counts", failing, changed_test_files(ctx)) == failing[:1]
    assert task_tests("add word counts so test_z passes", failing, []) == failing[2:]
    inner = ToolExecutor(textkit / "textkit", ToolSettings(timeout_s=60)).ctx
    assert changed_test_files(inner) == []  # a folder inside the repo: no changed test file of its own


def test_what_a_task_asks_for():
    asked = requested("add a `--verbose` flag to cli.py, a class Parser and a function called tokenize; print(x)")
    assert asked.names == ("Parser", "tokenize") and asked.flags == ("--verbose",) and asked.files == ("cli.py",)
    # a library's function the task mentions is not one the repo must define
    assert requested("add word_count(text) using text.split() and functools.lru_cache()").names == ("word_count",)


def test_a_test_of_the_feature_is_held_against_it_in_a_repo_without_git(textkit: Path):
    """Without git, a failing test that uses word_count still belongs to the task: a wrong
    word_count does not pass because that test failed before the run."""
    import shutil

    shutil.rmtree(textkit / ".git")
    (textkit / "tests" / "test_count.py").write_text(
        "def test_words():\n    from textkit.wrap import word_count\n\n    assert word_count('a b c') == 3\n")
    wrong = WRAP + "\n\ndef word_count(text):\n    return 0\n"
    actor = ScriptedChatModel(replies=[call("write_file", path="textkit/wrap.py", content=wrong), "Added."])
    result = run(RunRequest(task=TASK, repo=textkit), models=StaticModelProvider({"actor": actor}),
                 config=CodurConfig(critic=False, max_turns=1, fixers=["agent"], retry_base_delay_s=0))
    assert result.status is RunStatus.FAILED, result.reason
    assert "tests/test_count.py::test_words" in result.metadata.verdict["failing_tests"]
    assert result.metadata.verdict["ignored_tests"] == [UNRELATED]
