"""The validator every fixer uses: it judges a candidate patch by running the repo's own tests.

1. **Workers** (``session.py``, the setup every fixer shares). ``workers`` private copies
   of the repo (without .git/.venv/.codur/__pycache__) and one fork server that has pytest,
   its plugins and coverage imported, so a test run costs a fork instead of a fresh
   interpreter (``worker.py``, ``_runtime/codur_repair_zygote.py``). The idle server is
   kept for the next call.
2. **Fault localization** (``localize.py``), here so that every fixer (the mutation fixer,
   the model's samples, the agent's prompt) can read it. The suite runs once with per-test line
   coverage (coverage.py dynamic contexts via the ``codur_repair_plugin`` pytest plugin);
   each source line gets its Ochiai suspiciousness (Abreu et al. 2007), boosted when it
   appears in a failing test's traceback. Test files are never scored. A hanging test is
   stopped by SIGALRM: it fails, keeps the coverage it collected, and the header of the
   loop it was stopped in ranks first. Meanwhile a second run checks whether the suite
   gives the same outcomes without the installed pytest plugins; if so, candidates are
   tested without them (much cheaper) and a winner is confirmed with them. The failing
   tests' messages also say which exception a test expected and did not see
   (:func:`codur.validate.localize.expected_raises`). A run in the repo itself (no worker's
   copy) goes through the fork server, or directly for a non-pytest command (``localize_run.py``).
3. **Search** (``search.py``, each candidate judged by ``evaluate.py``, the structural checks
   in ``checks.py`` and ``footprint.py``, the tests to run in ``selection.py``). Candidates run
   in rank order on the workers: the failing tests first, then the full suite, each under a
   timeout (from the baseline durations, capped by ``mutant_timeout_s``) that kills the
   process group; the failing tests also under a short per-test limit, so a candidate that
   still loops costs about a second. The best-ranked plausible candidate wins, whatever the
   number of workers. Without one, the pipeline's result says why the search stopped:
   "budget", "exhausted" or "cancelled" (:class:`codur.patch.contracts.SearchEnd`).
4. **Diffs** (``diffs.py``). A unified diff; nothing in the repo is written here: the run's
   patch node applies it through the ToolExecutor (atomic, journaled, ``codur undo``).
   Source files are read in their declared coding (``source.py``).

A non-pytest ``test_cmd`` is one test: it is wrapped in ``coverage run`` when possible,
the scripts it names are never mutated, and candidates run it whole in a subprocess.
"""

from codur.validate.localize import Localization, is_source_file, localize_faults, ochiai

__all__ = ["Localization", "is_source_file", "localize_faults", "ochiai"]
