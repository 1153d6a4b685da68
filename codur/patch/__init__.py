"""The candidate-patch pipeline: fixes as candidates in one ranked queue, judged by the tests.

- ``pipeline.py``: :class:`PatchPipeline`, the fixers in cost order (mutation under a
  time box, model samples, mutants of near misses, the rest of the mutants) on one
  repair session (private copies, warm pytest fork server, parallel workers).
- ``sampling.py``: the model writes the suspicious function whole; K samples.
- ``splice.py``: the function chosen, the reply parsed and spliced in, deduped by AST.
- ``hybrid.py``: mutants of a model's near miss.

The evaluator and the acceptance rule are the repair engine's
(:mod:`codur.repair.evaluate`).
"""

from codur.patch.pipeline import FIXERS, PatchPipeline, PatchResult
from codur.patch.sampling import Sample
from codur.patch.splice import FunctionSpan, function_at, normalized, splice

__all__ = ["FIXERS", "FunctionSpan", "PatchPipeline", "PatchResult", "Sample", "function_at", "normalized",
           "splice"]
