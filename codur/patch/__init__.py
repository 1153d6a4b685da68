"""The candidate-patch pipeline: fixes as candidates in one ranked queue, judged by the tests.

- ``pipeline.py``: :class:`PatchPipeline`, the fixers' phases in cost order (the records of
  :data:`codur.core.contracts.FIXERS`), then the candidates they left untried, on one
  repair session (private copies, warm pytest fork server, parallel workers).
- ``phases.py``: the mutation phase (under a time box) and the sampling phase (model samples,
  the untried mutants beside them); ``hybrid.py`` holds the hybrid phase.
- ``contracts.py``: :class:`PatchSettings` (how it searches), :class:`PatchResult` (what it found)
  and :class:`PhaseRun` (what the phases of one search share).
- ``ranking.py``: the suspicious functions across files (what a sample rewrites, what
  the agent is shown).
- ``prompt.py``: a sample's prompt (variants: plain, tests, marked, file, pair).
- ``sampling.py``: the model writes the suspicious function(s) whole; K samples.
- ``conversation.py``: what the tests said about a sample, answered by a feedback sample.
- ``splice.py``: the reply parsed and spliced in by name (and file), deduped by AST.
- ``hybrid.py``: mutants of a model's near miss; the union of two near misses.

The evaluator and the acceptance rule are the repair engine's
(:mod:`codur.repair.evaluate`, the search over a worker pool :mod:`codur.repair.search`).
"""

from codur.patch.contracts import PatchResult, PatchSettings
from codur.patch.pipeline import PatchPipeline
from codur.patch.sampling import Sample
from codur.patch.splice import FunctionSpan, function_at, normalized, splice

__all__ = ["FunctionSpan", "PatchPipeline", "PatchResult", "PatchSettings", "Sample", "function_at",
           "normalized", "splice"]
