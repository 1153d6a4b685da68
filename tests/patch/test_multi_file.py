"""Fixes in two places: pair samples across files, the union of two near misses, real workers and pytest."""

from __future__ import annotations

import os
from pathlib import Path

from codur.llm import ScriptedChatModel
from codur.patch import PatchPipeline
from codur.patch.formats import complete

from .conftest import patch_settings, snapshot

PARSE_FIX = '''def parse_scores(text):
    """'ann:3, bob:5' -> {'ann': 3, 'bob': 5}"""
    scores = {}
    for item in text.split(","):
        name, points = item.split(":")
        scores[name.strip()] = int(points)
    return scores'''
RENDER_FIX = '''def render(scores):
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    return "\\n".join(f"{name}: {points}" for name, points in ranked)'''
#: both functions, each in its own block under its file's name, as the pair prompt asks
PAIR_FIX = (f"scores/parse.py:\n```python\n{PARSE_FIX}\n```\n\nscores/render.py:\n```python\n{RENDER_FIX}\n```\n"
            "The names keep no space and the best comes first.")


def run(repo: Path, replies: list, **kw):
    model = ScriptedChatModel(replies=replies)
    events: list[dict] = []
    result = PatchPipeline(repo, patch_settings(samples=len(replies), **kw), models=[model],
                           on_event=events.append).run()
    return result, model, events


def of(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e["event_type"] == name]


def test_one_two_function_sample_fixes_a_bug_in_two_files(report_repo: Path):
    before = snapshot(report_repo)
    result, model, events = run(report_repo, ["I am not sure what is wrong.", PAIR_FIX], fixers=("sampling",))
    assert result.status == "patched", result.message
    # localization ranks the functions of both files; the two sit in different files: a pair from sample 1 on
    assert [(f["path"], f["function"]) for f in result.functions[:2]] == [
        ("scores/parse.py", "parse_scores"), ("scores/render.py", "render")]
    phase = [e for e in of(events, "patch.phase") if e["phase"] == "sampling"][0]
    assert phase["pair"] == ["scores/parse.py:parse_scores", "scores/render.py:render"] and phase["pair_first"]
    assert [(e["k"], e["variant"], e["outcome"]) for e in of(events, "patch.sample")] == [
        (0, "plain", "no_code"), (1, "pair", "candidate")]
    assert result.source == "sampling" and result.provenance["variant"] == "pair"
    assert result.files == ["scores/parse.py", "scores/render.py"] and result.file == "scores/parse.py"
    assert result.provenance["files"] == result.files
    assert result.provenance["functions"] == ["parse_scores", "render"]
    # one diff over both files, against the originals
    assert result.diff.index("--- a/scores/parse.py") < result.diff.index("--- a/scores/render.py")
    assert "+        scores[name.strip()] = int(points)\n" in result.diff
    assert "+    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)\n" in result.diff
    # the pair prompt: each function under its file's name, after the prefix every sample shares
    plain, pair = (call[1].content for call in model.calls)
    assert "scores/render.py:\n```python\n" in pair and "scores/render.py" not in plain
    assert "Write the corrected `parse_scores` (scores/parse.py) and `render` (scores/render.py) in full" in pair
    shared = os.path.commonprefix([plain, pair])
    assert shared.startswith("scores/parse.py:\n```python\n") and "def parse_scores(text):" in shared
    assert snapshot(report_repo) == before


def test_two_near_misses_in_two_files_are_tried_together_first(report_repo: Path):
    # sample 0 fixes the parser alone, sample 1 (a pair prompt) answers with the renderer alone:
    # each makes one failing test pass and breaks none, neither passes the report
    replies = [f"```python\n{PARSE_FIX}\n```", f"scores/render.py:\n```python\n{RENDER_FIX}\n```"]
    result, _, events = run(report_repo, replies, fixers=("sampling", "hybrid"))
    assert result.status == "patched", result.message
    sampled = [(e["provenance"]["sample"], e["result"], e["fixed"]) for e in of(events, "patch.candidate")
               if e["source"] == "sampling"]
    assert sampled == [(0, "near_miss", 1), (1, "near_miss", 1)]
    hybrid = [e for e in of(events, "patch.candidate") if e["source"] == "hybrid"]
    assert len(hybrid) == 1 and hybrid[0]["result"] == "plausible"  # the union is queued first, and wins
    assert result.source == "hybrid" and result.provenance["union"] == [0, 1]
    assert result.label == "model samples 0 + 1 together (scores/parse.py, scores/render.py)"
    assert sorted(result.files) == ["scores/parse.py", "scores/render.py"]
    assert "name.strip()" in result.diff and "reverse=True" in result.diff


def test_the_pair_stream_is_complete_only_once_every_function_is_written():
    one = "```python\ndef parse_scores(t):\n    return t\n```\nscores/render.py:\n```python\ndef render(s):\n"
    assert complete("function", one, ["parse_scores", "render"])  # one sample: either function will do
    assert not complete("function", one, ["parse_scores", "render"], every=True)
    assert complete("function", one + "    return s\n```", ["parse_scores", "render"], every=True)
