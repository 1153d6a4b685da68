"""Suspicious functions across files: what the model samples rewrite and the agent is shown.

Fault localization scores lines (Ochiai over per-test coverage plus traceback frames,
:mod:`codur.validate.localize`); a fix is written a function at a time, so the lines are
grouped by the function holding them (:func:`codur.patch.splice.function_at`'s rule),
each function scored by its best line, ties broken by the sum of its lines' scores
(spectrum-based scores tie often, e.g. a constructor run by every test).
"""

from __future__ import annotations

from collections.abc import Callable

from codur.patch.splice import FunctionSpan, functions, holding

#: Scored lines looked at, best first (the rest add little and cost a parse per file).
MAX_LINES_RANKED = 200
#: A second function of another file joins the first in a pair sample from the start
#: when it scores at least this share of the first.
CROSS_FILE_SHARE = 0.5


def rank_functions(scores: dict[tuple[str, int], float], read: Callable[[str], str], *,
                   max_lines: int = 80) -> list[tuple[FunctionSpan, float]]:
    """Every function holding a scored line, in any file, most suspicious first, with its
    score. ``scores``: (file, line) -> suspiciousness; ``read(rel)`` returns a file's text
    (a file it cannot read, or that does not parse, is left out); ``max_lines``: the
    longest function taken whole (a longer one gives its innermost function instead)."""
    best: dict[tuple[str, str], tuple[FunctionSpan, float]] = {}
    mass: dict[tuple[str, str], float] = {}
    spans_of: dict[str, list[FunctionSpan] | None] = {}
    for (rel, line), score in sorted(scores.items(), key=lambda kv: -kv[1])[:MAX_LINES_RANKED]:
        if rel not in spans_of:
            try:
                spans_of[rel] = functions(read(rel), rel)
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                spans_of[rel] = None
        spans = spans_of[rel]
        span = holding(spans, line, max_lines) if spans else None
        if span is None:
            continue
        key = (rel, span.qualname)
        best.setdefault(key, (span, score))
        mass[key] = mass.get(key, 0.0) + score
    return [best[k] for k in sorted(best, key=lambda k: (-round(best[k][1], 3), -mass[k]))]


def _nested(a: FunctionSpan, b: FunctionSpan) -> bool:
    return a.file == b.file and (a.start <= b.start and b.end <= a.end or b.start <= a.start and a.end <= b.end)


def targets(scores: dict[tuple[str, int], float], read: Callable[[str], str], *,
            max_lines: int = 80, limit: int = 2) -> list[tuple[FunctionSpan, float]]:
    """The functions one sample rewrites, most suspicious first: the top of
    :func:`rank_functions`, and a second function only in the same file, scoring at
    least 0.8 of the first (both look equally guilty), not nested in it."""
    return choose(rank_functions(scores, read, max_lines=max_lines), limit)


def choose(ranked: list[tuple[FunctionSpan, float]], limit: int = 2) -> list[tuple[FunctionSpan, float]]:
    """:func:`targets` from functions already ranked (:func:`rank_functions`)."""
    if not ranked:
        return []
    top = ranked[0]
    rest = [fs for fs in ranked[1:] if fs[0].file == top[0].file and fs[1] >= 0.8 * top[1]
            and not _nested(fs[0], top[0])]
    return [top, *rest][:limit]


def pair(ranked: list[tuple[FunctionSpan, float]], chosen: list[FunctionSpan]) -> tuple[list[FunctionSpan], bool]:
    """The functions of a pair sample: ``chosen`` (the one sample's targets) plus the best
    ranked function not among them nor nested in one of them, in any file; [] when
    there is none. The flag says whether that function sits in another file and scores
    at least :data:`CROSS_FILE_SHARE` of the top: the pair is then asked for from the
    start, not only once a near miss shows the bug is in more than one place."""
    if not ranked or not chosen:
        return [], False
    top = ranked[0][1]
    for span, score in ranked:
        if any(span == c or _nested(span, c) for c in chosen):
            continue
        cross = span.file != chosen[0].file and score >= CROSS_FILE_SHARE * top
        return [*chosen, span], cross
    return [], False


def summary(ranked: list[tuple[FunctionSpan, float]], top: int = 6) -> list[dict]:
    """The best ``top`` functions as records for the agent's prompt: path, function
    (qualified name), start and end lines, score (rounded to 3 places)."""
    return [{"path": s.file, "function": s.qualname, "start": s.start, "end": s.end, "score": round(score, 3)}
            for s, score in ranked[:top]]
