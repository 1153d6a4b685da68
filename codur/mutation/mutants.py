"""Mutant generation: the operators applied to the suspicious statements, in rank order.

Rank (:attr:`Mutant.rank`, lowest first): ``suspiciousness × prior``, highest first,
where suspiciousness is the mutated statement's (the best score of its header lines)
and prior the operator's; ties go to the smaller edit (characters removed + inserted),
then to the order the operators produced them. Mutants are deduplicated by resulting
text and checked with ``compile()`` lazily, in that order.

Second-order mutants (pairs of single edits, :mod:`codur.mutation.pairs`) form a second
tier, tried after the single edits (single edits first, as in Ghanbari et al., "Practical
Program Repair via Bytecode Mutation", 2019): two edits on the same or adjacent lines, and
a deleted guard or a top-ranked edit with an edit of another statement of the same
function; a pair's suspiciousness is the lower of the two, its prior their product, and at
most ``max_pairs`` of them (the best ranked of each family) are kept. When the singles
would fill ``limit``, the pairs keep :data:`PAIR_SHARE` of it (at most ``max_pairs``) and
the last singles give way: those are the least suspicious statements' least likely edits,
while a fix of two edits is otherwise never tried.

Only the most suspicious functions are mutated (:func:`ranked_units`, at most
:data:`MUTATED_FUNCTIONS`): the cost of generating mutants follows the bug, not the size
of the module holding it.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

from codur.config import CodurConfig
from codur.core.pyast import BOM, parse_ast
from codur.mutation import data, early, guards, statements
from codur.mutation.mutant import Mutant
from codur.mutation.pairs import second_order
from codur.mutation.site import MutationSite
from codur.validate.source import Source, is_source_file, read_source

#: Functions (or module-level statements) mutated at most, the most suspicious first.
MUTATED_FUNCTIONS = 8
#: Share of ``limit`` the pairs keep when the singles would fill it (the default
#: ``max_pairs``, 100, of the default ``max_mutants``, 400)
PAIR_SHARE = 0.25
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def header_lines(stmt: ast.stmt) -> range:
    """Lines a statement owns: all of a simple one, the header of a compound one."""
    body = getattr(stmt, "body", None)
    if not isinstance(body, list) or not body:
        return range(stmt.lineno, stmt.end_lineno + 1)
    start = min([d.lineno for d in getattr(stmt, "decorator_list", [])] + [stmt.lineno])
    return range(start, max(stmt.lineno, body[0].lineno - 1) + 1)


def _walk(body: list[ast.stmt], func: ast.AST | None, in_loop: bool) -> Iterator[tuple]:
    for stmt in body:
        yield stmt, func, in_loop, len(body)
        inner = stmt if isinstance(stmt, _FUNCS) else func
        loop = (in_loop and inner is func) or isinstance(stmt, _LOOPS)
        blocks = [getattr(stmt, f, None) or [] for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(stmt, "handlers", [])]
        blocks += [c.body for c in getattr(stmt, "cases", [])]
        for block in blocks:
            yield from _walk(block, inner, loop)


def _is_empty(value: ast.expr) -> bool:
    """``0``, ``0.0``, ``""``, ``[]`` or ``{}``: how an accumulator starts."""
    if isinstance(value, ast.Constant):
        return type(value.value) in (int, float, str) and not value.value
    return isinstance(value, ast.List) and not value.elts or isinstance(value, ast.Dict) and not value.keys


def _scope_names(func: ast.AST | None) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    """(parameters and locals of ``func``, those used inside subscripts, accumulators:
    those initialised to 0, "" or an empty list/dict/set)."""
    if func is None:
        return (), (), frozenset()
    args = func.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a]
    names += [n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    names = [n for n in dict.fromkeys(names) if n != "_"]
    used = {n.id for s in ast.walk(func) if isinstance(s, ast.Subscript)
            for n in ast.walk(s.slice) if isinstance(n, ast.Name)}
    acc = {t.id for a in ast.walk(func) if isinstance(a, ast.Assign) and _is_empty(a.value)
           for t in a.targets if isinstance(t, ast.Name)}
    return tuple(names), tuple(n for n in names if n in used), frozenset(acc)


def candidates(rel: str, src: Source, scores: dict[tuple[str, int], float]) -> list[Mutant]:
    """Unchecked mutants of every statement of ``rel`` with a positive score."""
    parents = {c: p for p in ast.walk(src.tree) for c in ast.iter_child_nodes(p)}
    scopes: dict[ast.AST | None, tuple] = {}
    out = []
    for stmt, func, in_loop, siblings in _walk(src.tree.body, None, False):
        score = max((scores.get((rel, ln), 0.0) for ln in header_lines(stmt)), default=0.0)
        if score <= 0:
            continue
        if func not in scopes:
            scopes[func] = _scope_names(func)
        ctx = MutationSite(src, parents, *scopes[func], in_loop, siblings)
        for ch in statements.changes_for(stmt, ctx):
            out.append(Mutant(rel, ch.line, ch.operator, ch.edits, ch.description, score,
                              ch.prior, (rel, stmt.lineno)))
    return out


def _scored_functions(rel: str, src: Source, scores: dict[tuple[str, int], float]) -> list[tuple[ast.AST, float]]:
    """The innermost functions holding a scored line of ``rel``, with their best line's score; functions
    of equal score in the order of their summed line scores (the one the failing tests ran most of first)."""
    funcs = [n for n in ast.walk(src.tree) if isinstance(n, _FUNCS)]
    best: dict[ast.AST, float] = {}
    mass: dict[ast.AST, float] = {}
    for (f, line), value in scores.items():
        if f != rel:
            continue
        holders = [n for n in funcs if n.lineno <= line <= (n.end_lineno or n.lineno)]
        if holders:
            inner = max(holders, key=lambda n: n.lineno)
            best[inner] = max(best.get(inner, 0.0), value)
            mass[inner] = mass.get(inner, 0.0) + value
    return sorted(best.items(), key=lambda kv: (-kv[1], -mass[kv[0]], kv[0].lineno))


def _guards(rel: str, src: Source, scores: dict[tuple[str, int], float], raises: frozenset[str]) -> list[Mutant]:
    """Parameter checks (:func:`codur.mutation.guards.guards`) for the functions of
    :func:`_scored_functions`, scored by their best line."""
    out = []
    for func, score in _scored_functions(rel, src, scores):
        for line, edits, description in guards.guards(func, src, raises):
            out.append(Mutant(rel, line, "add_parameter_check", edits, description, score, guards.PRIOR,
                              (rel, line)))
    return out


def _early_returns(rel: str, src: Source, scores: dict[tuple[str, int], float]) -> list[Mutant]:
    """Early returns for a parameter that is None (:func:`codur.mutation.early.null_returns`) for the
    functions of :func:`_scored_functions`, scored by their best line."""
    return [Mutant(rel, line, "add_null_check", edits, description, score, early.PRIOR, (rel, line))
            for func, score in _scored_functions(rel, src, scores)
            for line, edits, description in early.null_returns(func, src)]


def top_level_spans(text: str) -> list[tuple[int, int]]:
    """(first, last) line of each top-level statement of ``text`` (decorators included).
    Raises SyntaxError."""
    spans = []
    for node in parse_ast(text).body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        spans.append((first, node.end_lineno or node.lineno))
    return spans


def _compiles(m: Mutant, old: str, new: str, spans: list[tuple[int, int]]) -> bool:
    """Whether ``new`` (``m`` applied to ``old``) compiles. Only the top-level statement holding
    the edits is compiled when they lie in one (a syntax error cannot reach past it): 8 ms for
    a 1,600-line module becomes well under 1 ms for one function."""
    lo = old.count("\n", 0, min(e.start for e in m.edits)) + 1
    hi = old.count("\n", 0, max(e.end for e in m.edits)) + 1
    span = next(((a, b) for a, b in spans if a <= lo and hi <= b), None)
    if span is None:
        code = new
    else:
        delta = sum(e.new.count("\n") - old.count("\n", e.start, e.end) for e in m.edits)
        code = "\n".join(new.splitlines()[span[0] - 1:span[1] + delta])
    try:
        compile(code.removeprefix(BOM), m.file, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def valid(mutants: list[Mutant], texts: dict[str, str], limit: int) -> list[Mutant]:
    """The first ``limit`` mutants that change the text, compile, and are not duplicates."""
    seen, out = set(), []
    spans: dict[str, list[tuple[int, int]]] = {}
    for m in mutants:
        if len(out) >= limit:
            break
        new = m.apply(texts[m.file])
        digest = hashlib.sha1(f"{m.file}\0{new}".encode()).digest()
        if new == texts[m.file] or digest in seen:
            continue
        seen.add(digest)
        if m.file not in spans:
            spans[m.file] = top_level_spans(texts[m.file])
        if _compiles(m, texts[m.file], new, spans[m.file]):
            out.append(m)
    return out


def units(tree: ast.Module) -> list[tuple[int, int]]:
    """(first, last) lines of every function of ``tree`` (nested ones too) and of every
    top-level statement that is not a class or function: the units :func:`ranked_units` ranks."""
    out = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree) if isinstance(n, _FUNCS)]
    out += [(n.lineno, n.end_lineno or n.lineno) for n in tree.body
            if not isinstance(n, (*_FUNCS, ast.ClassDef))]
    return out


def ranked_units(scores: dict[tuple[str, int], float], trees: dict[str, ast.Module],
                 limit: int = MUTATED_FUNCTIONS) -> dict[tuple[str, int], float]:
    """``scores`` kept to the lines of the ``limit`` most suspicious units (:func:`units`: the
    innermost function holding a line, else its top-level statement; a class body's own
    lines are their own unit), ranked by their best line, then by their summed score.
    ``trees``: the parsed files (a file missing there keeps none of its lines)."""
    spans = {rel: sorted(units(tree), key=lambda s: s[1] - s[0]) for rel, tree in trees.items()}
    best: dict[tuple[str, int, int], float] = {}
    mass: dict[tuple[str, int, int], float] = {}
    unit_of: dict[tuple[str, int], tuple[str, int, int]] = {}
    for (rel, line), value in scores.items():
        if rel not in spans:
            continue
        first, last = next(((a, b) for a, b in spans[rel] if a <= line <= b), (line, line))
        key = unit_of[(rel, line)] = (rel, first, last)
        best[key] = max(best.get(key, 0.0), value)
        mass[key] = mass.get(key, 0.0) + value
    kept = set(sorted(best, key=lambda k: (-round(best[k], 6), -mass[k], k))[:limit])
    return {k: v for k, v in scores.items() if unit_of.get(k) in kept}


def generate(repo: Path, scores: dict[tuple[str, int], float], *, limit: int = 400,
             max_pairs: int = CodurConfig.default("max_pairs"),
             hung_loops: frozenset[tuple[str, int]] = frozenset(),
             max_functions: int = MUTATED_FUNCTIONS,
             raises: frozenset[str] = frozenset()) -> tuple[list[Mutant], dict[str, str]]:
    """Mutants for the scored lines of ``repo``, best first, at most ``limit``.

    ``scores`` maps (file relative to repo, line) -> suspiciousness; only the lines of the
    ``max_functions`` most suspicious functions are mutated (:func:`ranked_units`), and the
    module-level data those functions read (:func:`codur.mutation.data.read_data`, discounted).
    ``hung_loops``: the (file, header line) of loops a test hung in
    (:attr:`codur.validate.localize.Localization.hung_loops`):
    the update such a loop lacks (``advance_loop_variable``, a loop its body can never end)
    goes first, since the run saw the loop not end. ``raises``: exceptions a failing test
    expected and did not see (:func:`codur.validate.localize.expected_raises`): the ranked
    functions get parameter checks raising them (:mod:`codur.mutation.guards`). Returns the mutants
    (singles by rank, then at most ``max_pairs`` pairs, see the module doc and
    :func:`codur.mutation.pairs.second_order`) and
    the original texts of the files they touch (read in their declared coding, as the
    tools read them). Test files and files that do not parse or decode are skipped.
    """
    texts, sources = {}, {}
    for rel in sorted({f for f, _ in scores if is_source_file(f)}):
        try:
            text = read_source(Path(repo) / rel, rel)
            sources[rel] = Source(text)
        except (OSError, SyntaxError, ValueError):
            continue
        texts[rel] = text
    kept = ranked_units(scores, {rel: src.tree for rel, src in sources.items()}, max_functions)
    for rel in sorted({f for f, _ in kept}):
        kept.update(data.read_data(rel, sources[rel].tree, kept))  # the module-level data they read
    singles = []
    for rel in sorted({f for f, _ in kept}):
        singles += candidates(rel, sources[rel], kept) + _early_returns(rel, sources[rel], kept)
        if raises:
            singles += _guards(rel, sources[rel], kept, raises)

    widen = {(rel, n) for rel in sources for n in guards.raising_conditions(sources[rel].tree, raises)}

    def order(m: Mutant) -> tuple:
        """What the run itself pointed at goes first: a hung loop's missing update, then the
        checks a test asked for (by score; stable: in :func:`_guards`' order; and the widened
        conditions of a raise of it, :func:`codur.mutation.guards.raising_conditions`), then by rank."""
        if m.operator == "advance_loop_variable" and (m.file, m.line) in hung_loops:
            return (0, m.rank)
        if m.operator == "add_parameter_check" or m.operator == "less_specific_if" and (m.file, m.line) in widen:
            return (1, (-m.score, 0))
        return (2, m.rank)
    singles.sort(key=order)
    first = valid(singles, texts, limit)
    budget = min(max_pairs, max(limit - len(first), int(limit * PAIR_SHARE)))
    second = second_order(first, _function_finder(sources), lambda found, n: valid(list(found), texts, n), budget)
    return first[:limit - len(second)] + second, texts


def _function_finder(sources: dict[str, Source]) -> Callable[[str, int], tuple[int, int] | None]:
    """``(file, line) -> (first, last)`` lines of the innermost function of ``sources[file]``
    holding ``line``, None outside any function."""
    spans = {rel: sorted(((n.lineno, n.end_lineno or n.lineno) for n in ast.walk(src.tree) if isinstance(n, _FUNCS)),
                         key=lambda s: s[1] - s[0]) for rel, src in sources.items()}

    def function_of(rel: str, line: int) -> tuple[int, int] | None:
        return next(((a, b) for a, b in spans.get(rel, []) if a <= line <= b), None)
    return function_of
