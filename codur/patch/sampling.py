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
part of every prompt comes first, so the server's prompt cache is reused sample to sample.

Conversational sampling: once the tests judged a sample, a later sample continues that
sample's prompt as a conversation (the model's earlier answer, then the failing test and
its exception, "this fix is wrong, write a different one"; after a near miss: "keep what
made those tests pass and fix the rest"), ChatRepair's failure-feedback loop. Feedback
samples alternate with the schedule's variants (:meth:`Sampler.draw`).

Method: sample-then-validate repair as in Agentless (Xia et al. 2024) and ChatRepair
(Xia & Zhang 2023); whole-function generation as in "Automated Program Repair in the
Era of Large Pre-trained Language Models" (Xia, Wei, Zhang, ICSE 2023).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from codur.core.events.patch import PatchSample
from codur.patch import conversation, formats
from codur.patch.conversation import Judged, Unjudged, Verdicts
from codur.patch.fixer import Asked, timed
from codur.patch.prompt import PromptParts
from codur.patch.reply import new_texts
from codur.patch.sample import Sample
from codur.patch.splice import FunctionSpan, normalized
from codur.patch.window import NotApplied
from codur.validate.evaluate import CandidateVerdict

#: (prompt variant, temperature) of sample k, cycled. Greedy answers first: on a small
#: model the greedy answer is the single likeliest fix; higher temperatures add variety.
#: The third sample rewrites the whole (small) file: the bug may sit in a function that
#: localization ranked lower, or in two functions at once. The ``pair`` variant takes a
#: sample's slot when due (see :meth:`Sampler.draw`).
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
class Drawn(Asked):
    """One model call of the sampler (:class:`codur.patch.fixer.Asked`), of the prompt kind
    ``variant``. ``outcome``: "candidate", "duplicate", "unchanged", "no_code" (the reply does
    not apply: no usable code, a SEARCH that matches nothing, a result that does not compile;
    ``error`` says which), "stopped" (cut short) or "error"; ``sample`` (a :class:`Sample`) is
    set for a candidate. ``tokens`` are estimated when the stream was cut."""

    variant: str = ""

    def event(self) -> PatchSample:
        """The ``patch.sample`` event of this call (the reply cut to 400 characters)."""
        return PatchSample(k=self.k, variant=self.variant, temperature=self.temperature, outcome=self.outcome,
                           seconds=round(self.seconds, 2), tokens=self.tokens, reply=self.reply[:400], **self.said())


def _call(model: BaseChatModel, messages: list[BaseMessage], slot: _Slot, stop: Callable[[], bool]) -> tuple[str, int]:
    """Stream one reply at the slot's temperature (seeded by its ``k``); stop reading once
    the reply is whole (:meth:`_Slot.complete`: the prose a model adds after it costs time)
    or ``stop()`` says so. Returns (text, tokens)."""
    text, usage, chunks = "", None, 0
    stream = model.stream(messages, temperature=slot.temperature, seed=slot.k)
    try:
        for chunk in stream:
            text += str(chunk.content)
            chunks += 1
            usage = getattr(chunk, "usage_metadata", None) or usage
            if slot.complete(text) or stop():
                break
    finally:
        close = getattr(stream, "close", None)
        if close:
            close()  # closes the HTTP stream: the server stops generating
    if usage:
        return text, int(usage.get("total_tokens", 0))
    prompt_chars = sum(len(str(m.content)) for m in messages)
    return text, prompt_chars // 4 + max(chunks, len(text) // 4)


def _choose(parts: PromptParts, k: int, scheduled: tuple[str, float], pairs: list[int],
            want_pair: bool) -> tuple[str, float]:
    """Sample ``k``'s (variant, temperature): the schedule's entry ``scheduled``, a variant with
    nothing to add falling back to plain (``file`` of a window: ``marked``); or ``pair`` when
    due (``pairs``: the earlier pair samples' k)."""
    variant, temperature = scheduled
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


@dataclass
class _Slot:
    """How sample ``k`` is drawn: its variant and temperature, the functions a reply may
    rewrite, and for a feedback sample the judged sample it answers with its turns."""

    k: int
    variant: str
    temperature: float
    spans: list[FunctionSpan]
    target: Judged | None = None
    turns: list[tuple[str, str]] | None = None
    fmt: str = "function"  # the answer format: the function's for a file or pair prompt

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.spans]

    def sample(self, parts: PromptParts, news: dict[str, str], done: tuple[str, ...]) -> Sample:
        """The :class:`Sample` this slot drew: the files ``news`` changes (by AST), the first file's
        first; ``done``: the functions the reply rewrote."""
        changed = [f for f in parts.texts if f in news and normalized(news[f]) != normalized(parts.texts[f])]
        first, *rest = changed or [parts.spans[0].file]
        return Sample(first, news.get(first, parts.text), self.k, self.temperature, self.variant, done,
                      tuple((f, news[f]) for f in rest))

    def complete(self, reply: str) -> bool:
        """``reply`` holds a whole answer (:func:`codur.patch.formats.complete`; a pair's: every function)."""
        return formats.complete(self.fmt, reply, self.names, self.variant == "pair")

    @property
    def family(self) -> str:
        """The kind of prompt, as unchanged replies are counted: file, pair or function."""
        return self.variant if self.variant in ("file", "pair") else "function"


class Sampler:
    """Draws samples of one prompt (:class:`codur.patch.prompt.PromptParts`) from a model
    fallback chain, one model call each (:meth:`draw`).

    Args:
        models: the role's fallback chain: a model that raises hands over to the next (two
            errors in a row on the last one end the sampling).
        parts: what every prompt is built from.
        schedule: (variant, temperature) of each slot, cycled (default :data:`SCHEDULE`).
        echoes: after this many replies that gave the code back to one kind of prompt (function,
            file or pair), that kind is not asked again (0: it is, hotter): the sampling fixer
            sets 1 when the cloze fixer's fills, a format that cannot echo, take the time left.
    """

    def __init__(self, models: list[BaseChatModel], parts: PromptParts, schedule: tuple = SCHEDULE,
                 echoes: int = 0) -> None:
        self.models, self.parts, self.schedule, self.echoes = models, parts, schedule, echoes
        self.files = list(parts.texts)
        self.original = self._key({})
        self.seen = {self.original}
        self.model_index = self.errors = 0
        self.unchanged = {"function": 0, "file": 0, "pair": 0}  # unchanged replies per kind of prompt
        self.pairs: list[int] = []  # the pair samples' k
        self.answers: dict[int, str] = {}  # k -> the code of a function-prompt candidate
        self.used: set[int] = set()  # samples a feedback sample answered
        self.echoed: list[Judged] = []  # the first reply that returned the code unchanged, judged as the original
        self.slot, self.previous = 0, ""

    def draw(self, k_max: int, verdicts: Verdicts | None = None) -> Iterator[Drawn]:
        """Draw up to ``k_max`` samples, yielding each model call (:class:`Drawn`) as it ends.

        ``verdicts.stopped()`` is checked before each call and while a reply streams.
        Candidates equal (by AST) to the original or to an earlier sample are reported as
        "unchanged" / "duplicate", not as samples. After an unchanged reply every later prompt
        says so (:data:`codur.patch.prompt.UNCHANGED_NOTE`); after two to function prompts (or
        two to whole-file prompts), no more of that kind is drawn below :data:`UNCHANGED_MIN_T`.
        A ``pair`` sample (``parts.pair``) takes a slot from the second sample on when
        ``parts.pair_first``, or once ``verdicts.near_miss()``: the first greedy, at most
        :data:`MAX_PAIRS`, every :data:`PAIR_EVERY` samples.

        ``verdicts.judged()`` says what the tests said so far (:class:`codur.patch.conversation.Judged`);
        the first function reply that returns the code unchanged counts as judged too, with the
        original's verdict (``parts.verdict``). A near miss not answered yet gets the next sample
        as a ``feedback`` one (a mutant's near miss is known before sample 0); with
        :data:`FEEDBACK_ANY`, from sample :data:`FEEDBACK_FROM` on every other sample is one
        while any judged function-prompt sample is not answered yet: the conversation
        (:meth:`codur.patch.prompt.PromptParts.conversation`) of up to
        :data:`codur.patch.conversation.FEEDBACK_TURNS` judged samples, the near miss that fixed
        most tests (else the latest) last; the schedule's next entry waits for the sample after
        it. Such a slot waits up to :data:`FEEDBACK_WAIT_S` for the verdict of a candidate still
        being tested.
        """
        verdicts = verdicts or Unjudged()
        for k in range(k_max):
            if verdicts.stopped() or self.model_index >= len(self.models):
                return
            slot = self._slot(k, verdicts)
            if self.echoes and slot.target is None and self.unchanged[slot.family] >= self.echoes:
                continue  # this kind of prompt gave the code back: not asked again
            reply, tokens, seconds, error = timed(functools.partial(self._ask, slot, verdicts))
            if error:  # a failed call is reported, the next profile tries
                self.errors += 1
                if self.errors >= 2 or self.model_index + 1 < len(self.models):
                    self.model_index, self.errors = self.model_index + 1, 0
                yield Drawn(k, slot.temperature, "error", seconds, 0, error=error, variant=slot.variant)
                continue
            self.errors = 0
            if verdicts.stopped() and not slot.complete(reply):
                yield Drawn(k, slot.temperature, "stopped", seconds, tokens, reply, variant=slot.variant)  # cut short
                return
            yield self._judge(slot, reply, seconds, tokens)

    def _ask(self, slot: _Slot, verdicts: Verdicts) -> tuple[str, int]:
        return _call(self.models[self.model_index], self._messages(slot), slot, verdicts.stopped)

    def _key(self, news: dict[str, str]) -> tuple[str, ...]:
        return tuple(normalized(news.get(f, self.parts.texts[f])) for f in self.files)

    def _slot(self, k: int, verdicts: Verdicts) -> _Slot:
        """Sample ``k``'s slot: the schedule's (or a pair), unless a feedback sample is due."""
        scheduled = self.schedule[self.slot % len(self.schedule)]
        variant, temperature = _choose(self.parts, k, scheduled, self.pairs, verdicts.near_miss())
        target, judged = self._feedback_target(k, variant, verdicts)
        turns = None
        if target is not None:
            variant, temperature = "feedback", (0.0 if not self.used else 0.7)
            self.used.add(target.sample.k)
            turns = conversation.turns(target, judged, self.answers)
        elif variant != "pair":
            self.slot += 1
        self.previous = variant
        self.pairs += [k] if variant == "pair" else []
        fmt = "function" if variant in ("file", "pair") else self.parts.answer_format
        slot = _Slot(k, variant, temperature, self.parts.variant_spans(variant), target, turns, fmt)
        if self.slot > len(self.schedule):
            slot.temperature = max(slot.temperature, 0.9)
        if self.unchanged[slot.family] >= 2:  # greedy decoding keeps echoing the code: sample instead
            slot.temperature = max(slot.temperature, UNCHANGED_MIN_T)
        return slot

    def _feedback_target(self, k: int, variant: str, verdicts: Verdicts) -> tuple[Judged | None, list[Judged]]:
        """The judged sample a feedback sample ``k`` answers (None: no feedback now), and what
        was judged so far."""
        judged = [*self.echoed, *verdicts.judged()]
        # a near miss not answered yet is answered at once, whatever the slot (a mutant's,
        # judged before the first sample, at k = 0): it says which change was half right
        early = self.previous != "feedback" and any(j.status == CandidateVerdict.NEAR_MISS
                                                    and j.sample.k not in self.used for j in judged)
        if not (early or (FEEDBACK_ANY and variant != "pair" and k >= FEEDBACK_FROM
                          and self.previous != "feedback")):
            return None, judged
        until = time.monotonic() + (0 if early else FEEDBACK_WAIT_S)
        while (time.monotonic() < until and not verdicts.stopped()
               and set(self.answers) - self.used - {j.sample.k for j in [*self.echoed, *verdicts.judged()]}):
            time.sleep(0.05)  # a candidate is still being tested: its verdict is near
        judged = [*self.echoed, *verdicts.judged()]
        for j in judged:
            if j.sample.k < 0 and j.sample.k not in self.answers:  # a mutant's near miss, as an earlier answer
                self.answers[j.sample.k] = conversation.answer(j.sample, "")
        return conversation.target(judged, self.answers, self.used), judged

    def _messages(self, slot: _Slot) -> list[BaseMessage]:
        if slot.target is not None:
            near = slot.target.status == CandidateVerdict.NEAR_MISS or slot.target.fixed > 0
            return self.parts.conversation("tests" if self.parts.tests else "plain", slot.turns or [], near=near)
        return self.parts.messages(slot.variant, retry=sum(self.unchanged.values()) > 0)

    def _judge(self, slot: _Slot, reply: str, seconds: float, tokens: int) -> Drawn:
        """The call's :class:`Drawn`: its candidate, or why the reply gives none."""
        parts, k, variant, temperature = self.parts, slot.k, slot.variant, slot.temperature
        try:
            news, done = new_texts(parts, variant, slot.spans, reply)
        except NotApplied as exc:
            return Drawn(k, temperature, "no_code", seconds, tokens, reply, error=str(exc)[:300], variant=variant)
        except (SyntaxError, ValueError, IndexError, RecursionError) as exc:  # a reply no rule foresaw
            return Drawn(k, temperature, "no_code", seconds, tokens, reply, variant=variant,
                         error=f"could not apply the reply: {type(exc).__name__}: {exc}"[:300])
        key = self._key(news)
        if key in self.seen:
            outcome = "unchanged" if key == self.original else "duplicate"
            self.unchanged[slot.family] += outcome == "unchanged"
            if outcome == "unchanged" and variant in FEEDBACK_BASES and not self.echoed:
                # the code as it is fails: its verdict is the baseline's, answered like a sample's
                echo = Sample(parts.spans[0].file, parts.text, k, temperature, variant, tuple(slot.names))
                self.echoed.append(Judged(echo, CandidateVerdict.FAILED, 0, len(parts.verdict), parts.verdict))
                self.answers[k] = conversation.answer(echo, reply, edit=parts.window is not None)
            return Drawn(k, temperature, outcome, seconds, tokens, reply, variant=variant)
        self.seen.add(key)
        sample = slot.sample(parts, news, done)
        if variant in FEEDBACK_BASES and not sample.extra:
            self.answers[k] = conversation.answer(sample, reply, edit=parts.window is not None)
        return Drawn(k, temperature, "candidate", seconds, tokens, reply, sample, variant=variant)


def draw(models: list[BaseChatModel], parts: PromptParts, k_max: int, verdicts: Verdicts | None = None,
         schedule: tuple = SCHEDULE) -> Iterator[Drawn]:
    """Up to ``k_max`` samples of ``parts`` from ``models`` (:meth:`Sampler.draw`)."""
    return Sampler(models, parts, schedule).draw(k_max, verdicts)
