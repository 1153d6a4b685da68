"""A sample's reply applied: the new text of each file it changes (:func:`new_texts`).

The reply's format is the variant's: a ``pair`` reply's blocks are spliced by name and file
(:func:`codur.patch.splice.splice_files`), a ``file`` reply's block is merged into the module
(:func:`codur.patch.additions.merge`), any other by the answer format (:mod:`codur.patch.formats`).
"""

from __future__ import annotations

from codur.core.pyast import BOM
from codur.patch import formats
from codur.patch.additions import merge
from codur.patch.prompt import PromptParts
from codur.patch.sample import changed_functions
from codur.patch.splice import FunctionSpan, code_blocks, splice_files
from codur.patch.window import NotApplied


def new_texts(parts: PromptParts, variant: str, spans: list[FunctionSpan], reply: str) \
        -> tuple[dict[str, str], tuple[str, ...]]:
    """The new text of each file ``reply`` changes and the functions it rewrote.

    Raises:
        NotApplied: nothing in the reply applies (the message says why).
    """
    file = parts.spans[0].file
    if variant == "pair":
        news = splice_files(parts.texts, spans, reply)
        if not news:
            raise NotApplied("no block of the reply defines " + " or ".join(f"`{s.name}`" for s in spans))
        done = tuple(q for f, t in news.items() for q in changed_functions(parts.texts[f], t, f))
        return news, done or tuple(s.qualname for s in spans if s.file in news)
    if variant == "file":
        return {file: (new := whole_file(parts, reply))}, changed_functions(parts.text, new, file)
    new, done = formats.apply(parts.answer_format, parts.text, spans, reply, parts.window)
    return {file: new}, tuple(done)


def whole_file(parts: PromptParts, reply: str) -> str:
    """The file rewritten whole by ``reply``: its longest block merged into the file
    (:func:`codur.patch.additions.merge`: functions and methods replaced by name, new
    functions, imports and constants added).

    Raises:
        NotApplied: the block does not parse (cut at the token limit, most often) or the
            result does not compile.
    """
    code = max(code_blocks(reply), key=len).replace("\r\n", "\n").strip()
    newline = "\r\n" if "\r\n" in parts.text else "\n"
    merged = merge(parts.text.replace("\r\n", "\n"), parts.spans[0], code, module=True) if code else None
    if merged is None:
        raise NotApplied("the file's rewrite does not parse")
    try:
        compile(merged.removeprefix(BOM), parts.spans[0].file or "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise NotApplied(f"the file's rewrite does not compile: {exc}"[:200]) from exc
    return merged.replace("\n", newline) if newline != "\n" else merged

