"""How a run ends: :class:`RunStatus` and the termination reasons of the engine contract;
the fixers (:data:`FIXERS`).

The low layer every package may import (graph, tools, llm, repair); the typed
RunRequest → RunResult API that uses it lives above, in :mod:`codur.engine.contracts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


@dataclass(frozen=True)
class FixerRecord:
    """A fixer a fix task may use, declared once, by its record in :data:`FIXERS`.

    Attributes:
        name: as the setting ``fixers`` takes it; a candidate's ``provenance["source"]``.
        words: what the summary, the result's ``metadata.fixer`` and the progress lines call it.
        model: it needs a model (it calls one, or builds on the samples of one).
        pipeline: a fixer of the candidate-patch pipeline (its class is in
            :data:`codur.patch.fixers.FIXERS`, which this layer does not import); False: the
            tool-loop agent.
    """

    name: str
    words: str
    model: bool
    pipeline: bool = True


#: Every fixer, in the order they run (cost order): the names the setting ``fixers``
#: (:class:`codur.config.CodurConfig`) accepts and validates, and what the summary and the
#: progress lines call each (or the views below).
FIXERS = (
    FixerRecord("mutation", "mutation search", model=False),
    FixerRecord("cloze", "model fill of a masked line", model=True),
    FixerRecord("sampling", "model patch sample", model=True),
    FixerRecord("hybrid", "model sample + mutation", model=True),
    FixerRecord("agent", "agent", model=True, pipeline=False),
)
#: Each fixer's name -> what the summary calls it, in cost order.
FIXER_NAMES = {f.name: f.words for f in FIXERS}
#: A fixer's name, as the setting ``fixers`` takes it.
FixerName = Literal[tuple(FIXER_NAMES)]  # type: ignore[valid-type]
#: The fixers of the candidate-patch pipeline (:mod:`codur.patch`) in cost order; ``agent`` is the tool loop.
PIPELINE_FIXERS = tuple(f.name for f in FIXERS if f.pipeline)
#: The fixers that call a model; ``mutation`` is the one that does not.
MODEL_FIXERS = tuple(f.name for f in FIXERS if f.model)


class RunStatus(StrEnum):
    """How a run ended. ``running`` only appears in events, never in a RunResult."""

    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    TIMEOUT = "timeout"
    BUDGET_EXCEEDED = "budget_exceeded"
    CANCELLED = "cancelled"
    RATE_LIMITED = "rate_limited"  # the model kept answering 429 (past the Retry-After cap, or the retries)
    QUOTA_EXHAUSTED = "quota_exhausted"  # the provider said insufficient_quota / billing: retrying cannot help
    DRY_RUN = "dry_run"  # the prompts were shown, no model was started or called, nothing was changed
    ERROR = "error"


class PatchStatus(StrEnum):
    """How a search for a plausible patch ended: the candidate-patch pipeline's
    (:class:`codur.patch.PatchResult`; why one that found nothing stopped is its ``end``)."""

    PATCHED = "patched"  # a plausible patch was found (and, where the caller writes, written)
    NOT_FOUND = "not_found"  # every candidate was tried, none plausible
    NO_FAILING_TESTS = "no_failing_tests"  # nothing to repair
    CANCELLED = "cancelled"
    BUDGET = "budget"  # the run's token budget or the search's wall time ran out
    ERROR = "error"  # the tests could not run, or the patch could not be written


class StopReason(StrEnum):
    """The reasons a limit ends a run (the engine contract): the reason is exactly one of these
    words; figures (elapsed seconds, tokens used) go in the result's metadata, not in the reason."""

    MAX_TURNS = "max_turns"  # status failed
    TIMEOUT = "timeout"  # status timeout
    TOKEN_BUDGET = "token_budget"  # status budget_exceeded
    COST_BUDGET = "cost_budget"  # status budget_exceeded
    CANCELLED = "cancelled"  # status cancelled
