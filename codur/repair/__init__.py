"""Mutation-based automated program repair: fixes a failing test suite with NO model.

The parts of the mutation fixer and of the validator every fixer uses; the candidate-patch
pipeline (:mod:`codur.patch`) runs them inside a run (``codur repair`` is the main job with the
mutation fixer only):

1. **Workers** (``session.py``, the setup every phase shares). ``workers`` private copies
   of the repo (without .git/.venv/.codur/__pycache__) and one fork server that has pytest,
   its plugins and coverage imported, so a test run costs a fork instead of a fresh
   interpreter (``worker.py``, ``_runtime/codur_repair_zygote.py``). The idle server is
   kept for the next call.
2. **Fault localization** (``localize.py``). The suite runs once with per-test line
   coverage (coverage.py dynamic contexts via the ``codur_repair_plugin`` pytest plugin);
   each source line gets its Ochiai suspiciousness (Abreu et al. 2007), boosted when it
   appears in a failing test's traceback. Test files are never scored. A hanging test is
   stopped by SIGALRM: it fails, keeps the coverage it collected, and the header of the
   loop it was stopped in ranks first. Meanwhile a second run checks whether the suite
   gives the same outcomes without the installed pytest plugins; if so, mutants are
   tested without them (much cheaper) and a winner is confirmed with them.
3. **Mutants** (``mutants.py``). Operators rewrite exact source spans of the most
   suspicious statements (comparison/arithmetic/boolean swaps, +-1 on bounds, indices
   and slices, dropped guards and operands, f-prefixes, ...); every mutant compiles and
   is unique; rank: suspiciousness × the operator's prior. Pairs of edits on the same or
   adjacent lines come last, at most ``max_pairs``. Expression operators are in
   ``operators.py`` (operators, operands, literals), ``identifiers.py`` (identifiers,
   attributes) and ``calls.py`` (calls, arguments), the standard library's optional arguments in
   ``library.py``, statement operators in ``statements.py`` and ``missing.py`` (the
   update a never-ending ``while`` lacks, the flush of a loop's last batch, a statement
   indented one block too deep); what they
   share in ``site.py``; the module analysis they read (names in scope, kinds of use,
   nearest names) in ``names.py``; the bug patterns they are named after, with the
   priors, in ``patterns.py``.
4. **Search** (``search.py``, each candidate judged by ``evaluate.py``). Mutants run in rank
   order on the workers: the failing tests first, then the full suite, each under a timeout
   (from the baseline durations, capped by ``mutant_timeout_s``) that kills the process
   group; the failing tests also under a short per-test limit, so a mutant that still loops
   costs about a second. The best-ranked plausible mutant wins, whatever the number of
   workers. Without one, the pipeline's result says why the search stopped: "budget",
   "exhausted" or "cancelled" (:class:`codur.patch.contracts.SearchEnd`).
5. **Patch** (``patch.py``). A unified diff; nothing in the repo is written here: the run's
   patch node applies it through the ToolExecutor (atomic, journaled, ``codur undo``).

A non-pytest ``test_cmd`` is one test: it is wrapped in ``coverage run`` when possible,
the scripts it names are never mutated, and mutants run it whole in a subprocess.

``codur repair`` is :mod:`codur.commands.repair`; ``bench/repair`` the corpus.
"""

from codur.repair.localize import Localization, is_source_file, localize_faults, ochiai
from codur.repair.mutants import Mutant
from codur.repair.mutants import generate as generate_mutants
from codur.repair.site import Change
from codur.repair.statements import changes_for
from codur.testing.forkserver import close_warm_runners

__all__ = ["Change", "Localization", "Mutant", "changes_for", "close_warm_runners", "generate_mutants",
           "is_source_file", "localize_faults", "ochiai"]
