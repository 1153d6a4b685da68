"""How a cloze hole (:class:`codur.patch.masks.Mask`) is asked of a model: fill-in-the-middle
where the model and its server have it, else a chat prompt with a marked hole.

- :class:`FimAsk`: ``FIM_PREFIX + header + code before the hole + FIM_SUFFIX + code after it +
  FIM_MIDDLE`` through the raw completion call (``fill``:
  :meth:`codur.llm.deadline.DeadlineChatOpenAI.fill`), stopped at the line's end. The model
  was trained on this form (Qwen2.5-Coder), so the fill is the middle and nothing else. The fill
  is decoded under a grammar that excludes the masked code (:mod:`codur.patch.unlike`: the
  model's likeliest fill that differs, where it would mostly give the code back); a server that
  refuses the grammar (400) is asked without it from then on.
  The code around the hole is the module whole when small, else a window (:func:`around`).
- :class:`ChatAsk`: a system prompt asking for the code of the hole only, and the file with
  :data:`HOLE` where the hole is; the reply's first line of code is the fill (a fence, or the
  line's start the model wrote again, cut). Chosen for a model without fill-in-the-middle
  tokens (:data:`FIM_TOKENS`) or a raw completion call, and for the rest of the run when the
  server answers the completion endpoint with 404 (it has none).

Both give (reply, tokens) and go through the model's own limits and the run's usage ledger.
"""

from __future__ import annotations

import ast
import functools
import re

import openai
from langchain_core.messages import HumanMessage, SystemMessage

from codur.patch.masks import Mask
from codur.patch.unlike import gbnf

#: Fill-in-the-middle tokens (prefix, suffix, middle) by a model name's family (lower case).
FIM_TOKENS = {"qwen2.5-coder": ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>")}
#: Where a fill ends: one line (every mask holds one), or the model's end tokens.
STOP = ["\n", "<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|im_end|>", "<|fim_prefix|>"]
#: Tokens a fill may take (one line).
MAX_TOKENS = 48
#: Characters of the file the model sees around a hole (whole lines): the module's head (its docstring,
#: imports and constants) up to HEAD_CHARS, then the text before the hole from the start of the
#: function holding it, at most BEFORE_CHARS, and the text after it, at most AFTER_CHARS: the server's
#: prompt cache holds the prompt up to the hole, so the text after it is what each fill reads anew
#: (on parse's module at 65 tokens/s: 450 tokens and 7 s a fill with 1,500 characters, 180 tokens
#: and 3 s with 600, the fills mostly the same; bench/repair/README.md, "Fill cost"). A whole
#: file of 700 lines is about 7,000 tokens: on 2 cores the embedded model read such a prompt for 275 s,
#: the whole budget of a bench/real run, before its first fill. The code next to the bug is the
#: context infilling needs (Xia, Wei & Zhang, ICSE 2023). The window's start is the function's
#: start, or in a function longer than BEFORE_CHARS a point that moves in steps of STEP_CHARS: every
#: hole of one step's lines sees the same start, so the server's prompt cache holds the prompt up to
#: the hole and a fill reads only the rest (with the start moving with each hole, 4 fills of 18 on
#: parse's module read the window's 1,250 tokens whole, 17 s each; 148 s for the 18 in steps, 173 s
#: before, with 1,500 characters after the hole).
HEAD_CHARS, BEFORE_CHARS, AFTER_CHARS, STEP_CHARS = 1_200, 3_000, 600, 1_000
#: Written where the window leaves the module's text out.
ELIDED = "# ...\n"
#: The mark of the hole in a chat prompt.
HOLE = "<HOLE>"
#: The chat form's system prompt.
CHAT = (f"Fill the hole {HOLE} in this Python file so that the failing tests pass. Answer with the code that "
        f"replaces {HOLE} only, one line, no explanation.")


def fim_tokens(model: object) -> tuple[str, str, str] | None:
    """The fill-in-the-middle tokens of ``model`` (None: it has none, or no raw ``fill`` call)."""
    name = str(getattr(model, "model_name", "") or "").lower()
    if not callable(getattr(model, "fill", None)):
        return None
    return next((tokens for family, tokens in FIM_TOKENS.items() if family in name), None)


class ChatAsk:
    """A hole asked of a chat model: the file with :data:`HOLE`, the reply's first line of code."""

    form = "chat"

    def __init__(self, model) -> None:
        self.model = model

    def __call__(self, head: str, mask: Mask, text: str, temperature: float, seed: int) -> tuple[str, int]:
        prefix, suffix = around(mask, text)
        messages = [SystemMessage(CHAT), HumanMessage(f"{head}{prefix}{HOLE}{suffix}")]
        reply = self.model.invoke(messages, temperature=temperature, seed=seed, max_tokens=MAX_TOKENS)
        meta = getattr(reply, "usage_metadata", None) or {}
        return first_line(str(reply.content), prefix), int(meta.get("total_tokens") or 0)


class FimAsk:
    """A hole asked fill-in-the-middle; a server without the completion endpoint (404) makes it
    ask the chat form from then on."""

    def __init__(self, model, tokens: tuple[str, str, str]) -> None:
        self.model, self.tokens, self.chat, self.unlike = model, tokens, None, True

    @property
    def form(self) -> str:
        return "fim" if self.chat is None else "chat"

    def __call__(self, head: str, mask: Mask, text: str, temperature: float, seed: int) -> tuple[str, int]:
        if self.chat is not None:
            return self.chat(head, mask, text, temperature, seed)
        pre, suf, mid = self.tokens
        prefix, suffix = around(mask, text)
        prompt = f"{pre}{head}{prefix}{suf}{suffix}{mid}"
        ask = functools.partial(self.model.fill, prompt, max_tokens=MAX_TOKENS, temperature=temperature, seed=seed,
                                stop=STOP)
        try:
            if self.unlike:
                try:
                    return ask(grammar=gbnf(mask.original, mask.suffix(text)))
                except openai.BadRequestError:  # a server without llama.cpp's grammars: asked plain from now on
                    self.unlike = False
            return ask()
        except openai.NotFoundError:
            self.chat = ChatAsk(self.model)
            return self.chat(head, mask, text, temperature, seed)


def asker(models: list) -> FimAsk | ChatAsk | None:
    """How the holes are asked: fill-in-the-middle of the first model that has it, else the
    chat form of the first model (None: no model)."""
    for model in models:
        if (tokens := fim_tokens(model)) is not None:
            return FimAsk(model, tokens)
    return ChatAsk(models[0]) if models else None


def first_line(reply: str, prefix: str) -> str:
    """The fill in a chat ``reply``: its first line of code — the first line inside its first
    fenced block when it has one (prose around it left out), else its first line (blank lines,
    a leading :data:`HOLE` and inline backticks left out) — without the start of the hole's line
    when the model wrote it again (``kilograms = math.ceil(w)`` for the hole of
    ``kilograms = <HOLE>``)."""
    rows = reply.replace(HOLE, "").splitlines()
    fences = [i for i, ln in enumerate(rows) if ln.strip().startswith("```")]
    if fences:
        rows = rows[fences[0] + 1:fences[1]] if len(fences) > 1 else rows[fences[0] + 1:]
    lines = [ln.strip() for ln in rows if ln.strip()]
    if not lines:
        return ""
    line, start = lines[0].strip("`"), prefix.rsplit("\n", 1)[-1].strip()
    again = start and line != start and re.match(re.escape(start) + r"(?!\w)", line)
    return line[len(start):].strip() if again else line


def around(mask: Mask, text: str) -> tuple[str, str]:
    """(the text before the hole, the text after it) that the model sees for ``mask`` of ``text``
    (a module): :func:`Mask.prefix` and :func:`Mask.suffix` cut to the window of :data:`HEAD_CHARS`,
    :data:`BEFORE_CHARS` and :data:`AFTER_CHARS` at line ends, the start in steps of :data:`STEP_CHARS`;
    a small module is seen whole."""
    prefix, suffix = mask.prefix(text), mask.suffix(text)
    if len(suffix) > AFTER_CHARS:
        suffix = suffix[:suffix.rfind("\n", 0, AFTER_CHARS) + 1] or suffix[:AFTER_CHARS]
    head_end, starts = _layout(text)
    if len(prefix) <= HEAD_CHARS + BEFORE_CHARS:
        return prefix, suffix
    start = max((s for s in starts if s <= mask.start), default=0)  # the function holding the hole
    if (over := mask.start - BEFORE_CHARS - start) > 0:  # from the first step's line start past the limit
        start = min(text.find("\n", start + -(-over // STEP_CHARS) * STEP_CHARS - 1),
                    text.rfind("\n", 0, mask.start)) + 1
    head = text[:head_end] if head_end <= HEAD_CHARS else text[:text.rfind("\n", 0, HEAD_CHARS) + 1]
    return (prefix[start:] if start <= len(head) else head + ELIDED + prefix[start:]), suffix


@functools.lru_cache(maxsize=8)
def _layout(text: str) -> tuple[int, tuple[int, ...]]:
    """(where the module's head ends: its first function or class, every function's start with its
    decorators, as offsets of ``text``); (len, ()) when ``text`` does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return len(text), ()
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    first = next((n for n in tree.body if isinstance(n, defs)), None)
    head_end = offsets[min(d.lineno for d in first.decorator_list) - 1 if first.decorator_list else first.lineno - 1] \
        if first else len(text)
    starts = sorted(offsets[(min(d.lineno for d in n.decorator_list) if n.decorator_list else n.lineno) - 1]
                    for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return head_end, tuple(starts)
