"""Model patch sampling: the suspicious function rewritten whole, K samples, deduped by AST.

A small model is far better at writing one function than at planning exact-match edits
over several turns, so the model sees the most suspicious function(s) (chosen by fault
localization) with the failing tests' tracebacks and writes the corrected function in
one fenced block; a long function is shown as a window around its suspicious lines and
only those lines are rewritten (:mod:`codur.patch.window`). Code a reply adds beside
the function (an import, a constant, a helper) is merged into the module
(:mod:`codur.patch.additions`). Samples vary the temperature, the seed and the prompt
(:mod:`codur.patch.prompt`: with and without the failing tests' source, with the
suspicious lines listed, the whole file, or a *pair*: two functions, maybe of two
files, rewritten in one reply); the tests, not the model, judge each one. The common
part of every prompt comes first, so the server's prompt cache is reused from one
sample to the next.

Conversational sampling: once the tests judged a sample, a later sample continues that
sample's prompt as a conversation (the model's earlier answer, then the failing test and
its exception, "this fix is wrong, write a different one"; after a near miss: "keep what
made those tests pass and fix the rest"), ChatRepair's failure-feedback loop. Feedback
samples alternate with the schedule's variants (:func:`draw`).

Method: sample-then-validate repair as in Agentless (Xia et al. 2024) and ChatRepair
(Xia & Zhang 2023); whole-function generation as in "Automated Program Repair in the
Era of Large Pre-trained Language Models" (Xia, Wei, Zhang, ICSE 2023).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from codur.core.pyast import BOM
from codur.patch import conversation, formats
from codur.patch.additions import merge
from codur.patch.conversation import Judged
from codur.patch.prompt import PromptParts
from codur.patch.splice import FunctionSpan, code_blocks, functions, normalized, source_of, splice_files
from codur.patch.window import NotApplied
from codur.repair.evaluate import CandidateVerdict

#: (prompt variant, temperature) of sample k, cycled. Greedy answers first: on a small
#: model the greedy answer is the single likeliest fix; higher temperatures add variety.
#: The third sample rewrites the whole (small) file: the bug may sit in a function that
#: localization ranked lower, or in two functions at once. The ``pair`` variant takes a
#: sample's slot when due (see :func:`draw`).
SCHEDULE: tuple[tuple[str, float], ...] = (
    ("plain", 0.0), ("tests", 0.0), ("file", 0.0), ("missing", 0.0), ("marked", 0.7), ("tests", 0.7),
    ("file", 0.8), ("missing", 0.8), ("plain", 1.0), ("marked", 1.0),
)
#: Whether a failed or unchanged sample gets a feedback sample too (from :data:`FEEDBACK_FROM` on,
#: every other slot). Off: only a near miss is answered (at once). On bench/agent (2026-11-26,
#: 40 tasks) no task was solved by a feedback sample, and answering failed samples took the
#: slots of the whole-file samples that solved a_13 and b_09 (sample 5, ``file`` at T=0.8).
FEEDBACK_ANY = False
#: Feedback samples start at this sample index (the earlier answers a feedback sample continues,
#: at most: :data:`codur.patch.conversation.FEEDBACK_TURNS`).
FEEDBACK_FROM = 2
#: Seconds a feedback slot waits for the verdict of a candidate still being tested (a test
#: run takes 0.2-2 s, a sample 10-50 s on 2 cores: waiting is cheaper than a blind sample).
FEEDBACK_WAIT_S = 5.0
#: Variants whose prompt a feedback sample continues (one function rewritten, by name).
FEEDBACK_BASES = ("plain", "tests", "marked", "missing", "feedback")
#: Lowest temperature once two samples came back unchanged.
UNCHANGED_MIN_T = 0.7
#: Pair samples drawn at most, and samples between two of them.
MAX_PAIRS, PAIR_EVERY = 2, 3


@dataclass(frozen=True)
class Sample:
    """A model-written candidate patch of ``file`` (its whole new text) and, for a pair
    sample across files, of the files in ``extra`` ((file, new text) pairs).

    ``k``: the sample's index; ``temperature``, ``variant``: how it was drawn;
    ``functions``: the qualified names it rewrote.
    """

    file: str
    new_text: str
    k: int
    temperature: float
    variant: str
    functions: tuple[str, ...]
    extra: tuple[tuple[str, str], ...] = ()
    probe = True  # a model sample may be a near miss: judged test by test

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file, *(f for f, _ in self.extra))

    @property
    def new_texts(self) -> dict[str, str]:
        """file -> new text of every file the sample changes."""
        return {self.file: self.new_text, **dict(self.extra)}

    def apply(self, text: str) -> str:
        return self.new_text

    def apply_files(self, originals: dict[str, str]) -> dict[str, str]:
        return self.new_texts

    @property
    def label(self) -> str:
        return f"{', '.join(self.files)}: {', '.join(self.functions)} rewritten by model sample {self.k}"

    @property
    def provenance(self) -> dict:
        return {"source": "sampling", "sample": self.k, "temperature": self.temperature, "variant": self.variant,
                "functions": list(self.functions), **({"files": list(self.files)} if self.extra else {})}


def judged_mutants(near: list, parts: PromptParts, original: Callable[[str], str], failing: int) -> list[Judged]:
    """The near-miss mutants of the sampled functions (``near``: (mutant, evaluation) in the
    order they were judged) as judged answers a feedback sample continues from, the two that
    fixed most: an added statement is often half a fix (``return digits`` where
    ``return "+" + digits`` is due), and the tests' verdict on it says what is left. Each gets
    ``k = -1 - its index in near`` (a sample's k is never negative)."""
    sampled = {s.qualname for s in parts.spans}
    out = []
    for i, (mutant, evaluation) in sorted(enumerate(near), key=lambda ie: -ie[1][1].fixed)[:2]:
        try:
            text = mutant.apply(original(mutant.file))
            inside = [f.qualname for f in functions(text, mutant.file)
                      if f.qualname in sampled and f.start <= mutant.line <= f.end]
        except (SyntaxError, ValueError):
            continue
        if inside:
            sample = Sample(mutant.file, text, -1 - i, 0.0, "mutant", (inside[0],))
            out.append(Judged(sample, evaluation.status, evaluation.fixed, failing, evaluation.failures,
                              evaluation.broke))
    return out


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
    "no_code" (the reply does not apply: no usable code, a SEARCH that matches nothing, a
    result that does not compile; ``error`` says which), "stopped" (cut short) or "error"
    (the call failed, ``error`` says how); ``sample`` is set for a candidate. ``tokens``:
    prompt + completion (estimated when the stream was cut)."""

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
          stop: Callable[[], bool], fmt: str = "function", every: bool = False) -> tuple[str, int]:
    """Stream one reply; stop reading once the function's block is closed (with ``every``:
    once every function's block is; the prose a model adds after it costs time) or
    ``stop()`` says so. Returns (text, tokens)."""
    text, usage, chunks = "", None, 0
    stream = model.stream(messages, temperature=temperature, seed=seed)
    try:
        for chunk in stream:
            text += str(chunk.content)
            chunks += 1
            usage = getattr(chunk, "usage_metadata", None) or usage
            if formats.complete(fmt, text, names, every) or stop():
                break
    finally:
        close = getattr(stream, "close", None)
        if close:
            close()  # closes the HTTP stream: the server stops generating
    if usage:
        return text, int(usage.get("total_tokens", 0))
    prompt_chars = sum(len(str(m.content)) for m in messages)
    return text, prompt_chars // 4 + max(chunks, len(text) // 4)


def _choose(parts: PromptParts, k: int, slot: int, schedule: tuple, pairs: list[int],
            want_pair: bool) -> tuple[str, float]:
    """Sample ``k``'s (variant, temperature): the schedule's entry ``slot``, a variant with
    nothing to add falling back to plain (``file`` of a window: ``marked``); or ``pair`` when
    due (``pairs``: the earlier pair samples' k)."""
    variant, temperature = schedule[slot % len(schedule)]
    due = (parts.pair and (parts.pair_first or want_pair) and k > 0 and len(pairs) < MAX_PAIRS
           and (not pairs or k - pairs[-1] >= PAIR_EVERY))
    if due:
        return "pair", (0.0 if not pairs else max(temperature, UNCHANGED_MIN_T))
    if variant == "file" and parts.window is not None and parts.suspicious:
        variant = "marked"  # a window's sample: not plain again (at T = 0 it would repeat sample 0)
    if (variant == "tests" and not parts.tests or variant == "marked" and not parts.suspicious
            or variant == "file" and not parts.whole or variant == "missing" and parts.fmt != "function"):
        variant = "plain"
    return variant, temperature


def _new_texts(parts: PromptParts, variant: str, spans: list[FunctionSpan], reply: str) \
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
        return {file: (new := _whole_file(parts, reply))}, changed_functions(parts.text, new, file)
    new, done = formats.apply(parts.answer_format, parts.text, spans, reply, parts.window)
    return {file: new}, tuple(done)


def _whole_file(parts: PromptParts, reply: str) -> str:
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


def _sample(parts: PromptParts, news: dict[str, str], k: int, temperature: float, variant: str,
            done: tuple[str, ...]) -> Sample:
    """A :class:`Sample` of the files ``news`` changes (by AST), the first file's first."""
    changed = [f for f in parts.texts if f in news and normalized(news[f]) != normalized(parts.texts[f])]
    first, *rest = changed or [parts.spans[0].file]
    return Sample(first, news.get(first, parts.text), k, temperature, variant, done,
                  tuple((f, news[f]) for f in rest))


def draw(models: list[BaseChatModel], parts: PromptParts, k_max: int, *,
         stop: Callable[[], bool] = lambda: False, schedule: tuple = SCHEDULE,
         want_pair: Callable[[], bool] = lambda: False,
         judged: Callable[[], list[Judged]] = lambda: []) -> Iterator[Drawn]:
    """Draw up to ``k_max`` samples, one model call each, yielding each as it arrives.

    ``models`` is the role's fallback chain: a model that raises hands over to the next
    (two errors in a row on the last one end the sampling). ``stop()`` is checked before
    each call and while a reply streams. Candidates equal (by AST) to the original or to
    an earlier sample are reported as "unchanged" / "duplicate", not yielded as samples.
    After an unchanged reply every later prompt says so (:data:`codur.patch.prompt.UNCHANGED_NOTE`); after
    two to function prompts (or two to whole-file prompts), no more of that kind is
    drawn below :data:`UNCHANGED_MIN_T`. A ``pair`` sample (``parts.pair``) takes a
    slot from the second sample on when ``parts.pair_first``, or once ``want_pair()``
    (a sample was a near miss): the first greedy, at most :data:`MAX_PAIRS`, every
    :data:`PAIR_EVERY` samples.

    ``judged()`` returns what the tests said so far about this sampler's candidates
    (:class:`codur.patch.conversation.Judged`); the first function reply that returns the code unchanged counts as
    judged too, with the original's verdict (``parts.verdict``). A near miss not answered yet
    gets the next sample as a ``feedback`` one (a mutant's near miss is known before sample 0);
    with :data:`FEEDBACK_ANY`, from sample :data:`FEEDBACK_FROM` on every other sample is one
    while any judged function-prompt sample is not answered yet: the conversation
    (:meth:`codur.patch.prompt.PromptParts.conversation`) of up to
    :data:`codur.patch.conversation.FEEDBACK_TURNS` judged samples, the near miss that fixed most tests (else
    the latest) last; the schedule's next entry waits for the sample after it. Such a slot
    waits up to :data:`FEEDBACK_WAIT_S` for the verdict of a candidate still being tested.
    """
    files = list(parts.texts)

    def key_of(news: dict[str, str]) -> tuple[str, ...]:
        return tuple(normalized(news.get(f, parts.texts[f])) for f in files)

    original = key_of({})
    seen = {original}
    model_index, errors = 0, 0
    unchanged = {"function": 0, "file": 0, "pair": 0}  # unchanged replies per kind of prompt
    pairs: list[int] = []
    answers: dict[int, str] = {}  # k -> the code of a function-prompt candidate
    used: set[int] = set()  # samples a feedback sample answered
    echoed: list[Judged] = []  # the first reply that returned the code unchanged, judged as the original
    slot, previous = 0, ""
    for k in range(k_max):
        if stop() or model_index >= len(models):
            return
        variant, temperature = _choose(parts, k, slot, schedule, pairs, want_pair())
        target = None
        seen_so_far = [*echoed, *judged()]
        # a near miss not answered yet is answered at once, whatever the slot (a mutant's,
        # judged before the first sample, at k = 0): it says which change was half right
        early = previous != "feedback" and any(j.status == CandidateVerdict.NEAR_MISS and j.sample.k not in used
                                               for j in seen_so_far)
        if early or (FEEDBACK_ANY and variant != "pair" and k >= FEEDBACK_FROM and previous != "feedback"):
            until = time.monotonic() + (0 if early else FEEDBACK_WAIT_S)
            while (time.monotonic() < until and not stop()
                   and set(answers) - used - {j.sample.k for j in [*echoed, *judged()]}):
                time.sleep(0.05)  # a candidate is still being tested: its verdict is near
            seen_so_far = [*echoed, *judged()]
            for j in seen_so_far:
                if j.sample.k < 0 and j.sample.k not in answers:  # a mutant's near miss, as an earlier answer
                    answers[j.sample.k] = conversation.answer(j.sample, "")
            target = conversation.target(seen_so_far, answers, used)
        if target is not None:
            variant, temperature = "feedback", (0.0 if not used else 0.7)
            used.add(target.sample.k)
            turns = conversation.turns(target, seen_so_far, answers)
        elif variant != "pair":
            slot += 1
        previous = variant
        pairs += [k] if variant == "pair" else []
        spans = parts.variant_spans(variant)
        names = [s.name for s in spans]
        fmt = "function" if variant in ("file", "pair") else parts.answer_format
        family = variant if variant in ("file", "pair") else "function"
        if slot > len(schedule):
            temperature = max(temperature, 0.9)
        if unchanged[family] >= 2:  # greedy decoding keeps echoing the code: sample instead
            temperature = max(temperature, UNCHANGED_MIN_T)
        start = time.monotonic()
        try:
            if variant == "feedback":
                messages = parts.conversation("tests" if parts.tests else "plain", turns,
                                              near=target.status == CandidateVerdict.NEAR_MISS or target.fixed > 0)
            else:
                messages = parts.messages(variant, retry=sum(unchanged.values()) > 0)
            reply, tokens = _call(models[model_index], messages, names, temperature, k, stop, fmt,
                                  every=variant == "pair")
        except Exception as exc:  # noqa: BLE001 - a failed call is reported, the next profile tries
            errors += 1
            if errors >= 2 or model_index + 1 < len(models):
                model_index, errors = model_index + 1, 0
            yield Drawn(k, variant, temperature, "error", time.monotonic() - start, 0,
                        error=f"{type(exc).__name__}: {exc}"[:300])
            continue
        errors = 0
        seconds = time.monotonic() - start
        if stop() and not formats.complete(fmt, reply, names, variant == "pair"):  # cut short by stop()
            yield Drawn(k, variant, temperature, "stopped", seconds, tokens, reply)
            return
        try:
            news, done = _new_texts(parts, variant, spans, reply)
        except NotApplied as exc:
            yield Drawn(k, variant, temperature, "no_code", seconds, tokens, reply, error=str(exc)[:300])
            continue
        except (SyntaxError, ValueError, IndexError, RecursionError) as exc:  # a reply no rule foresaw
            yield Drawn(k, variant, temperature, "no_code", seconds, tokens, reply,
                        error=f"could not apply the reply: {type(exc).__name__}: {exc}"[:300])
            continue
        key = key_of(news)
        if key in seen:
            outcome = "unchanged" if key == original else "duplicate"
            unchanged[family] += outcome == "unchanged"
            if outcome == "unchanged" and variant in FEEDBACK_BASES and not echoed:
                # the code as it is fails: its verdict is the baseline's, answered like a sample's
                echo = Sample(parts.spans[0].file, parts.text, k, temperature, variant, tuple(names))
                echoed.append(Judged(echo, CandidateVerdict.FAILED, 0, len(parts.verdict), parts.verdict))
                answers[k] = conversation.answer(echo, reply, edit=parts.window is not None)
            yield Drawn(k, variant, temperature, outcome, seconds, tokens, reply)
            continue
        seen.add(key)
        sample = _sample(parts, news, k, temperature, variant, done)
        if variant in FEEDBACK_BASES and not sample.extra:
            answers[k] = conversation.answer(sample, reply, edit=parts.window is not None)
        yield Drawn(k, variant, temperature, "candidate", seconds, tokens, reply, sample)
