"""The candidate-patch pipeline's events (codur/patch/; its validator's in codur/validate/session.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codur.core.events.base import OMIT, Event


@dataclass(frozen=True, kw_only=True)
class PatchStart(Event, kind="patch.start"):
    """The search started: its fixers and workers."""

    fixers: list[str]
    workers: int


@dataclass(frozen=True, kw_only=True)
class PatchSuite(Event, kind="patch.suite"):
    """The suite collected for fault localization (None: not collected): tests, files, lines tied at the top,
    the failing tests' own run (seconds)."""

    collected: int | None
    files: int | None
    tied: int
    seconds: float


@dataclass(frozen=True, kw_only=True)
class PatchLocalizing(Event, kind="patch.localizing"):
    """Fault localization's progress: tests done of all (None: not known), seconds."""

    tests_done: int
    tests: int | None
    seconds: float


@dataclass(frozen=True, kw_only=True)
class PatchLocalized(Event, kind="patch.localized"):
    """Fault localization's result: failing tests, the most suspicious ``[file, line, score]`` and functions,
    seconds, tests run, whether a selection ran."""

    failing_tests: list[str]
    suspicious: list[Any]
    functions: list[Any]
    elapsed_s: float
    tests_run: int
    selection: bool


@dataclass(frozen=True, kw_only=True)
class PatchMutants(Event, kind="patch.mutants"):
    """The mutants generated and the seconds it took."""

    count: int
    seconds: float


@dataclass(frozen=True, kw_only=True)
class PatchPhase(Event, kind="patch.phase"):
    """A phase of the search started (its candidates), was skipped (why), or, for sampling, what it samples;
    for cloze, the ``form`` its holes are asked in (fim, chat)."""

    phase: str
    candidates: int = OMIT
    skipped: str = OMIT
    functions: list[str] = OMIT
    file: str = OMIT
    samples: int = OMIT
    backfill: int = OMIT
    pair: list[str] = OMIT
    pair_first: bool = OMIT
    form: str = OMIT


@dataclass(frozen=True, kw_only=True)
class PatchSample(Event, kind="patch.sample"):
    """One model sample of a patch: its draw (k, variant, temperature), outcome, seconds, tokens, the reply (400
    characters), the error."""

    k: int
    variant: str
    temperature: float
    outcome: str
    seconds: float
    tokens: int
    reply: str
    error: str = OMIT


@dataclass(frozen=True, kw_only=True)
class PatchCandidate(Event, kind="patch.candidate"):
    """One candidate judged: its fixer (``source``), label, provenance, result, tests it fixed, seconds;
    ``reason`` when refused."""

    source: str
    label: str
    provenance: dict[str, Any]
    result: str
    fixed: int
    seconds: float
    reason: str = OMIT


@dataclass(frozen=True, kw_only=True)
class PatchFound(Event, kind="patch.found"):
    """A plausible patch: its label, provenance and diff; ``held``, when it was held back, its
    anti-patterns in words (:meth:`codur.validate.antipatterns.Finding.describe`)."""

    label: str
    provenance: dict[str, Any]
    diff: str
    held: list[str] = OMIT


@dataclass(frozen=True, kw_only=True)
class PatchDone(Event, kind="patch.done"):
    """The search ended: status, the fixer that found the patch, candidates tried per fixer, model calls and
    tokens, seconds (in all, per phase), the refused candidates."""

    status: str
    source: str
    tried: dict[str, int]
    llm_calls: int
    tokens: int
    elapsed_s: float
    phases: dict[str, float]
    message: str
    refused: list[Any]


@dataclass(frozen=True, kw_only=True)
class PatchReverted(Event, kind="patch.reverted"):
    """The agent's edits were reverted before the search: the files and the tests passing before and with them."""

    files: list[str]
    passed_before: int
    passed_now: int


@dataclass(frozen=True, kw_only=True)
class PatchRisky(Event, kind="patch.risky"):
    """A write adding risky code: the path, the findings, whether it was approved."""

    path: str
    findings: list[str]
    approved: bool


@dataclass(frozen=True, kw_only=True)
class PatchFill(Event, kind="patch.fill"):
    """One fill of a cloze mask (:mod:`codur.patch.fixers.cloze`): its draw (k, template, file, line,
    temperature), outcome (candidate, duplicate, unchanged, no_parse, error), seconds, tokens, the fill."""

    k: int
    template: str
    file: str
    line: int
    temperature: float
    outcome: str
    seconds: float
    tokens: int
    fill: str
    error: str = OMIT
