"""A two-file bug through the whole graph: the patch node applies both files; the agent sees both."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.graph.coding_agent import turn_prompt
from codur.graph.records import Observation
from codur.llm import ScriptedChatModel, StaticModelProvider

from .test_multi_file import PAIR_FIX


def run_with(repo: Path, actor: list, **config):
    model = ScriptedChatModel(replies=actor)
    result = run(RunRequest(task="make the failing tests pass", repo=repo),
                 models=StaticModelProvider({"actor": model}),
                 config=CodurConfig(repair=True, repair_workers=2, critic=False, retry_base_delay_s=0, **config))
    return result, model


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def test_the_patch_node_applies_and_records_both_files(report_repo: Path):
    result, model = run_with(report_repo, ["Not sure.", PAIR_FIX, "never played"], fixers=["sampling", "agent"],
                             samples=2)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert "delegate" not in result.nodes and len(model.calls) == 2
    assert sorted(result.files_changed) == ["scores/parse.py", "scores/render.py"]
    assert "name.strip()" in (report_repo / "scores/parse.py").read_text()
    assert "reverse=True" in (report_repo / "scores/render.py").read_text()


def test_the_agent_is_shown_the_suspicious_functions_of_both_files(report_repo: Path):
    fixes = [call("replace_in_file", path="scores/parse.py", old="scores[name] =", new="scores[name.strip()] ="),
             call("replace_in_file", path="scores/render.py", old="kv[1])", new="kv[1], reverse=True)"), "Fixed."]
    result, model = run_with(report_repo, ["Not sure.", *fixes], fixers=["sampling", "agent"], samples=1)
    assert result.status is RunStatus.SUCCESS, result.reason
    first = model.calls[1][-1].content  # the agent's first turn, after the one sample
    listed = first[first.index("Most suspicious functions"):]
    assert "- scores/parse.py: parse_scores (lines 4–10)" in listed
    assert "- scores/render.py: render (lines 4–7)" in listed


def test_turn_prompt_lists_functions_with_lines_and_scores():
    functions = [{"path": "a/p.py", "function": "Parser.read", "start": 3, "end": 9, "score": 0.71},
                 {"path": "b/q.py", "function": "show", "start": 12, "end": 20, "score": 0.5}]
    state = {"task": "fix it", "observation": Observation(functions=functions)}
    text = turn_prompt(state)
    assert ("Most suspicious functions, every file (the fix may need more than one):\n"
            "- a/p.py: Parser.read (lines 3–9), 0.71\n- b/q.py: show (lines 12–20), 0.50") in text
    assert "Most suspicious functions" not in turn_prompt({"task": "fix it", "observation": Observation()})
