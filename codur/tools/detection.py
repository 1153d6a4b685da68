"""Tool calls from a model reply: native ``tool_calls`` first, else structured JSON in the content.

Small local models (Qwen2.5-Coder served by llama.cpp) return an empty
``tool_calls`` field and write the call as a fenced ```json block
``{"name": ..., "arguments": {...}}``, sometimes bare, several in one block, as a
JSON list, or inside ``<tool_call>…</tool_call>`` tags. Those are parsed
(raw newlines inside JSON strings are accepted: models put code there; so
are Python literals like ``None`` and ``True``, read with ``ast.literal_eval``).
Bare JSON counts only when it is the whole reply (one or several JSON values and
nothing else). Prose never is a call: "delete main.py.bak later" is not one, and
neither is JSON quoted in a sentence ('later one could run {"name": "delete_file",
...}'): such JSON is not run, and the model is told so (:data:`PROSE_NOTE`). What
cannot be used — malformed JSON, an unknown tool, arguments of the wrong type, JSON
inside prose — becomes a readable error for the model.

Plain-text calls are read too, when a reply has no JSON call: a line that is only
``read_file(path="a.py")`` (keyword arguments, Python literals), or a ReAct pair
``Action: read_file`` / ``Action Input: {"path": "a.py"}``. They count only when the name is
a tool the agent may call (``known``) and the arguments parse (and fit the tool's schema
when its spec is at hand); anything else is prose, never a call and never an error:
"first I would call read_file(path='a.py')" is a sentence, not a line that is a call.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage

from codur.core.pyast import literal, parse_ast

if TYPE_CHECKING:
    from codur.tools.registry import ToolRegistry

# a fence runs to its closing ``` or, when the reply was cut off, to the end
FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
NAME_KEYS = ("name", "tool", "function")
ARG_KEYS = ("arguments", "args", "parameters", "input")
CODE_LANGS = ("python", "py", "repl", "bash", "sh", "shell", "diff", "console", "text", "toml", "yaml")
DECODER = json.JSONDecoder(strict=False)
PLAIN_CALL = re.compile(r"^[ \t]*`?([A-Za-z_]\w*)\((.*)\)`?[ \t]*$", re.MULTILINE)
REACT_CALL = re.compile(r"^[ \t]*Action:[ \t]*`?([A-Za-z_]\w*)`?[ \t]*\n[ \t]*Action Input:[ \t]*(.+?)[ \t]*$",
                        re.MULTILINE)
HOW_TO_CALL = 'write one JSON object {"name": "<tool>", "arguments": {...}} in a ```json block'
PROSE_NOTE = ("{name}: not run. JSON inside prose is not a tool call; reply with the JSON alone "
              "or in a ```json block")


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


def _as_call(obj: Any) -> tuple[str, dict, bool, bool] | None:
    """(name, args, had an arguments key, flattened) when ``obj`` has the shape of a call."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):  # OpenAI wire shape
        obj = obj["function"]
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is None:
        return None
    extra = set(obj) - set(NAME_KEYS) - set(ARG_KEYS) - {"id", "type"}
    has_args = any(k in obj for k in ARG_KEYS)
    if extra:
        if has_args:
            return None
        # Flattened: {"name": "done", "summary": "..."} (the 1.5B model writes this);
        # like any call without an arguments key, kept only when the name is a known tool.
        return name, {k: obj[k] for k in extra}, False, True
    args = next((obj[k] for k in ARG_KEYS if k in obj), {})
    if isinstance(args, str):
        try:
            args = DECODER.decode(args)
        except json.JSONDecodeError:
            return name, {"__invalid__": args}, has_args, False
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return name, {"__invalid__": args}, has_args, False
    return name, args, has_args, False


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the bracket closing the one at ``start``, skipping quoted strings."""
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _python_literal(text: str, start: int) -> tuple[Any, int] | None:
    """A Python dict/list literal at ``start`` (the 1.5B model writes ``None``/``True``
    in its JSON), parsed with ``ast.literal_eval``: never evaluated code."""
    end = _balanced_end(text, start)
    if end is None:
        return None
    try:
        return literal(text[start:end]), end
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _json_values(text: str) -> tuple[list[Any], json.JSONDecodeError | None]:
    """Every top-level JSON object or array in ``text``, and the first decode error."""
    found: list[Any] = []
    first_error = None
    i = 0
    while i < len(text):
        if text[i] in "{[":
            try:
                obj, end = DECODER.raw_decode(text, i)
            except json.JSONDecodeError as exc:
                literal = _python_literal(text, i)
                if literal is None:
                    first_error = first_error or exc
                    i += 1
                    continue
                obj, end = literal
            found.append(obj)
            i = end
        else:
            i += 1
    return found, first_error


def _only_json(text: str) -> bool:
    """True when ``text`` is one or several JSON values (or Python literals) and whitespace, nothing else."""
    i, seen = 0, False
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        if text[i] not in "{[":
            return False
        try:
            _, i = DECODER.raw_decode(text, i)
        except json.JSONDecodeError:
            literal = _python_literal(text, i)
            if literal is None:
                return False
            i = literal[1]
        seen = True
    return seen


def _calls_in(values: list[Any]) -> list[tuple[str, dict, bool, bool]]:
    """The call-shaped items of decoded JSON values (a list holds several calls)."""
    items = [item for value in values for item in (value if isinstance(value, list) else [value])]
    return [call for item in items if (call := _as_call(item)) is not None]


def _accepted(call: tuple[str, dict, bool, bool], structured: bool, known: Collection[str] | None) -> bool:
    """A fenced or tagged call is taken as is; a bare one needs an arguments key; a flattened one
    (no arguments key) only when its name is a known tool."""
    name, _, has_args, flattened = call
    return (not flattened and (structured or has_args)) or (known is not None and name in known)


def _looks_like_call(snippet: str) -> bool:
    return bool(re.search(r'"(name|tool)"\s*:', snippet)) and bool(
        re.search(r'"(arguments|args|parameters)"', snippet))


def _content_text(message: AIMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in message.content)


def detect_tool_calls(message: AIMessage, known: Collection[str] | None = None, *,
                      registry: ToolRegistry | None = None) -> Detection:
    """Find the tool calls in ``message``.

    Args:
        message: the model's reply.
        known: tool names the agent may call; others become errors (None: accept any).
        registry: when given, each call's arguments are checked against its tool's
            schema and a call with wrong or missing arguments becomes an error.

    Returns:
        A :class:`Detection`. Never raises on malformed content.
    """
    if message.tool_calls or message.invalid_tool_calls:
        raw = [(c["name"], c.get("args") or {}, c.get("id")) for c in message.tool_calls]
        errors = [f"could not parse the arguments of {c.get('name') or 'a tool call'}: "
                  f"{c.get('error') or 'invalid JSON'}; {HOW_TO_CALL}" for c in message.invalid_tool_calls]
        return _validated(raw, errors, known, registry, "native")
    text = _content_text(message)
    blocks: list[tuple[str, bool]] = [(m.group(1), True) for m in TAGGED.finditer(text)]
    for m in FENCE.finditer(text):
        lang, body = m.group(1).lower(), TAGGED.sub("", m.group(2))  # tags were read above
        if lang in ("json", "tool_call", "tool", "") or (lang not in CODE_LANGS and _looks_like_call(body)):
            blocks.append((body, True))
    prose = TAGGED.sub("", FENCE.sub("", text)).strip()
    if not blocks and (_only_json(prose) or (prose[:1] in ("{", "[") and _looks_like_call(prose))):
        blocks, prose = [(prose, False)], ""  # bare JSON: the whole reply (or a malformed attempt at one)
    raw, errors = _block_calls(blocks, known)
    if prose and ("{" in prose or "[" in prose):  # JSON quoted in a sentence: never run, said so
        values, _ = _json_values(prose)
        errors += [PROSE_NOTE.format(name=c[0]) for c in _calls_in(values) if _accepted(c, False, known)]
    if not raw and not errors and known:
        raw = _plain_calls(prose, known, registry)
    return _validated(raw, errors, known, registry, "content")


def _block_calls(blocks: list[tuple[str, bool]],
                 known: Collection[str] | None) -> tuple[list[tuple[str, dict, str | None]], list[str]]:
    """(the calls, the errors) of the JSON ``blocks`` (text, whether tagged or fenced): a block whose
    JSON does not parse and looks like a call is an error the model reads."""
    raw: list[tuple[str, dict, str | None]] = []
    errors: list[str] = []
    for body, structured in blocks:
        values, error = _json_values(body)
        found = False
        for call in _calls_in(values):
            if _accepted(call, structured, known):
                raw.append((call[0], call[1], None))
                found = True
        if not found and error is not None and _looks_like_call(body):
            errors.append(f"could not parse the tool call JSON ({error.msg} at line {error.lineno} "
                          f"column {error.colno}); {HOW_TO_CALL}")
    return raw, errors


def _keyword_args(text: str) -> dict | None:
    """``path="a.py", n=2`` as a dict of Python literals; None unless it parses as exactly that."""
    try:
        call = parse_ast(f"f({text})", mode="eval").body
        if not isinstance(call, ast.Call) or call.args or any(kw.arg is None for kw in call.keywords):
            return None
        return {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords}
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _plain_calls(text: str, known: Collection[str], registry: ToolRegistry | None) -> list[tuple[str, dict, None]]:
    """The plain-text calls in ``text`` (see the module docstring), in reply order."""
    from codur.tools.registry import REGISTRY  # a function-level import: the registry imports nothing of ours

    found: list[tuple[int, str, dict | None]] = [(m.start(), m.group(1), _keyword_args(m.group(2)))
                                                 for m in PLAIN_CALL.finditer(text)]
    for m in REACT_CALL.finditer(text):
        values, _ = _json_values(m.group(2))
        found.append((m.start(), m.group(1), values[0] if len(values) == 1 and isinstance(values[0], dict) else None))
    calls = []
    for _, name, args in sorted(found, key=lambda item: item[0]):
        if name not in known or args is None:
            continue
        spec = (registry or REGISTRY).get(name)
        try:
            if spec is not None:
                spec.parse_args(args)
        except ValueError:
            continue
        calls.append((name, args, None))
    return calls


def _validated(raw: list[tuple[str, dict, str | None]], errors: list[str], known: Collection[str] | None,
               registry: ToolRegistry | None, source: str) -> Detection:
    calls = []
    for name, args, call_id in raw:
        if known is not None and name not in known:
            errors.append(f"unknown tool {name!r}; available: {', '.join(sorted(known))}")
            continue
        if "__invalid__" in args:
            errors.append(f"the arguments of {name} must be a JSON object, got {args['__invalid__']!r:.80}")
            continue
        spec = registry.get(name) if registry is not None else None
        if registry is not None and spec is None:
            errors.append(f"unknown tool {name!r}; available: {', '.join(registry.names())}")
            continue
        if spec is not None:
            try:
                spec.parse_args(args)
            except ValueError as exc:
                errors.append(str(exc))
                continue
        calls.append({"name": name, "args": args, "id": call_id or f"call_{uuid.uuid4().hex[:12]}",
                      "type": "tool_call"})
    return Detection(calls, errors, source if (calls or errors) else "none")
