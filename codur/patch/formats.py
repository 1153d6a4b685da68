"""Edit formats a model sample may be asked to write, and how each reply becomes a new file.

- ``function`` (the default): the corrected function written whole (:func:`splice`).
- ``search_replace``: aider-style blocks ``<<<<<<< SEARCH`` / ``=======`` /
  ``>>>>>>> REPLACE``; the SEARCH lines must match the file's lines (indentation aside).
- ``udiff``: a unified diff, applied hunk by hunk with exact context (line numbers
  not trusted), as the ``apply_patch`` tool does.

bench/agent compares them (``--sample-format``); see bench/agent/README.md.
"""

from __future__ import annotations

import re

from codur.patch.splice import FunctionSpan, code_blocks, splice

FORMATS = ("function", "search_replace", "udiff")

SYSTEM = {
    "function": "You fix bugs in Python functions. Reply with the corrected function in one ```python block: "
                "the whole function, same name and signature, no explanation.",
    "search_replace": "You fix bugs in Python functions. Reply only with edit blocks, each:\n"
                      "<<<<<<< SEARCH\n(exact lines of the code)\n=======\n(their replacement)\n>>>>>>> REPLACE",
    "udiff": "You fix bugs in Python functions. Reply with a unified diff (---/+++ headers, @@ hunks with "
             "context lines) in one ```diff block, no explanation.",
}
ASK = {
    "function": "Write the corrected {names} in full.",
    "search_replace": "Write the SEARCH/REPLACE blocks that fix {names}.",
    "udiff": "Write the unified diff of {file} that fixes {names}.",
}
_BLOCK_RE = re.compile(r"<{5,9} ?SEARCH[^\n]*\n(.*?)\n?={5,9}[^\n]*\n(.*?)\n?>{5,9} ?REPLACE", re.DOTALL)


def complete(fmt: str, reply: str, names: list[str], every: bool = False) -> bool:
    """True once ``reply`` holds a whole answer in format ``fmt`` (the stream may stop):
    a closed block defining one of ``names`` (``every``: each of them)."""
    if fmt == "search_replace":
        return bool(_BLOCK_RE.search(reply)) and reply.rstrip().endswith(("REPLACE", "```"))
    if reply.count("```") < 2:
        return False
    closed = code_blocks(reply[: reply.rfind("```")] + "```")
    if fmt == "udiff":
        return any("@@" in b for b in closed)
    found = [any(re.search(rf"\bdef\s+{re.escape(n)}\s*\(", b) for b in closed) for n in names]
    return all(found) if every else any(found)


def _replace_block(lines: list[str], old: list[str], new: list[str]) -> list[str] | None:
    """``lines`` with the first run matching ``old`` (stripped) replaced by ``new``,
    re-indented by the difference between the file's and the block's indentation."""
    old = list(old)
    while old and not old[0].strip():
        old.pop(0)
    while old and not old[-1].strip():
        old.pop()
    if not old:
        return None
    key = [x.strip() for x in old]
    for at in range(len(lines) - len(old) + 1):
        if [x.strip() for x in lines[at: at + len(old)]] == key:
            file_indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
            block_indent = old[0][: len(old[0]) - len(old[0].lstrip())]
            fixed = []
            for x in new:
                if x.strip() and x.startswith(block_indent):
                    x = file_indent + x[len(block_indent):]
                elif x.strip():
                    x = file_indent + x.lstrip()
                fixed.append(x)
            return lines[:at] + fixed + lines[at + len(old):]
    return None


def apply_reply(fmt: str, text: str, spans: list[FunctionSpan], reply: str) -> tuple[str, list[str]] | None:
    """The new file text from ``reply`` in format ``fmt`` and the functions it changed
    (qualified names); None when the reply does not apply or does not compile."""
    if fmt == "function":
        new, done = text, []
        for span in sorted(spans, key=lambda s: -s.start):  # bottom first: spans stay valid
            spliced = splice(new, span, reply)
            if spliced is not None:
                new, done = spliced, [*done, span.qualname]
        return (new, list(reversed(done))) if done else None
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.replace("\r\n", "\n").split("\n")
    if fmt == "search_replace":
        blocks = _BLOCK_RE.findall(reply.replace("\r\n", "\n"))
        if not blocks:
            return None
        for old, new in blocks:
            changed = _replace_block(lines, old.split("\n"), new.split("\n") if new else [])
            if changed is None:
                return None
            lines = changed
        out = "\n".join(lines)
    else:
        from codur.tools.context import ToolError
        from codur.tools.patch import apply_hunks, parse_unified_diff

        diffs = [b for b in code_blocks(reply) if "@@" in b] or [reply]
        try:
            patches = parse_unified_diff(diffs[0] if diffs[0].lstrip().startswith("---") else
                                         f"--- a/{spans[0].file}\n+++ b/{spans[0].file}\n{diffs[0]}")
            hunks = tuple(h for p in patches for h in p.hunks)
            out = apply_hunks("\n".join(lines), hunks, spans[0].file) if hunks else ""
        except (ToolError, ValueError, IndexError):
            return None
        if not out:
            return None
    try:
        compile(out, spans[0].file or "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    touched = [s.qualname for s in spans]
    return (out.replace("\n", newline) if newline != "\n" else out), touched
