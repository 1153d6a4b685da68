"""The candidate-patch pipeline: fixes as candidates in one ranked queue, judged by the tests.

- ``pipeline.py``: :class:`PatchPipeline`, the one scheduler: the fixers in cost order, then
  the candidates they left untried, on one repair session (private copies, warm pytest fork
  server, parallel workers); it alone searches, counts and keeps the near misses.
- ``fixer.py``: what a fixer is (:class:`codur.patch.fixer.Fixer`: ``name``, ``calls_model``,
  ``candidates(view)``) and what it sees (:class:`codur.patch.fixer.FixerView`);
  ``fixers/``: one module per fixer (mutation, sampling, hybrid) and their list, ``FIXERS``.
- ``contracts.py``: :class:`PatchSettings` (how it searches) and :class:`PatchResult` (what it found).
- ``ranking.py``: the suspicious functions across files (what a sample rewrites, what
  the agent is shown).
- ``prompt.py``: a sample's prompt (variants: plain, tests, marked, file, pair).
- ``sampling.py``: the model writes the suspicious function(s) whole; K samples
  (:class:`codur.patch.sampling.Sampler`); ``sample.py``: a sample; ``reply.py``: a reply applied.
- ``conversation.py``: what the tests said about a sample, answered by a feedback sample.
- ``splice.py``: the reply parsed and spliced in by name (and file), deduped by AST.
- ``hybrid.py``: mutants of a model's near miss; the union of two near misses.

The evaluator and the acceptance rule are the repair engine's
(:mod:`codur.validate.evaluate`, the search over a worker pool :mod:`codur.validate.search`).
"""

from codur.patch.contracts import PatchResult, PatchSettings
from codur.patch.pipeline import PatchPipeline
from codur.patch.sample import Sample
from codur.patch.splice import FunctionSpan, function_at, normalized, splice

__all__ = ["FunctionSpan", "PatchPipeline", "PatchResult", "PatchSettings", "Sample", "function_at",
           "normalized", "splice"]
