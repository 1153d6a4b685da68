"""Model patch sampling: the suspicious function rewritten whole, K samples, deduped by AST.

A small model is far better at writing one function than at planning exact-match edits
over several turns, so the model sees the most suspicious function(s) (chosen by fault
localization) with the failing tests' tracebacks and writes the corrected function in
one fenced block. Samples vary the temperature, the seed and the prompt (with and
without the failing tests' source, with the suspicious lines listed); the tests, not
the model, judge each one. The common part of every prompt comes first, so the
server's prompt cache is reused from one sample to the next.

Method: sample-then-validate repair as in Agentless (Xia et al. 2024) and ChatRepair
(Xia & Zhang 2023); whole-function generation as in "Automated Program Repair in the
Era of Large Pre-trained Language Models" (Xia, Wei, Zhang, ICSE 2023).
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from codur.patch import formats
from codur.patch.splice import FunctionSpan, function_at, functions, normalized, source_of

SYSTEM = formats.SYSTEM["function"]
#: (prompt variant, temperature) of sample k, cycled. Greedy answers first: on a small
#: model the greedy answer is the single likeliest fix; higher temperatures add variety.
#: The third sample rewrites the whole (small) file: the bug may sit in a function that
#: localization ranked lower, or in two functions at once.
SCHEDULE: tuple[tuple[str, float], ...] = (
    ("plain", 0.0), ("tests", 0.0), ("file", 0.0), ("marked", 0.7), ("tests", 0.7),
    ("file", 0.8), ("plain", 1.0), ("marked", 1.0),
)
#: Longest file (lines) the "file" variant shows and asks for whole.
FILE_MAX_LINES = 150
#: Added to every prompt after a sample came back unchanged (ChatRepair's lesson: tell the
#: model its answer still fails). A small model otherwise echoes the code again and again.
UNCHANGED_NOTE = ("The code above is wrong: it fails these tests, so returning {names} unchanged is not an "
                  "answer. Find the line that causes the failure and change it.")
#: Lowest temperature once two samples came back unchanged.
UNCHANGED_MIN_T = 0.7
MAX_CONTEXT_LINES = 12
MAX_TEST_LINES = 60


@dataclass(frozen=True)
class Sample:
    """A model-written candidate patch of ``file`` (its whole new text).

    ``k``: the sample's index; ``temperature``, ``variant``: how it was drawn;
    ``functions``: the qualified names it rewrote.
    """

    file: str
    new_text: str
    k: int
    temperature: float
    variant: str
    functions: tuple[str, ...]
    probe = True  # a model sample may be a near miss: judged test by test

    def apply(self, text: str) -> str:
        return self.new_text

    @property
    def label(self) -> str:
        return f"{self.file}: {', '.join(self.functions)} rewritten by model sample {self.k}"

    @property
    def provenance(self) -> dict:
        return {"source": "sampling", "sample": self.k, "temperature": self.temperature, "variant": self.variant,
                "functions": list(self.functions)}


def targets(scores: dict[tuple[str, int], float], read: Callable[[str], str], *,
            max_lines: int = 80, limit: int = 2) -> list[tuple[FunctionSpan, float]]:
    """The functions to rewrite, most suspicious first: each scored line's function
    (:func:`codur.patch.splice.function_at`), scored by its best line, ties broken by
    the sum of its lines' scores (where suspicion concentrates: spectrum-based scores
    tie often, e.g. a constructor run by every test). A second function
    is kept only in the same file as the first and when it scores at least 0.8 of it
    (both look equally guilty). ``read(rel)`` returns a file's text."""
    best: dict[tuple[str, str], tuple[FunctionSpan, float]] = {}
    mass: dict[tuple[str, str], float] = {}
    cache: dict[str, str | None] = {}
    for (rel, line), score in sorted(scores.items(), key=lambda kv: -kv[1])[:40]:
        if rel not in cache:
            try:
                cache[rel] = read(rel)
            except (OSError, UnicodeDecodeError):
                cache[rel] = None
        text = cache[rel]
        if text is None:
            continue
        try:
            span = function_at(text, line, rel, max_lines)
        except SyntaxError:
            cache[rel] = None
            continue
        if span is None:
            continue
        key = (rel, span.qualname)
        best.setdefault(key, (span, score))
        mass[key] = mass.get(key, 0.0) + score
    ranked = [best[k] for k in sorted(best, key=lambda k: (-round(best[k][1], 3), -mass[k]))]
    if not ranked:
        return []
    top = ranked[0]
    rest = [fs for fs in ranked[1:] if fs[0].file == top[0].file and fs[1] >= 0.8 * top[1]
            and not (fs[0].start <= top[0].start and top[0].end <= fs[0].end)
            and not (top[0].start <= fs[0].start and fs[0].end <= top[0].end)]
    return [top, *rest][:limit]


def module_context(text: str, spans: list[FunctionSpan]) -> str:
    """Top-level imports and constant assignments of the module (names the function may
    use), at most :data:`MAX_CONTEXT_LINES` lines."""
    tree = ast.parse(text)
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign):
            if stmt.end_lineno - stmt.lineno > 2:
                continue
            out += lines[stmt.lineno - 1: stmt.end_lineno]
    return "\n".join(out[:MAX_CONTEXT_LINES])


def test_source(read: Callable[[str], str], failing: list[str]) -> str:
    """Source of the failing test functions (``path::name`` or ``path::Class::name``),
    at most :data:`MAX_TEST_LINES` lines."""
    out: list[str] = []
    for nodeid in failing:
        parts = nodeid.split("::")
        if len(parts) < 2:
            continue
        name = parts[-1].split("[")[0]
        try:
            text = read(parts[0])
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue
        lines = text.replace("\r\n", "\n").split("\n")
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                out += lines[start - 1: node.end_lineno] + [""]
                break
        if len(out) >= MAX_TEST_LINES:
            break
    return "\n".join(out[:MAX_TEST_LINES]).strip()


@dataclass
class PromptParts:
    """What every sample's prompt is built from (the common prefix first)."""

    spans: list[FunctionSpan]
    text: str  # the file holding the spans
    failures: str  # the failing tests' report (ids and short tracebacks)
    tests: str = ""  # source of the failing tests
    suspicious: list[int] = field(default_factory=list)  # lines, most suspicious first
    fmt: str = "function"  # the edit format asked for (codur.patch.formats.FORMATS)
    task: str = ""  # the user's request: often the only description of the symptom
    whole: list[FunctionSpan] = field(default_factory=list)  # the file's functions, for the "file" variant

    def __post_init__(self) -> None:
        if not self.whole and self.fmt == "function" and self.text.count("\n") < FILE_MAX_LINES:
            self.whole = whole_file_spans(self.text, self.spans[0].file)

    def variant_spans(self, variant: str) -> list[FunctionSpan]:
        """The functions a reply to ``variant`` may rewrite."""
        return self.whole if variant == "file" else self.spans

    def messages(self, variant: str, retry: bool = False) -> list[BaseMessage]:
        """System and user messages of one sample; ``variant`` is plain, tests or marked;
        ``retry`` adds :data:`UNCHANGED_NOTE` (an earlier sample returned the code unchanged)."""
        names = " and ".join(f"`{s.name}`" for s in self.spans)
        if variant == "file":
            return self._file_messages(retry)
        code = "\n\n".join(source_of(self.text, s) for s in self.spans)
        context = module_context(self.text, self.spans)
        head = f"{self.spans[0].file}:\n```python\n" + (f"{context}\n...\n\n" if context else "") + code + "\n```"
        parts = ([f"Task: {self.task.strip()}"] if self.task.strip() else []) + [head]
        parts.append("Failing tests:\n" + self.failures.strip())
        if variant == "tests" and self.tests:
            parts.append("The failing tests:\n```python\n" + self.tests + "\n```")
        if variant == "marked" and self.suspicious:
            lines = self.text.replace("\r\n", "\n").split("\n")
            marked = [f"line {n}: `{lines[n - 1].strip()}`" for n in self.suspicious[:4] if 0 < n <= len(lines)]
            parts.append("The most suspicious lines (fault localization):\n" + "\n".join(marked))
        if retry:
            parts.append(UNCHANGED_NOTE.format(names=names))
        parts.append(formats.ASK[self.fmt].format(names=names, file=self.spans[0].file))
        return [SystemMessage(formats.SYSTEM[self.fmt]), HumanMessage("\n\n".join(parts))]

    def _file_messages(self, retry: bool) -> list[BaseMessage]:
        file = self.spans[0].file
        parts = ([f"Task: {self.task.strip()}"] if self.task.strip() else [])
        parts.append(f"{file}:\n```python\n{self.text.replace(chr(13), '').rstrip()}\n```")
        parts.append("Failing tests:\n" + self.failures.strip())
        if self.tests:
            parts.append("The failing tests:\n```python\n" + self.tests + "\n```")
        if retry:
            parts.append(UNCHANGED_NOTE.format(names=f"`{file}`"))
        parts.append(FILE_ASK.format(file=file))
        return [SystemMessage(FILE_SYSTEM), HumanMessage("\n\n".join(parts))]


FILE_SYSTEM = ("You fix bugs in Python modules. Reply with the corrected module in one ```python block: the whole "
               "file, every function kept, no explanation.")
FILE_ASK = "Write the corrected {file} in full."


def whole_file_spans(text: str, file: str) -> list[FunctionSpan]:
    """The functions a whole-file reply is spliced back by: every function and method
    that is not nested in another function and whose name is unique in the file (a
    reply's ``def total`` cannot be matched to one of two methods named ``total``)."""
    try:
        spans = [s for s in functions(text, file) if ".<locals>." not in s.qualname]
    except SyntaxError:
        return []
    counts: dict[str, int] = {}
    for s in spans:
        counts[s.name] = counts.get(s.name, 0) + 1
    return [s for s in spans if counts[s.name] == 1]


def changed_functions(old: str, new: str, file: str) -> tuple[str, ...]:
    """Qualified names of the functions whose code differs (by AST) between two texts."""
    try:
        before = {s.qualname: normalized(source_of(old, s)) for s in functions(old, file)}
        after = {s.qualname: normalized(source_of(new, s)) for s in functions(new, file)}
    except SyntaxError:
        return ()
    return tuple(q for q in after if before.get(q) != after[q] and ".<locals>." not in q)


@dataclass(frozen=True)
class Drawn:
    """One model call of the sampler. ``outcome``: "candidate", "duplicate", "unchanged",
    "no_code" (no usable function in the reply), "stopped" (cut short) or "error"; ``sample`` is set for a
    candidate. ``tokens``: prompt + completion (estimated when the stream was cut)."""

    k: int
    variant: str
    temperature: float
    outcome: str
    seconds: float
    tokens: int
    reply: str = ""
    sample: Sample | None = None
    error: str = ""


def _call(model: BaseChatModel, messages: list[BaseMessage], names: list[str], temperature: float, seed: int,
          stop: Callable[[], bool], fmt: str = "function") -> tuple[str, int]:
    """Stream one reply; stop reading once the function's block is closed (the prose a
    model adds after it costs time) or ``stop()`` says so. Returns (text, tokens)."""
    text, usage, chunks = "", None, 0
    stream = model.stream(messages, temperature=temperature, seed=seed)
    try:
        for chunk in stream:
            text += str(chunk.content)
            chunks += 1
            usage = getattr(chunk, "usage_metadata", None) or usage
            if formats.complete(fmt, text, names) or stop():
                break
    finally:
        close = getattr(stream, "close", None)
        if close:
            close()  # closes the HTTP stream: the server stops generating
    if usage:
        return text, int(usage.get("total_tokens", 0))
    prompt_chars = sum(len(str(m.content)) for m in messages)
    return text, prompt_chars // 4 + max(chunks, len(text) // 4)


def draw(models: list[BaseChatModel], parts: PromptParts, k_max: int, *,
         stop: Callable[[], bool] = lambda: False, schedule: tuple = SCHEDULE) -> Iterator[Drawn]:
    """Draw up to ``k_max`` samples, one model call each, yielding each as it arrives.

    ``models`` is the role's fallback chain: a model that raises hands over to the next
    (two errors in a row on the last one end the sampling). ``stop()`` is checked before
    each call and while a reply streams. Candidates equal (by AST) to the original or to
    an earlier sample are reported as "unchanged" / "duplicate", not yielded as samples.
    After an unchanged reply every later prompt says so (:data:`UNCHANGED_NOTE`); after
    two to function prompts (or two to whole-file prompts), no more of that kind is
    drawn below :data:`UNCHANGED_MIN_T`.
    """
    seen = {normalized(parts.text)}
    model_index, errors = 0, 0
    unchanged = {"function": 0, "file": 0}  # unchanged replies per kind of prompt
    for k in range(k_max):
        if stop() or model_index >= len(models):
            return
        variant, temperature = schedule[k % len(schedule)]
        if (variant == "tests" and not parts.tests or variant == "marked" and not parts.suspicious
                or variant == "file" and not parts.whole):
            variant = "plain"
        spans = parts.variant_spans(variant)
        names = [s.name for s in spans]
        family = "file" if variant == "file" else "function"
        if k >= len(schedule):
            temperature = max(temperature, 0.9)
        if unchanged[family] >= 2:  # greedy decoding keeps echoing the code: sample instead
            temperature = max(temperature, UNCHANGED_MIN_T)
        start = time.monotonic()
        try:
            messages = parts.messages(variant, retry=sum(unchanged.values()) > 0)
            reply, tokens = _call(models[model_index], messages, names, temperature, k, stop, parts.fmt)
        except Exception as exc:  # noqa: BLE001 - a failed call is reported, the next profile tries
            errors += 1
            if errors >= 2 or model_index + 1 < len(models):
                model_index, errors = model_index + 1, 0
            yield Drawn(k, variant, temperature, "error", time.monotonic() - start, 0,
                        error=f"{type(exc).__name__}: {exc}"[:300])
            continue
        errors = 0
        seconds = time.monotonic() - start
        if stop() and not formats.complete(parts.fmt, reply, names):  # cut short by stop()
            yield Drawn(k, variant, temperature, "stopped", seconds, tokens, reply)
            return
        applied = formats.apply_reply(parts.fmt, parts.text, spans, reply)
        if applied is None:
            yield Drawn(k, variant, temperature, "no_code", seconds, tokens, reply)
            continue
        new, done = applied
        key = normalized(new)
        if key in seen:
            outcome = "unchanged" if key == normalized(parts.text) else "duplicate"
            unchanged[family] += outcome == "unchanged"
            yield Drawn(k, variant, temperature, outcome, seconds, tokens, reply)
            continue
        seen.add(key)
        if variant == "file":
            done = changed_functions(parts.text, new, parts.spans[0].file) or tuple(done)
        sample = Sample(parts.spans[0].file, new, k, temperature, variant, tuple(done))
        yield Drawn(k, variant, temperature, "candidate", seconds, tokens, reply, sample)
