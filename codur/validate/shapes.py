"""What the anti-pattern rules (:mod:`codur.validate.antipatterns`) read of a function's AST:
its own nodes (nested functions, classes and lambdas left out), its statement blocks, guards,
conditions and compound statements, and short one-line texts of nodes for the findings."""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from collections.abc import Iterator
from functools import cached_property, lru_cache

from codur.core.pyast import parse_ast

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)
#: Builtins whose call, as a statement, has no effect: deleting one deletes nothing.
PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex", "dict", "dir", "divmod",
    "enumerate", "filter", "float", "format", "frozenset", "getattr", "hasattr", "hash", "hex", "id", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "oct", "ord", "pow", "range", "repr",
    "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "vars", "zip"})
#: Comparison operators and their negations.
_INVERSE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
            ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
#: Compound statements at least this similar (difflib's ratio of their texts) are look-alikes.
SIMILAR = 0.8


class Unit:
    """A function or method ``node``; what the rules read of it is worked out once, when first
    read (an original's units are shared by all its candidates)."""

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.node = node

    @cached_property
    def dump(self) -> str:
        """``ast.dump`` of the function (no positions)."""
        return ast.dump(self.node)

    @cached_property
    def body(self) -> list[ast.stmt]:
        """Its body without the docstring."""
        body = self.node.body
        doc = body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str)
        return body[1:] if doc else body

    @cached_property
    def nodes(self) -> list[ast.AST]:
        """:func:`own` nodes, in no set order."""
        return list(own(self.node))

    @cached_property
    def compound(self) -> list[tuple[ast.stmt, str, int]]:
        """Its own loops, ``if``, ``with`` and ``try`` statements, in source order, with their
        dumps and :func:`size`."""
        found = sorted((n for n in self.nodes if isinstance(n, _COMPOUND)), key=lambda n: (n.lineno, n.col_offset))
        return [(n, ast.dump(n), size(n)) for n in found]

    @cached_property
    def texts(self) -> dict[int, str]:
        """``ast.unparse`` of its compound statements, by ``id``, filled as asked (:meth:`text`)."""
        return {}

    def text(self, node: ast.AST) -> str:
        """``ast.unparse(node)`` of one of its nodes, worked out once."""
        if id(node) not in self.texts:
            self.texts[id(node)] = ast.unparse(node)
        return self.texts[id(node)]


def own(fn: ast.AST) -> Iterator[ast.AST]:
    """Every node inside ``fn`` (not ``fn`` itself), not descending into nested functions,
    classes and lambdas (each judged on its own)."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def blocks(unit: Unit) -> Iterator[list[ast.stmt]]:
    """Every statement list of ``unit``: its body, and the bodies, ``else`` and ``finally`` parts
    of its own statements, handlers and match cases."""
    yield unit.node.body
    for node in unit.nodes:
        for name in ("body", "orelse", "finalbody"):
            part = getattr(node, name, None)
            if isinstance(part, list) and part and isinstance(part[0], ast.stmt):
                yield part


def exits(stmt: ast.stmt, *, returns_only: bool = False) -> bool:
    """``stmt`` leaves its block: ``return``, ``raise`` (and ``continue``, ``break`` unless ``returns_only``)."""
    kinds = (ast.Return, ast.Raise) if returns_only else (ast.Return, ast.Raise, ast.Continue, ast.Break)
    return isinstance(stmt, kinds)


def size(node: ast.AST) -> int:
    """Statements in ``node``, itself included."""
    return sum(isinstance(n, ast.stmt) for n in ast.walk(node))


def similar(a: str, b: str) -> bool:
    """Two statements' texts (``ast.unparse``) are look-alikes: difflib's ratio at least :data:`SIMILAR`."""
    if min(len(a), len(b)) < SIMILAR * max(len(a), len(b)):
        return False
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.quick_ratio() >= SIMILAR and matcher.ratio() >= SIMILAR


def guards(unit: Unit, *, any_if: bool = False) -> list[ast.If]:
    """``unit``'s own ``if`` statements without ``else`` whose body ends in an exit (every ``if``
    with ``any_if``), in source order."""
    ifs = [n for n in unit.nodes if isinstance(n, ast.If)]
    if not any_if:
        ifs = [n for n in ifs if not n.orelse and exits(n.body[-1])]
    return sorted(ifs, key=lambda n: (n.lineno, n.col_offset))


def conditions(unit: Unit) -> list[ast.expr]:
    """``unit``'s own conditions (of ``if``, ``while``, ``assert``, conditional expressions,
    comprehensions' ``if``), in source order."""
    out: list[ast.expr] = []
    for node in unit.nodes:
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            out.append(node.test)
        elif isinstance(node, ast.comprehension):
            out.extend(node.ifs)
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def constant(expr: ast.expr) -> bool:
    """``expr`` is a literal constant (``True``, ``0``, ``None``, ``"x"``)."""
    return isinstance(expr, ast.Constant)


def inverse(a: ast.expr, b: ast.expr) -> bool:
    """``b`` is ``a`` negated whole: ``not a`` (or ``a`` is ``not b``), or ``a``'s one comparison
    with its operator inverted (``x > 1`` and ``x <= 1``, ``k in d`` and ``k not in d``)."""
    for x, y in ((a, b), (b, a)):
        if isinstance(y, ast.UnaryOp) and isinstance(y.op, ast.Not) and ast.dump(y.operand) == ast.dump(x):
            return True
    if isinstance(a, ast.Compare) and isinstance(b, ast.Compare) and len(a.ops) == len(b.ops) == 1:
        same = ast.dump(a.left) == ast.dump(b.left) and ast.dump(a.comparators[0]) == ast.dump(b.comparators[0])
        return same and _INVERSE.get(type(a.ops[0])) is type(b.ops[0])
    return False


def weaker(a: ast.expr, b: ast.expr) -> bool:
    """``b`` is ``a`` weakened from its own parts: ``a`` is an ``or`` and ``b`` is an ``and``
    of some of its operands (``x or y`` → ``x and y``), or an ``or`` of fewer of them, or one
    of them (``x or y or z`` → ``x or z``, ``x``). Such a ``b`` holds only where ``a`` held:
    a guard with it lets through what it used to stop, and adds no condition of its own."""
    if not (isinstance(a, ast.BoolOp) and isinstance(a.op, ast.Or)):
        return False
    parts = Counter(ast.dump(v) for v in a.values)
    if not isinstance(b, ast.BoolOp):
        return ast.dump(b) in parts
    kept = Counter(ast.dump(v) for v in b.values)
    return kept <= parts and (isinstance(b.op, ast.And) or kept.total() < parts.total())


def pure_call(expr: ast.expr) -> bool | None:
    """None when ``expr`` is no call (``await`` of one counts as one); True for a call of a
    pure builtin (:data:`PURE_BUILTINS`), False for any other call."""
    call = expr.value if isinstance(expr, ast.Await) else expr
    if not isinstance(call, ast.Call):
        return None
    return isinstance(call.func, ast.Name) and call.func.id in PURE_BUILTINS


def short(source: str, node: ast.AST, *, cut: bool = False, width: int = 80) -> str:
    """``node``'s first line as written in ``source``, stripped, at most ``width`` characters
    (longer: cut, ``...``). ``cut``: a long ``and`` / ``or`` condition shows its first operand
    and ``or ...`` (``not isinstance(base, str) or ...``)."""
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if cut and isinstance(node, ast.BoolOp) and len(text) > 40:
        first = ast.get_source_segment(source, node.values[0]) or ast.unparse(node.values[0])
        text = f"{first} {'or' if isinstance(node.op, ast.Or) else 'and'} ..."
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    return line if len(line) <= width else line[:width - 3].rstrip() + "..."


def loop_key(node: ast.For | ast.AsyncFor | ast.While) -> str:
    if isinstance(node, ast.While):
        return ast.dump(node.test)
    return ast.dump(node.target) + ast.dump(node.iter)


def take(counts: Counter, key: str) -> bool:
    """Take one ``key`` off ``counts``: False when none was left."""
    if counts[key] <= 0:
        return False
    counts[key] -= 1
    return True


def dead(block: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of ``block`` after its first exit."""
    for i, stmt in enumerate(block):
        if exits(stmt):
            return block[i + 1:]
    return []


def nested(a: ast.AST, b: ast.AST) -> bool:
    return any(n is b for n in ast.walk(a)) or any(n is a for n in ast.walk(b))


def callee(stmt: ast.Expr) -> str:
    """The name a call statement calls (``append`` of ``self._undo.append(x)``): a call whose
    receiver or arguments changed is the same call."""
    func = (stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value).func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ast.dump(func)


def paired(a: list[ast.expr], b: list[ast.expr]) -> Iterator[tuple[ast.expr, ast.expr]]:
    """The (old, new) conditions that the change replaced one for one (difflib's replace blocks
    of equal length, over the conditions' dumps)."""
    matcher = difflib.SequenceMatcher(None, [ast.dump(n) for n in a], [ast.dump(n) for n in b], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            yield from zip(a[i1:i2], b[j1:j2], strict=True)


def changed_span(old: str, new: str) -> tuple[int, int]:
    """The first and last line of ``new`` (1-based) that differ from ``old``, from the common
    prefix and suffix of their lines (a deletion: the lines around it)."""
    a, b = old.splitlines(), new.splitlines()
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, max(head + 1, len(b) - tail + 1)


@lru_cache(maxsize=32)
def units(text: str) -> dict[str, Unit] | None:
    """Every function and method of ``text`` by qualified name (``Parser.parse``,
    ``outer.inner``; a second one of the same name gets ``#2``); None when it does not parse.
    Cached: a file's candidates share its original."""
    try:
        tree = parse_ast(text)
    except (SyntaxError, ValueError):
        return None
    out: dict[str, Unit] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    key = name if name not in out else f"{name}#{sum(k.split('#')[0] == name for k in out) + 1}"
                    out[key] = Unit(child)
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out
