"""Tool calls from a model reply: native ``tool_calls`` first, else structured JSON in the content.

Small local models (Qwen2.5-Coder served by llama.cpp) return an empty
``tool_calls`` field and write the call as a fenced ```json block
``{"name": ..., "arguments": {...}}``, sometimes bare or inside
``<tool_call>…</tool_call>`` tags. Those are parsed. Free prose never is: "delete
main.py.bak later" is not a call.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n(.*?)```", re.DOTALL)
TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
NAME_KEYS = ("name", "tool", "function")
ARG_KEYS = ("arguments", "args", "parameters", "input")


@dataclass(frozen=True)
class Detection:
    """What a reply asks for.

    Attributes:
        calls: LangChain tool calls ``{"name", "args", "id", "type"}`` in reply order.
        errors: readable problems to send back to the model (malformed JSON, unknown tool).
        source: "native", "content" or "none".
    """

    calls: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    source: str = "none"


def _as_call(obj: Any) -> tuple[str, dict] | None:
    if not isinstance(obj, dict):
        return None
    if "function" in obj and isinstance(obj["function"], dict):  # OpenAI wire shape
        obj = obj["function"]
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is None:
        return None
    args = next((obj[k] for k in ARG_KEYS if k in obj), {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return name, {"__invalid__": args}
    if not isinstance(args, dict):
        return name, {"__invalid__": args}
    if set(obj) - set(NAME_KEYS) - set(ARG_KEYS) - {"id", "type"}:
        return None
    return name, args


def _bare_objects(text: str) -> list[Any]:
    """Top-level JSON objects or arrays written directly in ``text``."""
    decoder = json.JSONDecoder()
    found, i = [], 0
    while i < len(text):
        if text[i] in "{[":
            try:
                obj, end = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                i += 1
                continue
            found.append(obj)
            i = end
        else:
            i += 1
    return found


def _looks_like_call(snippet: str) -> bool:
    return bool(re.search(r'"(name|tool)"\s*:', snippet)) and bool(re.search(r'"(arguments|args|parameters)"', snippet))


def detect_tool_calls(message: AIMessage, known: Collection[str] | None = None) -> Detection:
    """Find the tool calls in ``message``.

    Args:
        message: the model's reply.
        known: tool names the agent may call; others become errors (None: accept any).

    Returns:
        A :class:`Detection`. Never raises on malformed content.
    """
    if message.tool_calls:
        return _validated([(c["name"], c.get("args") or {}, c.get("id")) for c in message.tool_calls],
                          [], known, "native")
    text = message.content if isinstance(message.content, str) else "".join(
        p.get("text", "") if isinstance(p, dict) else str(p) for p in message.content
    )
    raw: list[tuple[str, dict, str | None]] = []
    errors: list[str] = []
    snippets = [m.group(1) for m in TAGGED.finditer(text)]
    for m in FENCE.finditer(text):
        lang, body = m.group(1).lower(), m.group(2)
        if lang in ("json", "tool_call", "tool", "") or (lang not in ("python", "py", "repl", "bash", "sh", "diff") and _looks_like_call(body)):
            snippets.append(body)
    if not snippets:
        outside = TAGGED.sub("", FENCE.sub("", text))
        snippets = [json.dumps(o) for o in _bare_objects(outside)]
    for snippet in snippets:
        try:
            obj = json.loads(snippet)
        except json.JSONDecodeError as exc:
            if _looks_like_call(snippet):
                errors.append(f"could not parse the tool call JSON ({exc.msg} at line {exc.lineno} "
                              f"column {exc.colno}); write one JSON object "
                              '{"name": "<tool>", "arguments": {...}} in a ```json block')
            continue
        for item in obj if isinstance(obj, list) else [obj]:
            call = _as_call(item)
            if call:
                raw.append((call[0], call[1], None))
    return _validated(raw, errors, known, "content" if raw or errors else "none")


def _validated(raw: list[tuple[str, dict, str | None]], errors: list[str],
               known: Collection[str] | None, source: str) -> Detection:
    calls = []
    for name, args, call_id in raw:
        if known is not None and name not in known:
            errors.append(f"unknown tool {name!r}; available: {', '.join(sorted(known))}")
            continue
        if "__invalid__" in args:
            errors.append(f"the arguments of {name} must be a JSON object, got {args['__invalid__']!r:.80}")
            continue
        calls.append({"name": name, "args": args, "id": call_id or f"call_{uuid.uuid4().hex[:12]}",
                      "type": "tool_call"})
    return Detection(calls, errors, source if (calls or errors) else "none")
