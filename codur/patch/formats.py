"""Edit formats a model sample may be asked to write, and how each reply becomes a new file.

- ``function`` (the default): the corrected function written whole (:func:`splice`).
- ``search_replace``: aider-style blocks ``<<<<<<< SEARCH`` / ``=======`` /
  ``>>>>>>> REPLACE``; the SEARCH lines must match the file's lines (indentation aside),
  inside the function (or its window) first, then anywhere in the file; a block with an
  empty SEARCH adds its code to the module (an import, a constant, a helper).
- ``udiff``: a unified diff, applied hunk by hunk with exact context (line numbers
  not trusted), as the ``apply_patch`` tool does.
- ``lines``: a long function's window rewritten (:mod:`codur.patch.window`); asked for
  instead of ``function`` when the function is longer than
  :data:`codur.patch.window.WINDOW_MIN_LINES`.

Code a ``function`` reply writes beside the function (an import, a constant, a helper, a
sibling method) is merged into the module (:func:`codur.patch.additions.merge`).
:func:`apply` raises :class:`NotApplied` with the reason a reply cannot be applied (a SEARCH
that matches nothing, no block defining the function, a result that does not compile).

bench/agent compares them (``--sample-format``); see bench/agent/README.md.
"""

from __future__ import annotations

import re
import textwrap

from codur.patch.additions import merge
from codur.patch.splice import FunctionSpan, _find_def, code_blocks, splice
from codur.patch.window import NotApplied, Window, apply_lines

FORMATS = ("function", "search_replace", "udiff")
__all__ = ["FORMATS", "NotApplied", "apply", "apply_reply", "complete"]

SYSTEM = {
    "function": "You fix bugs in Python functions. Reply with the corrected function in one ```python block: "
                "the whole function, same name and signature, no explanation.",
    "search_replace": "You fix bugs in Python functions. Reply only with edit blocks, each:\n"
                      "<<<<<<< SEARCH\n(exact lines of the code)\n=======\n(their replacement)\n>>>>>>> REPLACE",
    "udiff": "You fix bugs in Python functions. Reply with a unified diff (---/+++ headers, @@ hunks with "
             "context lines) in one ```diff block, no explanation.",
    "lines": "You fix bugs in Python functions. Reply with the corrected lines you are asked for in one ```python "
             "block, with their indentation, no explanation. An import or a helper function you need goes in a "
             "second ```python block right after it.",
}
ASK = {
    "function": "Write the corrected {names} in full.",
    "search_replace": "Write the SEARCH/REPLACE blocks that fix {names}.",
    "udiff": "Write the unified diff of {file} that fixes {names}.",
    "lines": "Rewrite these lines of {names} with the bug fixed (the lines before and after stay as they are):",
}
_BLOCK_RE = re.compile(r"<{5,9} ?SEARCH[^\n]*\n(.*?)\n?={5,9}[^\n]*\n(.*?)\n?>{5,9} ?REPLACE", re.DOTALL)


def complete(fmt: str, reply: str, names: list[str], every: bool = False) -> bool:
    """True once ``reply`` holds a whole answer in format ``fmt`` (the stream may stop):
    a closed block defining one of ``names`` (``every``: each of them)."""
    if fmt == "search_replace":
        return bool(_BLOCK_RE.search(reply)) and reply.rstrip().endswith(("REPLACE", "```"))
    if reply.count("```") < 2:
        return False
    if fmt == "lines":  # the first block, and a second one when it follows at once (an import, a helper)
        after = reply[reply.index("```", reply.index("```") + 3) + 3:].lstrip(" \t\r\n")
        return bool(after) and (not after.startswith("`") or reply.count("```") >= 4)
    closed = code_blocks(reply[: reply.rfind("```")] + "```")
    if fmt == "udiff":
        return any("@@" in b for b in closed)
    found = [any(re.search(rf"\bdef\s+{re.escape(n)}\s*\(", b) for b in closed) for n in names]
    return all(found) if every else any(found)


def _replace_block(lines: list[str], old: list[str], new: list[str],
                   within: tuple[int, int] = (1, 0)) -> list[str] | None:
    """``lines`` with the first run matching ``old`` (stripped) replaced by ``new``,
    re-indented by the difference between the file's and the block's indentation; a run
    starting in lines ``within`` (1-based, inclusive) first, then the first in the file."""
    old = list(old)
    while old and not old[0].strip():
        old.pop(0)
    while old and not old[-1].strip():
        old.pop()
    if not old:
        return None
    key = [x.strip() for x in old]
    first = range(max(0, within[0] - 1), min(len(lines) - len(old) + 1, within[1]))
    for at in [*first, *range(len(lines) - len(old) + 1)]:
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


def apply_reply(fmt: str, text: str, spans: list[FunctionSpan], reply: str,
                window: Window | None = None) -> tuple[str, list[str]] | None:
    """:func:`apply`, None when the reply does not apply."""
    try:
        return apply(fmt, text, spans, reply, window)
    except NotApplied:
        return None


def apply(fmt: str, text: str, spans: list[FunctionSpan], reply: str,
          window: Window | None = None) -> tuple[str, list[str]]:
    """The new file text from ``reply`` in format ``fmt`` and the functions it changed
    (qualified names). ``window``: the window a ``lines`` reply rewrites (and where a SEARCH
    is looked for first).

    Raises:
        NotApplied: the reply does not apply or the result does not compile; the message says why.
    """
    if fmt == "lines":
        if window is None:
            raise NotApplied("no window to rewrite")
        return apply_lines(text, window, reply)
    if fmt == "function":
        return _functions(text, spans, reply)
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.replace("\r\n", "\n").split("\n")
    out = _search_replace(lines, spans, reply, window) if fmt == "search_replace" else _udiff(lines, spans, reply)
    try:
        compile(out, spans[0].file or "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise NotApplied(f"the result does not compile: {exc}"[:200]) from exc
    touched = [s.qualname for s in spans]
    return (out.replace("\n", newline) if newline != "\n" else out), touched


def _search_replace(lines: list[str], spans: list[FunctionSpan], reply: str, window: Window | None) -> str:
    """The file's ``lines`` (``\\n`` split) with each SEARCH/REPLACE block of ``reply`` applied
    in turn (inside ``window``, else the first span, first); a block with an empty SEARCH is
    merged into the module after them (:func:`codur.patch.additions.merge`).

    Raises:
        NotApplied: no block in the reply, or a SEARCH that matches no lines.
    """
    blocks = _BLOCK_RE.findall(reply.replace("\r\n", "\n"))
    if not blocks:
        raise NotApplied("no SEARCH/REPLACE block in the reply")
    within = (window.start, window.end) if window else (spans[0].start, spans[0].end)
    added: list[str] = []
    for i, (old, new) in enumerate(blocks, 1):
        if not old.strip():  # nothing to search: code for the module (an import, a helper)
            added.append(new)
            continue
        changed = _replace_block(lines, old.split("\n"), new.split("\n") if new else [], within)
        if changed is None:
            line = next((x.strip() for x in old.split("\n") if x.strip()), "")
            raise NotApplied(f"SEARCH block {i} of {len(blocks)} matches no lines of {spans[0].file}: "
                             f"`{line[:80]}`")
        lines = changed
    out = "\n".join(lines)
    for code in added:
        out = merge(out, spans[0], textwrap.dedent(code).strip()) or out
    return out


def _udiff(lines: list[str], spans: list[FunctionSpan], reply: str) -> str:
    """The file's ``lines`` (``\\n`` split) with the first unified diff of ``reply`` applied
    hunk by hunk (:func:`codur.tools.patch.apply_hunks`); a diff without headers is taken as
    one of the first span's file.

    Raises:
        NotApplied: the diff does not apply or has no hunk.
    """
    from codur.tools.context import ToolError
    from codur.tools.patch import apply_hunks, parse_unified_diff

    diffs = [b for b in code_blocks(reply) if "@@" in b] or [reply]
    try:
        patches = parse_unified_diff(diffs[0] if diffs[0].lstrip().startswith("---") else
                                     f"--- a/{spans[0].file}\n+++ b/{spans[0].file}\n{diffs[0]}")
        hunks = tuple(h for p in patches for h in p.hunks)
        out = apply_hunks("\n".join(lines), hunks, spans[0].file) if hunks else ""
    except (ToolError, ValueError, IndexError) as exc:
        raise NotApplied(f"the diff does not apply: {str(exc)[:200]}") from exc
    if not out:
        raise NotApplied("the diff has no hunk")
    return out


def _functions(text: str, spans: list[FunctionSpan], reply: str) -> tuple[str, list[str]]:
    """Each function of ``spans`` replaced by its rewrite in ``reply`` (:func:`splice`), then
    the rest of the block that held the first rewrite (imports, constants, helpers, sibling
    methods) merged into the module."""
    new, done = text, []
    for span in sorted(spans, key=lambda s: -s.start):  # bottom first: spans stay valid
        spliced = splice(new, span, reply)
        if spliced is not None:
            new, done = spliced, [*done, span.qualname]
    if not done:
        names = ", ".join(f"`{s.name}`" for s in spans)
        raise NotApplied(f"no block of the reply defines {names} and compiles")
    names = {s.name for s in spans}
    block = next((b for b in code_blocks(reply) if any(_find_def(b, n) for n in names)), "")
    code = textwrap.dedent(block.replace("\r\n", "\n")).strip()
    if code:
        newline = "\r\n" if "\r\n" in new else "\n"
        merged = merge(new.replace("\r\n", "\n"), spans[0], code, names)
        if merged is not None and merged != new.replace("\r\n", "\n"):
            try:
                compile(merged, spans[0].file or "<candidate>", "exec", dont_inherit=True)
                new = merged.replace("\n", newline) if newline != "\n" else merged
            except (SyntaxError, ValueError):
                pass  # the additions do not compile: the function alone
    return new, list(reversed(done))
