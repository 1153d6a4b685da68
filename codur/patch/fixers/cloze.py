"""The cloze fixer: the most suspicious lines masked by fix templates (:mod:`codur.patch.masks`)
and the holes filled by the model, fill-in-the-middle (the code before the hole, the code after
it, the model writes the middle; a long module through a window, :func:`codur.patch.holes.around`),
several fills per mask, each fill an ordinary candidate.

A fill is tens of tokens where a whole-function sample is over a thousand, and a fill that
gives the code back is dropped before the judge (a 1.5B model asked to rewrite a function
mostly copies it back). The prompt is ``FIM_PREFIX + header + code before the hole +
FIM_SUFFIX + code after the hole + FIM_MIDDLE``, the header (the failing tests' messages, as
comments) and the file's start the same for every mask, so the server's prompt cache holds the
text up to the hole. Tier 1 masks the best :data:`LINES` [1] lines, ``more(view, tier)`` the
next ones and more fills of the earlier masks (the pipeline asks it after the mutation
tiers, or before them with ``model_tiers_first``). A model with fill-in-the-middle tokens and
a raw completion call is asked in that form; any other model gets a chat prompt with a marked
hole (:mod:`codur.patch.holes`).

Method: AlphaRepair (Xia & Zhang, ESEC/FSE 2022), Gamma (Zhang et al., ASE 2023), infilling
with the code after the bug (Xia, Wei & Zhang, ICSE 2023).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass

from codur.core.events.patch import PatchFill, PatchPhase
from codur.patch.fixer import Asked, FixerView, timed
from codur.patch.holes import asker
from codur.patch.masks import Mask, branch_lines, masks
from codur.patch.splice import normalized

#: Ranked lines masked up to tier t: the best LINES[1] in tier 1, up to LINES[t] in tier t.
LINES = (0, 3, 8, 16, 32)
#: (temperature, seed) of each fill of a mask in its first tier, every mask's first fill before any
#: second one (the masks of three lines at 15 s a fill on a loaded machine: the greedy fills of
#: the first line's masks alone took the whole 100 s of a shipping-fee run); a later tier adds
#: one fill at T=1.
FILLS = ((0.0, 0), (0.8, 1))


@dataclass(frozen=True)
class Fill:
    """A cloze candidate: ``file``'s ``new_text`` with ``mask`` filled by ``fill``; ``k``: the fill's index."""

    file: str
    new_text: str
    mask: Mask
    fill: str
    k: int
    temperature: float
    probe = True  # a fill may be a near miss: judged test by test

    def apply(self, text: str) -> str:
        return self.new_text

    @property
    def label(self) -> str:
        return f"{self.file}:{self.mask.line}: {self.mask.template} filled by model fill {self.k}: {self.fill.strip()}"

    @property
    def provenance(self) -> dict:
        return {"source": "cloze", "fill": self.k, "template": self.mask.template, "line": self.mask.line,
                "temperature": self.temperature, "text": self.fill}


@dataclass(frozen=True)
class Filled(Asked):
    """One fill of ``mask`` (:class:`codur.patch.fixer.Asked`; ``reply``: the fill). ``outcome``:
    "candidate" (``sample``: its :class:`Fill`), "duplicate" (an earlier fill's text),
    "unchanged" (the masked code again), "no_parse" (the filled file does not parse), or
    "error"."""

    mask: Mask = None  # type: ignore[assignment] - always given

    def event(self) -> PatchFill:
        return PatchFill(k=self.k, template=self.mask.template, file=self.mask.file, line=self.mask.line,
                         temperature=self.temperature, outcome=self.outcome, seconds=round(self.seconds, 2),
                         tokens=self.tokens, fill=self.reply[:200], **self.said())


class ClozeFixer:
    """Fills of fix-template masks over the ranked lines of the ranked functions."""

    name = "cloze"
    calls_model = True

    def candidates(self, view: FixerView) -> Iterator[Filled] | list:
        """Tier 1's fills (each :class:`Filled`, with its candidate when it gave one); none when no
        model starts or no line has a mask (a
        ``patch.phase`` event with ``skipped`` says why)."""
        return self._tier(view, 1)

    def more(self, view: FixerView, tier: int) -> Iterator[Filled] | list:
        """Tier ``tier`` (2, 3, ...): the masks of ranked lines LINES[tier-1]..LINES[tier], then one
        more fill (T = 1) of every earlier mask ([]: nothing left)."""
        return self._tier(view, tier)

    def _tier(self, view: FixerView, tier: int) -> Iterator[Filled] | list:
        if tier >= len(LINES):
            return []
        try:
            models = view.models() if view.models is not None else []
        except Exception as exc:  # noqa: BLE001 - no model: the other fixers still run
            view.emit(PatchPhase(phase="cloze", skipped=f"{type(exc).__name__}: {exc}"[:300]))
            return []
        ask = asker(models)
        if ask is None:
            view.emit(PatchPhase(phase="cloze", skipped="no model"))
            return []
        lines = ranked_lines(view)
        new = _masks(view, lines[LINES[tier - 1]:LINES[tier]])
        draws = [(m, t, s) for t, s in FILLS for m in new]  # every mask's greedy fill first
        if tier > 1:
            draws += [(m, 1.0, tier) for m in _masks(view, lines[:LINES[tier - 1]])]
        if not draws:
            if tier == 1:
                view.emit(PatchPhase(phase="cloze", skipped="no mask on the suspicious lines"))
            return []
        view.emit(PatchPhase(phase="cloze", candidates=len(draws), form=ask.form))
        seen = {normalized(j.candidate.new_text) for j in view.verdicts() if isinstance(j.candidate, Fill)}
        return _draw(ask, view, draws, seen, first_k=(tier - 1) * 1000)


def ranked_lines(view: FixerView) -> list[tuple[str, int]]:
    """The localized lines inside the ranked functions, by suspiciousness, a tie broken by the
    lines' kind (:func:`value_first`), then by function rank and line."""
    loc, out = view.localization, []
    first = value_first(view)
    for rank, (span, _) in enumerate(view.ranked):
        out += [(-round(loc.scores[(span.file, ln)], 9), first(span.file, ln), rank, span.file, ln)
                for ln in range(span.start, span.end + 1) if loc.scores.get((span.file, ln), 0) > 0]
    return list(dict.fromkeys((f, ln) for *_, f, ln in sorted(out)))


def value_first(view: FixerView):
    """``(file, line) -> 0 or 1``: 0 for the lines to mask first among equally suspicious ones.

    Lines tie when the same tests run them, so a branch line among them (:func:`branch_lines`:
    an ``if``/``while``/``for`` header, an ``assert``, a ``raise``) chose the same path in the
    failing tests as in the passing ones; what differs between them is a value, computed by a
    value line (an assignment, a return, a call), so value lines come first. When the failing
    tests expected an exception they did not see (``Localization.expected_raises``), the path
    is what is wrong: branch lines come first.
    """
    branches: dict[str, set[int]] = {}
    flip = bool(view.localization.expected_raises)

    def kind(file: str, line: int) -> int:
        if file not in branches:
            try:
                branches[file] = branch_lines(view.original(file))
            except (OSError, ValueError, SyntaxError):
                branches[file] = set()
        return int((line in branches[file]) != flip)
    return kind


def _masks(view: FixerView, lines: list[tuple[str, int]]) -> list[Mask]:
    out: list[Mask] = []
    for file in dict.fromkeys(f for f, _ in lines):
        try:
            out += masks(view.original(file), file, [ln for f, ln in lines if f == file])
        except (OSError, ValueError, SyntaxError):
            continue
    return sorted(out, key=lambda m: lines.index((m.file, m.line)))


def header(view: FixerView) -> str:
    """The comment every prompt starts with: the failing tests and their messages (3 at most)."""
    failed = [t for t in view.localization.tests if t.outcome == "failed"][:3]
    said = [f"# {t.nodeid}: {' '.join(str(t.message).split())}"[:200] for t in failed]
    return "\n".join(["# The tests that fail:", *said]) + "\n" if said else ""


def _draw(ask, view: FixerView, draws: list[tuple[Mask, float, int]], seen: set[str],
          first_k: int = 0) -> Iterator[Filled]:
    """One model call per (mask, temperature, seed), in order, until ``view.stopped()`` or two
    calls in a row failed; the fills are numbered from ``first_k``. A mask whose fill gave the
    masked code back is not filled again here (its likeliest fill is the code: the time goes to
    the next masks). ``seen``: the normalized texts judged already (updated)."""
    head, errors, echoed = header(view), 0, set()
    for k, (mask, temperature, seed) in enumerate(draws, start=first_k):
        if view.stopped():
            return
        if mask in echoed:
            continue
        text = view.original(mask.file)
        reply, tokens, seconds, error = timed(functools.partial(ask, head, mask, text, temperature, seed))
        if error:  # a failed call is reported; two in a row end the tier
            errors += 1
            yield Filled(k, temperature, "error", seconds, 0, error=error, mask=mask)
            if errors >= 2:
                return
            continue
        errors = 0
        filled = judge(mask, text, reply, k, temperature, seconds, tokens, seen)
        if filled.outcome == "unchanged":
            echoed.add(mask)
        yield filled


def judge(mask: Mask, text: str, reply: str, k: int, temperature: float, seconds: float, tokens: int,
          seen: set[str]) -> Filled:
    """The :class:`Filled` of ``reply`` for ``mask`` of ``text``: its candidate, or why none
    (``seen``: the normalized texts drawn so far; updated)."""
    fill = reply.split("\n")[0].strip()  # the prefix ends with the line's indentation
    if not fill or fill == mask.original.strip():
        return Filled(k, temperature, "unchanged", seconds, tokens, fill, mask=mask)
    new_text = _parsed(mask, text, fill) or _parsed(mask, text, fill := _overlap_cut(fill, mask.suffix(text)))
    if new_text is None:
        return Filled(k, temperature, "no_parse", seconds, tokens, fill, mask=mask)
    key = normalized(new_text)
    if key == normalized(text):  # the same code, a comment added
        return Filled(k, temperature, "unchanged", seconds, tokens, fill, mask=mask)
    if key in seen:
        return Filled(k, temperature, "duplicate", seconds, tokens, fill, mask=mask)
    seen.add(key)
    return Filled(k, temperature, "candidate", seconds, tokens, fill, Fill(mask.file, new_text, mask, fill, k,
                                                                         temperature), mask=mask)


def _parsed(mask: Mask, text: str, fill: str) -> str | None:
    """``text`` with ``mask`` filled by ``fill``, or None when that does not parse."""
    new_text = mask.apply(text, fill)
    try:
        ast.parse(new_text)
    except (SyntaxError, ValueError):
        return None
    return new_text


def _overlap_cut(fill: str, suffix: str) -> str:
    """``fill`` without the longest end of it the suffix starts with (a model that wrote the
    ``:`` of ``if <hole>:`` or the ``)`` of a call again)."""
    line = suffix.split("\n")[0]
    cut = next((n for n in range(min(len(fill), len(line)), 0, -1) if line.startswith(fill[-n:])), 0)
    return fill[:len(fill) - cut] if cut else fill
