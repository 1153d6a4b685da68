"""What failing tests say beyond pass or fail: the frames of their tracebacks in the repo's own
source, the loop a test that hung was stopped in, and the exception a test expected and did not
see. Fault localization (:mod:`codur.validate.localize`) reads them to rank lines; the mutation
fixer reads the expected exceptions (:mod:`codur.mutation.guards`).
"""

from __future__ import annotations

import ast
import logging
import re
from collections.abc import Iterable
from pathlib import Path

from codur.core.pyast import parse_ast
from codur.tools.errors import ToolError
from codur.tools.reading import decode_source
from codur.validate.source import is_source_file

#: pytest.raises' and unittest's messages for an exception that was expected and not raised
_NOT_RAISED = (re.compile(r"DID NOT RAISE (?:<class ')?(?:[\w.]+\.)?(\w+)"),  # pytest < 9, and 9's bare name
               re.compile(r"\b([A-Z]\w*(?:Error|Exception|Warning))\b not raised"))


def expected_raises(messages: Iterable[str]) -> frozenset[str]:
    """Exception class names the failing tests' messages say were expected and not raised."""
    out = set()
    for text in messages:
        for pattern in _NOT_RAISED:
            out.update(pattern.findall(text or ""))
    return frozenset(out)


def relative(repo: Path, path: str) -> str | None:
    """``path`` relative to ``repo`` (POSIX form), or None when it lies outside."""
    try:
        return Path(path).resolve().relative_to(repo).as_posix()
    except (ValueError, OSError):
        return None


def own_frames(repo: Path, frames: list) -> list[tuple[str, int]]:
    """The frames (path, line) in the repo's own source, as (file relative to repo, line)."""
    return [(rel, ln) for rel, ln in ((relative(repo, p), ln) for p, ln in frames)
            if rel is not None and is_source_file(rel)]


def loops_around(text: str, line: int) -> list[tuple[int, int]]:
    """(first, last) lines of the loops around ``line`` in the function (or module body)
    holding it, innermost first; [] if there is none or ``text`` does not parse."""
    try:
        node: ast.AST = parse_ast(text)
    except (SyntaxError, ValueError):
        return []
    loops: list[tuple[int, int]] = []
    while True:
        inner = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)
                 and c.lineno <= line <= (c.end_lineno or c.lineno)]
        if not inner:
            return loops[::-1]
        node = inner[0]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            loops = []
        elif isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
            loops.append((node.lineno, node.end_lineno or node.lineno))


def blame_loop(repo: Path, hang: list[tuple[str, int]], scores: dict[tuple[str, int], float],
                boost: float) -> tuple[str, int] | None:
    """Raise the header of the loop a timed-out test was stopped in (see the module doc) and
    return it as (file, line), or None when no frame is in a loop. A source is read in the
    coding it declares (PEP 263); one that does not decode is skipped with a log warning."""
    for rel, line in reversed(hang):
        try:
            loops = loops_around(decode_source((repo / rel).read_bytes(), rel), line)
        except (OSError, ToolError) as exc:  # its loops cannot be found: the frames' boost stays
            logging.getLogger("codur.validate").warning("fault localization skips the loops of %s: %s", rel, exc)
            continue
        if loops:
            first, last = loops[0]
            best = max((v for (f, ln), v in scores.items() if f == rel and first <= ln <= last), default=0.0)
            scores[(rel, first)] = best + boost
            for outer, _ in loops[1:]:
                scores[(rel, outer)] = scores.get((rel, outer), 0.0) + boost / 2
            return rel, first
    return None
