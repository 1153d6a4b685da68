"""What the RLM's model is shown of a turn: each block's output and error, the input's preview,
older outputs elided to keep the prompt short, and whether an output is readable enough to
ask the answer from (:mod:`codur.rlm.engine`)."""

from __future__ import annotations

import ast
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from codur.rlm.helpers import looks_empty, truncate
from codur.rlm.slots import records_of
from codur.rlm.trace import CodeExecution, Iteration


def readable(iteration: Iteration, shown: str | None = None) -> bool:
    """True when every block ran without error or note and the last one printed a non-empty value
    (or a FINAL_VAR's value is ``shown``)."""
    if any(e.error or e.notes for e in iteration.executions):
        return False
    if shown:
        return True
    return bool(iteration.executions) and not looks_empty(iteration.executions[-1].stdout)


def items(value: str, context: Any = None) -> int:
    """How many items a FINAL_VAR value holds: the length of a list / tuple / set written as Python;
    for text, its non-empty lines when every one is copied whole from ``context`` (raw lines of the
    input, not an answer written in several lines); else 1."""
    text = value.strip()
    if text[:1] in "[(" and len(text) < 200_000:
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            parsed = None
        if isinstance(parsed, list | tuple | set):
            return len(parsed)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    copied = isinstance(context, str) and all(line in context for line in lines)
    return len(lines) if len(lines) > 1 and copied else 1


def clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def preview(context: Any, chars: int) -> str:
    text = context if isinstance(context, str) else repr(context)
    return truncate(text, chars)


RECORDS_FIELDS = 14


def records_summary(context: Any) -> str:
    """What ``records(context)`` reads (how many records, of which formats, the unparsed lines, and the
    first :data:`RECORDS_FIELDS` fields with examples), shown in the first turn so the first block can
    query it; "" when the input is no records (:func:`records_of`)."""
    if (recs := records_of(context)) is None:
        return ""
    fields = repr(recs.fields()).splitlines()
    more = f"\n({len(fields) - RECORDS_FIELDS} more fields)" if len(fields) > RECORDS_FIELDS else ""
    return f"records(context) reads it as {recs!r}. Its fields:\n" + "\n".join(fields[:RECORDS_FIELDS]) + more


def render_execution(index: int, execution: CodeExecution, limit: int) -> str:
    """One block's output for the model: stdout, stderr, the error with its last line always
    shown, "your code printed nothing" for no output, and the worker's notes (issue 26, item 2),
    each cut to ``2 * limit`` characters."""
    parts = [f"[block {index}] "]
    if execution.stdout:
        parts.append(truncate(execution.stdout, limit) + "\n")
    if execution.stderr:
        parts.append("stderr: " + truncate(execution.stderr, limit // 2) + "\n")
    if execution.error:
        parts.append(render_error(execution.error, limit // 2))
    if len(parts) == 1:
        parts.append("(your code printed nothing: print() the values you want to see)\n")
    parts += [f"note: {truncate(n, 2 * limit)}\n" for n in execution.notes]  # a note quotes at most 3 lines
    return "".join(parts)


def render_turn(executions: list[CodeExecution], limit: int) -> str:
    """The outputs of one reply's blocks for the model (:func:`render_execution`, ``limit`` characters a
    block) while they stay under ``4 * limit`` characters in all; past that a block's output is one line
    saying how much it printed (and its error's last line). A reply of 36 blocks, each printing a list
    of lines (the tickets count at 400k), made a prompt of 32,572 tokens against the model's window of
    8,192: the server refused it and the run ended in an error, its printed count of 150 lost."""
    if not executions:
        return "(no code ran)\n"
    total, parts = 4 * limit, []
    for index, execution in enumerate(executions, 1):
        text = render_execution(index, execution, limit)
        if parts and sum(map(len, parts)) + len(text) > total:
            text = (f"[block {index}] printed {len(execution.stdout):,} characters: not shown, the blocks of this "
                    f"reply printed past {total:,} (run fewer blocks, print less)\n")
            text += render_error(execution.error, 200) if execution.error else ""
        parts.append(text)
    return "".join(parts)


def render_error(error: str, limit: int) -> str:
    """The exception: its last line (``NameError: name 'x' is not defined``) always, the traceback
    before it cut to ``limit`` characters."""
    lines = error.strip().splitlines() or [error]
    last = lines[-1]
    head = "\n".join(lines[:-1])
    if len(head) > limit:
        head = f"{head[:limit]}\n[traceback cut: {len(head):,} characters]"
    return f"error: {last}\n" + (f"{head}\n{last}\n" if head else "")


def elide_old_outputs(messages: list[BaseMessage], limit: int) -> None:
    """Shorten the oldest feedback turns (never the last two) until the prompt fits ``limit`` chars."""
    total = sum(len(str(m.content)) for m in messages)
    for i in range(3, len(messages) - 4, 2):
        if total <= limit:
            return
        old = str(messages[i].content)
        if old.startswith("[elided]"):
            continue
        messages[i] = HumanMessage("[elided] outputs of an earlier iteration, cut to keep the prompt short")
        total -= len(old) - len(str(messages[i].content))
