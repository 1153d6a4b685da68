"""The mutation fixer's candidates: mutation-based program repair with NO model.

Operators rewrite exact source spans of the most suspicious statements (localization:
:mod:`codur.validate.localize`): comparison/arithmetic/boolean swaps, +-1 on bounds,
indices and slices, dropped guards and operands, f-prefixes, ...; every mutant compiles and
is unique; rank: suspiciousness × the operator's prior. Pairs of edits on the same or
adjacent lines, or on two statements of one function (a deleted guard or a top-ranked edit
with another), come last, at most ``max_pairs`` (``pairs.py``); one mutant is ``mutant.py``'s
:class:`Mutant`. Expression operators are in
``operators.py`` (operators, operands, literals), ``identifiers.py`` (identifiers,
attributes) and ``calls.py`` (calls, arguments), the standard library's optional arguments
and a separator stripped from a text result in ``library.py``, statement operators in
``statements.py`` and ``missing.py`` (the update a
never-ending ``while`` lacks, the flush of a loop's last batch, a statement indented one
block too deep), the parameter check a failing test expected in ``guards.py``; what they
share in ``site.py``; the module analysis they read (names in scope, kinds of use, nearest
names) in ``names.py``, the kinds of use it reads from the code around a name in
``kinds.py``; the bug patterns they are named after, with the priors, in
``patterns.py``. The fixer that hands them to the pipeline is
:class:`codur.patch.fixers.mutation.MutationFixer`; the validator judges them
(:mod:`codur.validate`). ``codur repair`` is the main job with this fixer only;
``bench/repair`` the corpus.
"""

from codur.mutation.mutants import Mutant
from codur.mutation.mutants import generate as generate_mutants
from codur.mutation.site import Change
from codur.mutation.statements import changes_for

__all__ = ["Change", "Mutant", "changes_for", "generate_mutants"]
