"""The cloze fixer's chat form: a model without fill-in-the-middle (a scripted chat model, or a
server whose completion endpoint answers 404) is asked each hole as a chat prompt with a marked
hole, and its reply's first line of code is the fill."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage, HumanMessage

from codur.llm.deadline import DeadlineChatOpenAI
from codur.llm.local import MODEL_ALIAS
from codur.llm.scripted import ScriptedChatModel
from codur.patch.holes import CHAT, HOLE, first_line

from .test_cloze import SHIPPING, fills, json_server, run_cloze, write_repo


def hole_reply(messages: list[BaseMessage]) -> str:
    """A chat model's answer to a hole: the rhs of ``kilograms = <HOLE>`` written as a whole line in a
    fence (as chat models do); every other hole gets the name the line starts with."""
    asked = str(messages[-1].content)
    line = next(ln for ln in asked.splitlines() if HOLE in ln)
    if line.strip() == f"kilograms = {HOLE}":
        return "```python\nkilograms = math.ceil(weight_kg)\n```"
    return "weight_kg"


def test_a_chat_model_without_fim_fills_the_holes_in_the_chat_form(tmp_path: Path):
    repo = write_repo(tmp_path, SHIPPING)
    model = ScriptedChatModel(replies=[hole_reply] * 40)
    result, events = run_cloze(repo, model)
    assert result.status == "patched" and result.source == "cloze", result.message
    assert result.provenance["template"] == "rhs" and result.provenance["text"] == "math.ceil(weight_kg)"
    assert [e["form"] for e in events if e["event_type"] == "patch.phase" and e["phase"] == "cloze"][0] == "chat"
    # every call: the hole prompt, one marked hole in the file, the failing tests said first; one line asked for
    assert model.calls and all(str(c[0].content) == CHAT for c in model.calls)
    assert all(str(c[1].content).count(HOLE) == 1 and str(c[1].content).startswith("# The tests that fail:")
               for c in model.calls)
    assert all(kw.get("max_tokens", 0) <= 64 for kw in model.call_kwargs)
    assert fills(events)[0]["line"] == 8  # value lines first, as in the fill-in-the-middle form


def test_the_reply_of_a_chat_hole_is_cut_to_its_fill():
    assert first_line("```python\nkilograms = math.ceil(w)\n```", "x\n    kilograms = ") == "math.ceil(w)"
    assert first_line("Here is the fix:\n```python\nn + 1\n```\nIt adds one.", "    return ") == "n + 1"
    assert first_line("Here:\n`n + 1`", "    return ") == "Here:"  # prose, no fence: a fill that will not parse
    assert first_line("returned + 1", "    return ") == "returned + 1"  # a name that starts like the line
    assert first_line("\n\n", "    return ") == ""


@pytest.fixture
def chat_only_server() -> Iterator[tuple[str, list[str]]]:
    """A local OpenAI-compatible server with chat completions only: ``/v1/completions`` is 404
    (as for a chat model of a hosted API); a chat prompt's hole is answered by :func:`hole_reply`."""
    paths: list[str] = []

    def answer(path: str, body: dict) -> tuple[int, dict]:
        paths.append(path)
        if not path.endswith("/chat/completions"):
            return 404, {"error": {"message": "not found", "type": "invalid_request_error"}}
        text = hole_reply([HumanMessage(body["messages"][-1]["content"])])
        return 200, {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": text}}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}}

    server = json_server(answer)
    yield f"http://127.0.0.1:{server.server_port}/v1", paths
    server.shutdown()


def test_a_server_without_the_completion_endpoint_gets_the_chat_form(tmp_path: Path, chat_only_server):
    url, paths = chat_only_server
    repo = write_repo(tmp_path, SHIPPING)
    # the embedded model's name (it has FIM tokens), served by a server that has no /completions
    model = DeadlineChatOpenAI(base_url=url, api_key="local", model=MODEL_ALIAS, timeout=30, max_retries=0)
    result, events = run_cloze(repo, model)
    assert result.status == "patched" and result.provenance["text"] == "math.ceil(weight_kg)", result.message
    assert paths[0].endswith("/v1/completions") and all(p.endswith("/chat/completions") for p in paths[1:])
    assert [f["outcome"] for f in fills(events)][0] == "candidate"  # the 404 cost no fill
