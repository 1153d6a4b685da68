"""The single-statement bug (SStuB) patterns the mutation operators are named after, and their priors.

Operators are named after the patterns of ManySStuBs4J (Karampatsis & Sutton, "How Often
Do Single-Statement Bugs Occur? The ManySStuBs4J Dataset", MSR 2020), PySStuBs
(Kamienski et al., MSR 2021: the same patterns mined from Python projects) and TSSB-3M
(Richter & Wehrheim, "TSSB-3M: Mining single statement bugs at massive scale", MSR 2022),
in snake case. Java-only patterns (Change Modifier, Missing/Delete Throws Exception) have
no Python single-edit analogue. Classic single edits the taxonomies do not name keep
their own names: ``bound_shift``, ``index_shift``, ``slice_shift``, ``operand_shift``
(+-1), ``fstring_prefix``, ``drop_operand``, ``add_subscript``/``remove_subscript``,
``remove_function_around_expression``, ``change_recursive_argument``, ``change_regex_quantifier``
(:mod:`codur.mutation.data`) and the statement
operators.

Priors. ``prior`` (0..1) orders the mutants of equally suspicious statements. A pattern's
prior is derived from its count in TSSB-3M: the SStuB pattern statistic of Richter &
Wehrheim 2022 (the "SStuB statistic" table of the dataset's README, TSSB-3M column; the
ManySStuBs4J counts, from the "SStuB Statistics" pattern-count table of Karampatsis &
Sutton 2020, 1000-project "Large" column, are shown for reference). The count is divided
by the operator's fan-out: the mean number of candidates it makes on a statement it
applies to, measured on the function bodies of 300 CPython 3.11 standard-library modules
(69,783 statements). ``count / total / fanout`` is proportional to the chance that one
candidate is the fix; halving it costs 0.05 of prior::

    rate = count / 1_442_000 / fanout
    prior = clamp(0.7, 0.95, 0.95 + 0.05 * log2(rate / highest rate))

The band is narrow on purpose: priors order the candidates of one statement, while the
suspiciousness of statements still decides which statement comes first.

================================ ======= ====================== ======= =====
operator (pattern)               TSSB-3M ManySStuBs4J (Large)   fan-out prior
================================ ======= ====================== ======= =====
change_identifier_used           237K    22,668                 4.58    0.88
change_binary_operand            174K    807 (Change Operand)   1.24    0.95
same_function_more_args          150K    5,100                  1.77    0.91
wrong_function_name              134K    10,179                 1.75    0.91
add_function_around_expression   117K    -                      1.31    0.92
change_attribute_used            104K    -                      2.41    0.86
change_numeric_literal           97K     5,447                  2.75    0.85
more_specific_if                 68K     2,381                  2.10    0.84
add_method_call                  60K     -                      1.92    0.84
add_elements_to_iterable         57K     -                      2.01    0.83
same_function_less_args          50K     1,588                  1.11    0.87
change_boolean_literal           37K     1,842                  1.86    0.81
add_attribute_access             32K     -                      1.79    0.80
change_binary_operator           29K     2,241                  1.72    0.80
same_function_wrong_caller       25K     1,504 (Change Caller)  2.03    0.77
less_specific_if                 22K     2,813                  2.08    0.76
change_keyword_argument_used     20K     -                      2.70    0.74
change_unary_operator            15K     1,016                  1.06    0.78
same_function_swap_args          8K      612                    1.49    0.71
change_constant_type             6K      -                      1.10    0.72
================================ ======= ====================== ======= =====

``TAXONOMY`` holds the counts and fan-outs, ``PRIOR`` the derived priors. The classic
edits outside the taxonomy keep hand-set priors (``HAND_PRIORS``; the statement
operators set theirs per case): the off-by-one family at 1.0, above every pattern, as
before. Ranked candidates of one site (nearest names first) lose ``DECAY`` per rank.
"""

from __future__ import annotations

import math

#: operator -> (TSSB-3M count, ManySStuBs4J large count or None, measured fan-out).
TAXONOMY: dict[str, tuple[int, int | None, float]] = {
    "change_identifier_used": (237_000, 22_668, 4.58),
    "change_binary_operand": (174_000, 807, 1.24),
    "same_function_more_args": (150_000, 5_100, 1.77),
    "wrong_function_name": (134_000, 10_179, 1.75),
    "add_function_around_expression": (117_000, None, 1.31),
    "change_attribute_used": (104_000, None, 2.41),
    "change_numeric_literal": (97_000, 5_447, 2.75),
    "more_specific_if": (68_000, 2_381, 2.10),
    "add_method_call": (60_000, None, 1.92),
    "add_elements_to_iterable": (57_000, None, 2.01),
    "same_function_less_args": (50_000, 1_588, 1.11),
    "change_boolean_literal": (37_000, 1_842, 1.86),
    "add_attribute_access": (32_000, None, 1.79),
    "change_binary_operator": (29_000, 2_241, 1.72),
    "same_function_wrong_caller": (25_000, 1_504, 2.03),
    "less_specific_if": (22_000, 2_813, 2.08),
    "change_keyword_argument_used": (20_000, None, 2.70),
    "change_unary_operator": (15_000, 1_016, 1.06),
    "same_function_swap_args": (8_000, 612, 1.49),
    "change_constant_type": (6_000, None, 1.10),
}
#: Classic single edits outside the taxonomy (statement operators set theirs per case).
HAND_PRIORS = {"bound_shift": 1.0, "index_shift": 1.0, "slice_shift": 1.0, "fstring_prefix": 1.0,
               "drop_operand": 0.85, "operand_shift": 0.75, "change_recursive_argument": 0.85,
               "add_subscript": 0.5, "remove_subscript": 0.5, "remove_function_around_expression": 0.5,
               "advance_loop_variable": 0.6, "flush_after_loop": 0.55, "dedent_last_statement": 0.6,
               "keep_discarded_result": 0.9, "mirror_link": 0.7, "return_at_end": 0.8,
               "change_regex_quantifier": 0.6}
DECAY = 0.9  # prior factor per rank among the ranked candidates of one site


def _derive(table: dict[str, tuple[int, int | None, float]]) -> dict[str, float]:
    total = sum(count for count, _, _ in table.values())
    rates = {op: count / total / fanout for op, (count, _, fanout) in table.items()}
    best = max(rates.values())
    return {op: round(min(0.95, max(0.7, 0.95 + 0.05 * math.log2(r / best))), 2) for op, r in rates.items()}


PRIOR: dict[str, float] = {**_derive(TAXONOMY), **HAND_PRIORS}
