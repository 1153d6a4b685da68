"""Mutation operators on expressions, named after the single-statement bug (SStuB) patterns.

Each operator is a function ``(node, ctx)`` registered for an AST type that adds
:class:`Change` objects to the context (statement operators live in ``statements.py``).
Operators are named after the patterns of ManySStuBs4J (Karampatsis & Sutton, "How Often
Do Single-Statement Bugs Occur? The ManySStuBs4J Dataset", MSR 2020), PySStuBs
(Kamienski et al., MSR 2021: the same patterns mined from Python projects) and TSSB-3M
(Richter & Wehrheim, "TSSB-3M: Mining single statement bugs at massive scale", MSR 2022),
in snake case. Java-only patterns (Change Modifier, Missing/Delete Throws Exception) have
no Python single-edit analogue. Classic single edits the taxonomies do not name keep
their own names: ``bound_shift``, ``index_shift``, ``slice_shift``, ``operand_shift``
(+-1), ``fstring_prefix``, ``drop_operand``, ``add_subscript``/``remove_subscript``,
``remove_function_around_expression``, ``change_recursive_argument`` and the statement
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

import ast
import builtins
import difflib
import itertools
import math
import re
import weakref
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from codur.repair.source import Edit, Source

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
               "add_subscript": 0.5, "remove_subscript": 0.5, "remove_function_around_expression": 0.5}
DECAY = 0.9  # prior factor per rank among the ranked candidates of one site


def _derive(table: dict[str, tuple[int, int | None, float]]) -> dict[str, float]:
    total = sum(count for count, _, _ in table.values())
    rates = {op: count / total / fanout for op, (count, _, fanout) in table.items()}
    best = max(rates.values())
    return {op: round(min(0.95, max(0.7, 0.95 + 0.05 * math.log2(r / best))), 2) for op, r in rates.items()}


PRIOR: dict[str, float] = {**_derive(TAXONOMY), **HAND_PRIORS}


@dataclass(frozen=True)
class Change:
    """One candidate edit, before it is checked to compile."""

    operator: str
    line: int
    edits: tuple[Edit, ...]
    description: str
    prior: float


@dataclass
class Context:
    """What operators know about the statement being mutated."""

    src: Source
    parents: dict[ast.AST, ast.AST]
    scope_names: tuple[str, ...] = ()
    index_names: tuple[str, ...] = ()  # scope names used inside subscripts
    accumulators: frozenset[str] = frozenset()  # names initialised to 0, "", [] ...
    in_loop: bool = False
    siblings: int = 1
    changes: list[Change] = field(default_factory=list)

    @property
    def facts(self) -> Facts:
        """Names, kinds, calls and attributes of the whole module (computed once per source)."""
        found = _FACTS.get(self.src)
        if found is None:
            found = _FACTS[self.src] = Facts(self.src.tree, self.parents)
        return found

    def free(self, slot: ast.AST) -> bool:
        """True if any expression may replace ``slot`` without parentheses."""
        parent = self.parents.get(slot)
        return (isinstance(parent, (ast.stmt, ast.keyword, ast.Slice, ast.List, ast.Tuple, ast.Set,
                                    ast.Dict, ast.comprehension, ast.FormattedValue))
                or isinstance(parent, ast.Call) and parent.func is not slot
                or isinstance(parent, ast.Subscript) and parent.slice is slot)

    def fill(self, slot: ast.AST, value: ast.AST) -> str:
        """Source of ``value`` to put where ``slot`` is, parenthesized only when needed."""
        text = self.src.seg(value)
        if isinstance(value, (ast.Tuple, ast.NamedExpr, ast.Starred)) or "\n" in text:
            return f"({text})"  # a line break needs the brackets it stood in
        return text if self.free(slot) else self.src.operand(value)

    def replace(self, node: ast.AST, new: str, operator: str, prior: float | None = None,
                line: int = 0) -> None:
        start, end = self.src.span(node)
        self.add(operator, node, [(start, end, new)], prior, line)

    def add(self, operator: str, node: ast.AST, spans: list[tuple[int, int, str]],
            prior: float | None = None, line: int = 0, description: str = "") -> None:
        """Record a change; ``prior`` defaults to the operator's (``PRIOR``)."""
        edits = tuple(Edit(s, e, new) for s, e, new in spans)
        if not description:
            old = " / ".join(self.src.text[s:e].strip() for s, e, _ in spans)
            description = f"replaced `{old}` with `{' / '.join(n.strip() for *_, n in spans)}`"
        prior = PRIOR[operator] if prior is None else prior
        self.changes.append(Change(operator, line or node.lineno, edits, description, prior))

    def ranked(self, node: ast.AST, texts: list[str], operator: str, limit: int,
               factor: float = 1.0) -> None:
        """Replace ``node`` by each of ``texts`` (best first, deduplicated, at most ``limit``)."""
        for i, text in enumerate(list(dict.fromkeys(texts))[:limit]):
            self.replace(node, text, operator, PRIOR[operator] * factor * DECAY ** i)


# ------------------------------------------------------------------ module facts

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SEQ_FUNCS = {"len", "sorted", "reversed", "enumerate", "zip", "sum", "list", "tuple", "set", "any",
              "all", "iter", "dict", "frozenset", "map", "filter"}
_NUM_FUNCS = {"len", "sum", "int", "abs", "round", "float", "min", "max", "ord", "pow", "divmod"}
BUILTINS = frozenset(dir(builtins))
#: what calling a method on a name says about it
_METHOD_KINDS = {**dict.fromkeys(("append", "extend", "insert", "sort", "pop", "remove", "count", "index",
                                  "reverse", "appendleft", "popleft"), {"seq"}),
                 **dict.fromkeys(("lower", "upper", "strip", "lstrip", "rstrip", "split", "startswith",
                                  "endswith", "replace", "isdigit", "isalpha", "title", "format"), {"str", "seq"}),
                 **dict.fromkeys(("items", "keys", "values", "get", "setdefault"), {"dict", "seq"})}
_ANNOTATION_KINDS = {"int": {"num"}, "float": {"num"}, "bool": {"bool"}, "str": {"str", "seq"}, "list": {"seq"},
                     "dict": {"dict", "seq"}, "set": {"seq"}, "tuple": {"seq"}}
_FACTS: weakref.WeakKeyDictionary[Source, Facts] = weakref.WeakKeyDictionary()


@dataclass
class Scope:
    """The names of one function (or of the module, ``Facts.scopes[None]``)."""

    bound: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # name -> lines
    kinds: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # name -> uses
    types: dict[str, str] = field(default_factory=dict)  # name -> class it was built from
    numbers: list[tuple[int, int | float]] = field(default_factory=list)  # (line, literal)
    conditions: list[ast.expr] = field(default_factory=list)  # tests and their and/or clauses


def use_of(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str | None:
    """How an expression is used where it stands: "seq", "num", "index", "bool", "call",
    "obj", "str" or None (unknown)."""
    p = parents.get(node)
    if isinstance(p, ast.Call):
        if p.func is node:
            return "call"
        name = p.func.id if isinstance(p.func, ast.Name) else ""
        if name == "range":
            return "num"
        if name in _SEQ_FUNCS and not (name in ("min", "max") and len(p.args) > 1):
            return "seq"
        return None
    if isinstance(p, ast.Attribute):
        return "obj"
    if isinstance(p, ast.Subscript):
        return "seq" if p.value is node else "index"
    if isinstance(p, ast.Slice) or isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub):
        return "num"
    if isinstance(p, (ast.For, ast.AsyncFor, ast.comprehension)) and p.iter is node:
        return "seq"
    if isinstance(p, ast.BinOp):
        other = p.right if p.left is node else p.left
        if _is_str(other):
            return "str"
        if not isinstance(p.op, (ast.Add, ast.Mod, ast.Mult)) or _is_num(other):
            return "num"
        return None
    if isinstance(p, ast.Compare):
        operands = [p.left, *p.comparators]
        if any(isinstance(o, (ast.In, ast.NotIn)) for o in p.ops) and node is not p.left:
            return "seq"
        if any(_is_num(o) for o in operands if o is not node) or any(
                isinstance(o, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for o in p.ops):
            return "num"
        return "str" if any(_is_str(o) for o in operands if o is not node) else None
    if (isinstance(p, (ast.If, ast.While, ast.IfExp, ast.Assert)) and p.test is node
            or isinstance(p, ast.BoolOp) or isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not)):
        return "bool"
    return None


def _is_num(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


def value_kind(value: ast.AST | None) -> set[str]:
    """Kinds of a name assigned ``value``."""
    if isinstance(value, ast.Constant):
        v = value.value
        return {"bool"} if isinstance(v, bool) else {"num"} if isinstance(v, (int, float)) else \
            {"str", "seq"} if isinstance(v, str) else set()
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return {"dict", "seq"}
    if isinstance(value, (ast.List, ast.ListComp, ast.Set, ast.SetComp, ast.GeneratorExp)):
        return {"seq"}
    if isinstance(value, ast.JoinedStr):
        return {"str", "seq"}
    if isinstance(value, (ast.Compare, ast.BoolOp)) or isinstance(value, ast.UnaryOp) and isinstance(
            value.op, ast.Not):
        return {"bool"}
    if isinstance(value, ast.BinOp) and not isinstance(value.op, (ast.Add, ast.Mult, ast.Mod)):
        return {"num"}
    if isinstance(value, ast.BinOp):
        return value_kind(value.left) | value_kind(value.right)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        name = value.func.id
        if name in ("dict", "defaultdict", "Counter", "OrderedDict"):
            return {"dict", "seq"}
        if name in ("list", "sorted", "set", "tuple", "reversed", "deque", "frozenset"):
            return {"seq"}
        if name in ("str", "repr", "chr"):
            return {"str", "seq"}
        return {"num"} if name in _NUM_FUNCS else {"str", "seq"} if name == "input" else set()
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr in ("split", "rsplit", "splitlines", "readlines"):
            return {"seq", "texts"}  # a list of strings
        if value.func.attr in ("strip", "lower", "upper", "read", "readline", "join", "replace", "format"):
            return {"str", "seq"}
    return set()


class Facts:
    """What the operators know about a module: scopes (names, kinds, where bound), the
    enclosing function of every node, functions, calls and attributes by receiver.

    ``tree`` is the module, ``parents`` maps every node to its parent.
    """

    def __init__(self, tree: ast.Module, parents: dict[ast.AST, ast.AST]):
        self.parents = parents
        self.owner: dict[ast.AST, ast.AST | None] = {}
        self.scopes: dict[ast.AST | None, Scope] = defaultdict(Scope)
        self.functions: dict[str, list[ast.AST]] = defaultdict(list)
        self.classes: dict[str, ast.ClassDef] = {}
        self.calls: dict[str, list[ast.Call]] = defaultdict(list)  # callee name -> calls
        self.attributes: dict[str, Counter] = defaultdict(Counter)  # receiver key -> data attributes
        self.methods: dict[str, Counter] = defaultdict(Counter)  # receiver key -> called methods
        self.nullary: dict[str, Counter] = defaultdict(Counter)  # receiver key -> methods called with ()
        stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
        while stack:
            node, func = stack.pop()
            self.owner[node] = func
            inner = node if isinstance(node, _FUNCS) else func
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
        for node in self.owner:
            self._bind(node)
        for node in self.owner:
            self._use(node)

    def _bind(self, node: ast.AST) -> None:
        scope = self.scopes[self.owner[node]]  # a def's own name: the enclosing scope
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            scope.bound[node.name].append(node.lineno)
            scope.kinds[node.name].add("call")
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
            else:
                self.functions[node.name].append(node)
        elif isinstance(node, ast.arg) and not isinstance(self.parents.get(self.parents.get(node)), ast.Lambda):
            func = self.owner[node]
            scope.bound[node.arg].append(func.lineno if func else node.lineno)
            ann = node.annotation
            if isinstance(ann, ast.Name):
                scope.kinds[node.arg] |= _ANNOTATION_KINDS.get(ann.id, set())
                if ann.id in self.classes or ann.id[:1].isupper():
                    scope.types[node.arg] = ann.id
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and not self.local(node):
            scope.bound[node.id].append(node.lineno)
            parent = self.parents.get(node)
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                scope.kinds[node.id] |= value_kind(parent.value)
                value = parent.value
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id[:1].isupper():
                    scope.types[node.id] = value.func.id
            elif isinstance(parent, (ast.For, ast.AsyncFor)) and isinstance(parent.iter, ast.Call) and \
                    isinstance(parent.iter.func, ast.Name) and parent.iter.func.id == "range":
                scope.kinds[node.id] |= {"num", "index"}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                scope.bound[name].append(node.lineno)
                scope.kinds[name].add("import")

    def _use(self, node: ast.AST) -> None:
        scope = self.scopes[self.owner[node]]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            kind, parent = use_of(node, self.parents), self.parents.get(node)
            if kind and not (kind == "str" and isinstance(parent, ast.BinOp)):  # that is what is in doubt
                scope.kinds[node.id].add(kind)
            if isinstance(parent, ast.Attribute):
                scope.kinds[node.id] |= _METHOD_KINDS.get(parent.attr, set())
        elif _is_num(node) and not isinstance(node.value, bool):
            scope.numbers.append((node.lineno, node.value))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert, ast.comprehension)):
            for test in node.ifs if isinstance(node, ast.comprehension) else [node.test]:
                clauses = test.values if isinstance(test, ast.BoolOp) else [test]
                scope.conditions += [c for c in clauses if not isinstance(c, ast.Constant)]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            self.calls[name].append(node)
            if isinstance(func, ast.Attribute) and (key := self.key(func.value)):
                self.methods[key][func.attr] += 1
                if not node.args and not node.keywords:
                    self.nullary[key][func.attr] += 1
        elif isinstance(node, ast.Attribute) and (key := self.key(node.value)):
            parent = self.parents.get(node)
            if not (isinstance(parent, ast.Call) and parent.func is node):
                self.attributes[key][node.attr] += 1

    def local(self, node: ast.AST) -> bool:
        """True if ``node`` binds a name local to a comprehension or lambda."""
        parent = self.parents.get(node)
        while parent is not None and not isinstance(parent, (*_FUNCS, ast.stmt)):
            if isinstance(parent, (ast.comprehension, ast.Lambda)):
                return True
            parent = self.parents.get(parent)
        return False

    def key(self, expr: ast.AST) -> str | None:
        """Receiver key: "class:C" when the type is known, else "name:x", "attr:a", "call:f"."""
        if isinstance(expr, ast.Name):
            return self.name_key(expr.id, self.owner.get(expr))
        if isinstance(expr, ast.Attribute):
            return f"attr:{expr.attr}"
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            return f"{'class' if expr.func.id in self.classes else 'call'}:{expr.func.id}"
        return None

    def name_key(self, name: str, func: ast.AST | None) -> str:
        """Receiver key of the variable ``name`` in ``func`` (see :meth:`key`)."""
        cls = self.parents.get(func) if func is not None else None
        if name in ("self", "cls") and isinstance(cls, ast.ClassDef):
            return f"class:{cls.name}"
        kind = self.scopes[func].types.get(name) if func in self.scopes else None
        return f"class:{kind}" if kind else f"name:{name}"

    def scope_of(self, node: ast.AST) -> Scope:
        return self.scopes[self.owner.get(node)]

    def comprehension_names(self, node: ast.AST) -> list[str]:
        """Names bound by the comprehensions and lambdas around ``node``."""
        out, parent = [], self.parents.get(node)
        while parent is not None and not isinstance(parent, (*_FUNCS, ast.stmt)):
            if isinstance(parent, _COMPS):
                out += [n.id for g in parent.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)]
            elif isinstance(parent, ast.Lambda):
                out += [a.arg for a in parent.args.args]
            parent = self.parents.get(parent)
        return out

    def nearest(self, node: ast.AST, need: str | None, *, limit: int = 4, exclude: tuple[str, ...] = ()) -> list[str]:
        """Names that may replace ``node`` (a use with ``need``, see :func:`use_of`), nearest
        first: the enclosing comprehensions' names, then the function's names by the distance
        of their nearest binding (a later binding counts 50 lines more; a name of another
        family than ``node``'s, numbers vs. collections, 5000 more), then module names."""
        func, line = self.owner.get(node), getattr(node, "lineno", 0)
        mine = _family(self.kinds_of(node)) if isinstance(node, ast.Name) else None
        out = [(0, n) for n in self.comprehension_names(node)]
        for level, scope in ((0, self.scopes[func]), (1, self.scopes[None] if func is not None else None)):
            if scope is None:
                continue
            for name, lines in scope.bound.items():
                if level and name in self.scopes[func].bound:
                    continue
                kinds = self.kinds_named(name, func)
                if not _fits(need, kinds):
                    continue
                dist = min(line - b if b <= line else b - line + 50 for b in lines)
                other = mine and _family(kinds) not in (mine, None)
                out.append((dist + 10_000 * level + 5_000 * bool(other), name))
        skip = {getattr(node, "id", None), "self", "cls", "_", *exclude}
        return [n for _, n in sorted(out) if n not in skip][:limit]

    def kinds_named(self, name: str, func: ast.AST | None) -> set[str]:
        """How the variable ``name`` of ``func`` is used (see :func:`use_of`)."""
        kinds = self.scopes[func].kinds.get(name) if name in self.scopes[func].bound else None
        return kinds if kinds is not None else self.scopes[None].kinds.get(name, set())

    def kinds_of(self, node: ast.Name) -> set[str]:
        return self.kinds_named(node.id, self.owner.get(node))

    def arity(self, name: str) -> tuple[int, float] | None:
        """(required, maximum) positional arguments of the module's function ``name``
        (``self`` not counted for methods); None if it is not defined here."""
        defs = self.functions.get(name)
        if not defs:
            return None
        args = defs[0].args
        params = [a.arg for a in args.posonlyargs + args.args]
        if params[:1] in (["self"], ["cls"]):
            params = params[1:]
        return len(params) - len(args.defaults), math.inf if args.vararg else len(params)


def _family(kinds: set[str]) -> str | None:
    """"num" or "seq" when the kinds say which, else None."""
    num, seq = kinds & {"num", "index", "bool"}, kinds & {"seq", "str", "dict"}
    return "num" if num and not seq else "seq" if seq and not num else None


def _fits(need: str | None, kinds: set[str]) -> bool:
    """True if a name used as ``kinds`` elsewhere may stand where ``need`` is expected."""
    if "import" in kinds:
        return False
    if need == "call":
        return "call" in kinds
    if kinds and kinds <= {"call"}:
        return False
    if need == "seq":
        return bool(kinds & {"seq", "str", "dict", "obj"}) or not kinds & {"num", "bool", "index"}
    if need == "index":
        return bool(kinds & {"num", "index"}) or not kinds & {"seq", "str", "dict", "bool"}
    if need == "num":
        return bool(kinds & {"num", "index", "bool"}) or not kinds & {"seq", "str", "dict"}
    if need == "str":
        return "str" in kinds or not kinds & {"num", "bool", "index", "seq"}
    return True


# ------------------------------------------------------------------ helpers

SYM = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
       ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
       ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
       ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
       ast.LShift: "<<", ast.RShift: ">>", ast.MatMult: "@", ast.And: "and", ast.Or: "or"}
_CMP_SWAPS = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="],
              "==": ["!="], "!=": ["=="], "is": ["is not"], "is not": ["is"],
              "in": ["not in"], "not in": ["in"]}
BIN_SWAPS = {"+": ["-", "*"], "-": ["+"], "*": ["/", "+"], "/": ["*", "//"], "//": ["/", "%"],
             "%": ["//"], "**": ["*"], "&": ["|", "^"], "|": ["&", "^"], "^": ["&", "|"],
             "<<": [">>"], ">>": ["<<"]}
#: the +-1 that equals flipping the comparison's strictness: x OP (c + d), (c + d) OP x
_FLIP_RIGHT = {ast.Gt: -1, ast.LtE: -1, ast.GtE: 1, ast.Lt: 1}
_FLIP_LEFT = {ast.Lt: -1, ast.GtE: -1, ast.LtE: 1, ast.Gt: 1}
_COMMUTATIVE = {"*", "&", "|", "^"}  # swapped operands of these are equivalent mutants
#: builtins of the same arity that stand in for each other (wrong_function_name)
_FUNC_SWAPS = {"any": ["all"], "all": ["any"], "min": ["max"], "max": ["min"], "sorted": ["reversed"],
               "reversed": ["sorted"], "str": ["repr"], "repr": ["str"], "int": ["round", "float"],
               "round": ["int"], "float": ["int"], "list": ["sorted", "set"], "set": ["list", "sorted"],
               "sum": ["len", "max"], "len": ["sum"], "map": ["filter"], "filter": ["map"],
               "isinstance": ["issubclass"], "hasattr": ["getattr"], "getattr": ["hasattr"]}
_METHOD_SWAPS = {"startswith": ["endswith"], "endswith": ["startswith"], "lower": ["upper"],
                 "upper": ["lower"], "lstrip": ["rstrip", "strip"], "rstrip": ["lstrip", "strip"],
                 "strip": ["rstrip", "lstrip"], "find": ["rfind", "index"], "rfind": ["find"],
                 "index": ["rindex", "find"], "rindex": ["index"], "floor": ["ceil"], "ceil": ["floor"],
                 "keys": ["values"], "values": ["keys", "items"], "items": ["values"], "ljust": ["rjust"],
                 "rjust": ["ljust"], "append": ["extend"], "extend": ["append"], "add": ["update"],
                 "update": ["add"], "remove": ["discard"], "discard": ["remove"], "split": ["rsplit"],
                 "rsplit": ["split"], "partition": ["rpartition"], "rpartition": ["partition"],
                 "isupper": ["islower"], "islower": ["isupper"], "isdigit": ["isalpha", "isalnum"],
                 "isalpha": ["isdigit", "isalnum"], "pop": ["popleft"], "popleft": ["pop"],
                 "appendleft": ["append"], "argmin": ["argmax"], "argmax": ["argmin"],
                 "get": ["pop", "setdefault"], "setdefault": ["get"], "sort": ["reverse"]}
#: one-argument builtins that convert or reorder: unwrapped by remove_function_around_expression
_WRAPPERS = {"int", "float", "str", "list", "tuple", "set", "sorted", "reversed", "abs", "round",
             "bool", "len", "iter", "repr", "frozenset"}
_ITERATORS = {"map", "filter", "zip", "range", "reversed", "enumerate"}
_FSTRING_FIELD = re.compile(r"\{[A-Za-z_][\w.\[\]'\"]*(![rsa])?(:[^{}]*)?\}")
_IDENTIFIERS = 3  # nearest replacement names per site
_ATTRIBUTES = 2  # sibling attributes / methods per site


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pattern(sym: str) -> str:
    if sym[0].isalpha():
        return r"\b" + sym.replace(" ", r"\s+") + r"\b"
    return re.escape(sym)


def shifted(node: ast.expr, delta: int, src: Source) -> str:
    """Source of ``node`` plus ``delta`` (+1/-1), folding integer literals: ``n - 1`` -> ``n``."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value + delta)
    if (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))
            and isinstance(node.right, ast.Constant) and type(node.right.value) is int):
        value = (node.right.value if isinstance(node.op, ast.Add) else -node.right.value) + delta
        left = src.seg(node.left)
        return left if value == 0 else f"{left} {'+' if value > 0 else '-'} {abs(value)}"
    text = src.seg(node)
    if isinstance(node, (ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda, ast.NamedExpr)) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)) or (
            isinstance(node, ast.BinOp) and SYM[type(node.op)] in "&|^<<>>"):
        text = f"({text})"
    return f"{text} {'+' if delta > 0 else '-'} 1"


def plus_minus(node: ast.expr, ctx: Context, operator: str, prior: float | None = None) -> None:
    """Replace ``node`` by itself +1 and -1 (parenthesized where precedence needs it)."""
    if isinstance(node, (ast.Constant, ast.Starred)) and type(getattr(node, "value", 0)) is not int:
        return
    parent = ctx.parents.get(node)
    bare = isinstance(node, ast.Constant) or ctx.free(node) or isinstance(parent, ast.Compare) or (
        isinstance(parent, ast.BinOp) and (isinstance(parent.op, ast.Add)
                                           or isinstance(parent.op, ast.Sub) and parent.left is node))
    skip = None  # on integers, `x > c - 1` is `x >= c`: the strictness flip change_binary_operator makes
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1:
        side = _FLIP_RIGHT if parent.comparators[0] is node else _FLIP_LEFT
        skip = side.get(type(parent.ops[0]))
    for delta in (1, -1):
        if delta == skip:
            continue
        text = shifted(node, delta, ctx.src)
        ctx.replace(node, text if bare else f"({text})", operator, prior)


def negate(node: ast.expr, ctx: Context, prior: float | None = None) -> None:
    """Wrap a condition in ``not`` (the removal of an existing ``not`` is op_unaryop's)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return
    text = ctx.src.seg(node)
    simple = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Compare))
    ctx.replace(node, f"not {text}" if simple else f"not ({text})", "change_unary_operator", prior)


def _clause(node: ast.expr, src: Source, joiner: str) -> str:
    """Source of ``node`` as an operand of ``joiner`` ("and"/"or")."""
    text = src.seg(node)
    loose = isinstance(node, (ast.IfExp, ast.Lambda, ast.NamedExpr)) or "\n" in text or (
        joiner == "and" and isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or))
    return f"({text})" if loose else text


def add_clauses(test: ast.expr, ctx: Context) -> None:
    """More/less specific conditions: ``test and <c>``, ``test or <c>`` for the function's
    other conditions (nearest first), and ``x is not None and test`` for a receiver ``x``."""
    facts = ctx.facts
    own = {ctx.src.seg(test)} | {ctx.src.seg(v) for v in getattr(test, "values", [])}
    others, seen = [], set(own)
    for cond in sorted(facts.scope_of(test).conditions, key=lambda c: abs(c.lineno - test.lineno)):
        text = ctx.src.seg(cond)
        names = {n.id for n in ast.walk(cond) if isinstance(n, ast.Name)}
        if text not in seen and not names & set(facts.comprehension_names(cond)):
            seen.add(text)
            others.append(cond)
    for joiner, operator in (("and", "more_specific_if"), ("or", "less_specific_if")):
        texts = [f"{_clause(test, ctx.src, joiner)} {joiner} {_clause(c, ctx.src, joiner)}" for c in others]
        ctx.ranked(test, texts, operator, 2)
    guarded = [n.value.id for n in ast.walk(test) if isinstance(n, ast.Attribute)
               and isinstance(n.value, ast.Name) and n.value.id not in ("self", "cls")]
    texts = [f"{name} is not None and {_clause(test, ctx.src, 'and')}" for name in guarded]
    ctx.ranked(test, texts, "more_specific_if", 1)


# ------------------------------------------------------------------ binary, boolean, unary operators

def op_compare(node: ast.Compare, ctx: Context) -> None:
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        sym = SYM[type(op)]
        span = ctx.src.token(operands[i], operands[i + 1], _pattern(sym))
        for new in _CMP_SWAPS[sym] if span else ():
            ctx.add("change_binary_operator", node, [(*span, new)])
        a, b = operands[i], operands[i + 1]
        if sym in ("in", "not in") and not isinstance(b, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Call)):
            (as_, ae), (bs, be) = ctx.src.span(a), ctx.src.span(b)  # `word in line` for `line in word`
            ctx.add("change_binary_operand", node, [(as_, ae, ctx.src.operand(b)), (bs, be, ctx.src.operand(a))],
                    description=f"swapped `{_short(ctx.src.seg(a))}` and `{_short(ctx.src.seg(b))}`")


def _leaves(node: ast.BinOp) -> list[ast.expr]:
    """Operands of a left-nested chain of one operator: ``x + sep + y`` -> [x, sep, y]."""
    out: list[ast.expr] = []
    while isinstance(node, ast.BinOp) and isinstance(node.left, ast.BinOp) and type(node.left.op) is type(node.op):
        out.insert(0, node.right)
        node = node.left
    return [node.left, node.right, *out]


def op_binop(node: ast.BinOp, ctx: Context) -> None:
    sym = SYM[type(node.op)]
    span = ctx.src.token(node.left, node.right, _pattern(sym))
    text = sym == "+" and any(_is_str(x) for x in (node.left, node.right))  # a concatenation
    for new in BIN_SWAPS.get(sym, []) if span and not text else ():
        ctx.add("change_binary_operator", node, [(*span, new)])
    for keep in (node.left, node.right):
        ctx.replace(node, ctx.fill(node, keep), "drop_operand")
    if isinstance(node.op, (ast.Mult, ast.FloorDiv, ast.Mod)):
        # a 1-based count used as a 0-based offset: number * size -> (number - 1) * size
        for operand in (node.left, node.right):
            if isinstance(operand, ast.Name):
                plus_minus(operand, ctx, "operand_shift")
    parent = ctx.parents.get(node)
    if sym in _COMMUTATIVE or isinstance(parent, ast.BinOp) and parent.left is node and type(parent.op) is type(
            node.op):
        return  # equivalent swaps, or an inner link of a chain (its top node swaps the leaves)
    leaves = _leaves(node)
    ordered = sym != "+" or any(_is_str(x) or isinstance(x, (ast.List, ast.Tuple, ast.ListComp)) or isinstance(
        x, ast.Name) and ctx.facts.kinds_of(x) & {"seq", "str"} for x in leaves)
    factor = 1.0 if ordered else 0.5  # numbers, as far as we can tell: the swap is likely equivalent
    pairs = list(itertools.pairwise(leaves)) + ([(leaves[0], leaves[-1])] if len(leaves) > 2 else [])
    if sym not in ("-", "/", "**"):  # `4 % year`, `1 << n` for `n << 1`: rarely meant
        pairs = [(a, b) for a, b in pairs if not (_is_num(a) or _is_num(b))]
    for a, b in pairs[:3]:
        (as_, ae), (bs, be) = ctx.src.span(a), ctx.src.span(b)
        ctx.add("change_binary_operand", node, [(as_, ae, ctx.src.operand(b)), (bs, be, ctx.src.operand(a))],
                PRIOR["change_binary_operand"] * factor,
                description=f"swapped `{_short(ctx.src.seg(a))}` and `{_short(ctx.src.seg(b))}`")


def op_boolop(node: ast.BoolOp, ctx: Context) -> None:
    sym = SYM[type(node.op)]
    spans = [ctx.src.token(a, b, _pattern(sym)) for a, b in itertools.pairwise(node.values)]
    if all(spans):
        new = "or" if sym == "and" else "and"
        ctx.add("change_binary_operator", node, [(*s, new) for s in spans])
    # dropping an `and` clause makes a condition less specific, dropping an `or` clause more
    operator = "less_specific_if" if sym == "and" else "more_specific_if"
    for i, value in enumerate(node.values):
        if len(node.values) == 2:
            ctx.replace(node, ctx.fill(node, node.values[1 - i]), operator)
        else:
            prev = node.values[i - 1] if i else None
            start = ctx.src.span(prev)[1] if prev else ctx.src.span(value)[0]
            end = ctx.src.span(value)[1] if prev else ctx.src.span(node.values[1])[0]
            ctx.add(operator, value, [(start, end, "")],
                    description=f"dropped the condition `{ctx.src.seg(value)}`")


def op_unaryop(node: ast.UnaryOp, ctx: Context) -> None:
    if isinstance(node.op, (ast.Not, ast.USub, ast.UAdd, ast.Invert)):
        ctx.replace(node, ctx.fill(node, node.operand), "change_unary_operator")


def op_lambda(node: ast.Lambda, ctx: Context) -> None:
    """A sort key that should be descending: ``key=lambda r: r[1]`` -> ``-r[1]``."""
    parent = ctx.parents.get(node)
    if isinstance(parent, ast.keyword) and parent.arg == "key" and not isinstance(node.body, ast.Tuple):
        ctx.replace(node.body, f"-{ctx.src.operand(node.body)}", "change_unary_operator")


# ------------------------------------------------------------------ literals

def op_constant(node: ast.Constant, ctx: Context) -> None:
    value, parent = node.value, ctx.parents.get(node)
    if isinstance(value, bool):
        ctx.replace(node, str(not value), "change_boolean_literal")
        if isinstance(parent, (ast.If, ast.While, ast.Return, ast.Assign, ast.keyword)):
            names = ctx.facts.nearest(node, "bool", limit=6)  # `while True` -> `while <flag>`
            flags = [n for n in names if "bool" in ctx.facts.scope_of(node).kinds.get(n, ())]
            ctx.ranked(node, flags, "change_boolean_literal", 2, 0.8)
        if isinstance(parent, ast.keyword):
            ctx.replace(node, "None", "change_boolean_literal", PRIOR["change_boolean_literal"] * 0.5)
    elif value is None and isinstance(parent, (ast.keyword, ast.Assign)):
        for new in ("False", "True"):
            ctx.replace(node, new, "change_boolean_literal", PRIOR["change_boolean_literal"] * 0.5)
    elif isinstance(value, (int, float)):
        _numeric(node, ctx)
    elif isinstance(value, str):
        if _FSTRING_FIELD.search(value) and not isinstance(parent, ast.JoinedStr):
            start, _ = ctx.src.span(node)
            if ctx.src.text[start] in "\"'rR":
                ctx.add("fstring_prefix", node, [(start, start, "f")],
                        description=f"added the f-string prefix to `{_short(ctx.src.seg(node))}`")
        if value.strip().lstrip("-").isdigit() and not isinstance(parent, ast.JoinedStr):
            ctx.replace(node, str(int(value)), "change_constant_type")


def _numeric(node: ast.Constant, ctx: Context) -> None:
    """Change numeric literal: +-1, 0 <-> 1.0 for floats, and the function's nearest other literals."""
    value = node.value
    if type(value) is int:
        plus_minus(node, ctx, "change_numeric_literal")
    elif value in (0.0, 1.0):
        ctx.replace(node, "1.0" if value == 0 else "0.0", "change_numeric_literal")
    scope = ctx.facts.scope_of(node)
    near = sorted((abs(line - node.lineno), v) for line, v in scope.numbers  # other lines: other roles
                  if line != node.lineno and v != value and not (type(value) is int and abs(v - value) == 1))
    ctx.ranked(node, [repr(v) for _, v in near], "change_numeric_literal", 1, DECAY)
    parent = ctx.parents.get(node)
    equality = isinstance(parent, ast.Compare) and all(isinstance(o, (ast.Eq, ast.NotEq, ast.In)) for o in parent.ops)
    if type(value) is int and (equality or isinstance(parent, ast.Dict) or (
            isinstance(parent, ast.Subscript) and parent.slice is node and value > 9)):
        ctx.replace(node, f'"{value}"', "change_constant_type")  # a key or a code kept as text


def op_display(node: ast.List | ast.Tuple | ast.Set, ctx: Context) -> None:
    """Add elements to iterable: a missing direction in a list of numeric tuples."""
    items = [e for e in node.elts if isinstance(e, ast.Tuple) and e.elts and all(
        _is_num(x) or isinstance(x, ast.UnaryOp) and _is_num(x.operand) for x in e.elts)]
    if len(items) < 2 or len(items) != len(node.elts):
        return
    values = {tuple(ast.literal_eval(x) for x in e.elts) for e in items}
    missing = [tuple(-v for v in t) for t in sorted(values)]
    missing = [m for m in dict.fromkeys(missing) if m not in values]
    end = ctx.src.span(node.elts[-1])[1]
    for m in missing[:2]:
        text = "(" + ", ".join(map(str, m)) + ")"
        ctx.add("add_elements_to_iterable", node, [(end, end, f", {text}")],
                description=f"added `{text}` to `{_short(ctx.src.seg(node))}`")


# ------------------------------------------------------------------ names and attributes

def op_name(node: ast.Name, ctx: Context) -> None:
    """Change identifier used: the nearest names of a compatible kind (index names first in a
    subscript); a stored name (``lo = mid`` -> ``hi = mid``) by the function's other names."""
    parent, facts = ctx.parents.get(node), ctx.facts
    if node.id in ("self", "cls", "_") or isinstance(parent, ast.Call) and parent.func is node:
        return  # a called name: wrong_function_name (op_call)
    kinds = facts.kinds_of(node)
    if isinstance(node.ctx, ast.Store):
        if isinstance(parent, (ast.Assign, ast.AugAssign)):
            need = "num" if "num" in kinds else "seq" if "seq" in kinds else None
            ctx.ranked(node, facts.nearest(node, need), "change_identifier_used", 2, DECAY)
        return
    if not isinstance(node.ctx, ast.Load) or "import" in kinds:
        return
    need = use_of(node, ctx.parents)
    grand = ctx.parents.get(parent)
    if need == "obj" and isinstance(grand, ast.Call) and grand.func is parent:
        return  # the caller of a method: same_function_wrong_caller (op_attribute)
    stmt = parent
    while stmt is not None and not isinstance(stmt, ast.stmt):
        stmt = ctx.parents.get(stmt)
    loop = isinstance(stmt, (ast.For, ast.AsyncFor)) and node in set(ast.walk(stmt.iter))
    targets = tuple(n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)) if loop else ()
    names = facts.nearest(node, need, limit=8, exclude=targets)  # not `for x in x`
    if need == "index":
        names = [n for n in names if n in ctx.index_names] + names
    ctx.ranked(node, names, "change_identifier_used", _IDENTIFIERS)
    if need != "obj":
        _access(node, need, kinds, ctx)


def _access(node: ast.Name, need: str | None, kinds: set[str], ctx: Context) -> None:
    """Add attribute access / method call / subscript / ``len()`` to a bare name."""
    facts, x, parent = ctx.facts, node.id, ctx.parents.get(node)
    key = facts.key(node)
    attrs = [a for a, _ in facts.attributes.get(key, Counter()).most_common()]
    ctx.ranked(node, [f"{x}.{a}" for a in attrs], "add_attribute_access", 2)
    iterated = isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node
    methods = [m for m, _ in facts.nullary.get(key, Counter()).most_common()]
    if iterated and ("dict" in kinds or isinstance(parent.target, ast.Tuple) and len(parent.target.elts) == 2):
        methods = ["items", "values", *methods]
    elif need == "str" or "str" in kinds:
        methods += ["lower", "strip"]
    ctx.ranked(node, [f"{x}.{m}()" for m in methods], "add_method_call", 2)
    if not kinds & {"seq", "str"} or "dict" in kinds or isinstance(parent, ast.Subscript):
        return
    if need == "seq":
        texts = [f"{x}[1:]", f"{x}[:-1]"]
    else:
        loops = [n.id for loop in _enclosing_loops(node, ctx) for n in ast.walk(loop.target)
                 if isinstance(n, ast.Name) and n.id != x and "index" in facts.scope_of(node).kinds.get(n.id, ())]
        texts = [f"{x}[{i}]" for i in loops[:1]] + [f"{x}[0]", f"{x}[-1]"]
    ctx.ranked(node, texts, "add_subscript", 3)
    if need == "num":
        ctx.replace(node, f"len({x})", "add_function_around_expression")


def _enclosing_loops(node: ast.AST, ctx: Context) -> list[ast.For]:
    out, parent = [], ctx.parents.get(node)
    while parent is not None and not isinstance(parent, _FUNCS):
        if isinstance(parent, (ast.For, ast.AsyncFor)) and node not in ast.walk(parent.iter):
            out.append(parent)
        parent = ctx.parents.get(parent)
    return out


def op_attribute(node: ast.Attribute, ctx: Context) -> None:
    """Wrong (method) function name and change of caller for ``a.f()``; change attribute used
    for ``a.x``: siblings seen on the same receiver (or type) elsewhere in the module."""
    facts, parent = ctx.facts, ctx.parents.get(node)
    end = ctx.src.span(node)[1]
    span = (end - len(node.attr), end)
    if ctx.src.text[span[0]:end] != node.attr:
        return
    key = facts.key(node.value)
    if not (isinstance(parent, ast.Call) and parent.func is node):
        attrs = [a for a, _ in facts.attributes.get(key, Counter()).most_common() if a != node.attr]
        for i, attr in enumerate(attrs[:_ATTRIBUTES]):
            ctx.add("change_attribute_used", node, [(*span, attr)], PRIOR["change_attribute_used"] * DECAY ** i)
        return
    methods = _METHOD_SWAPS.get(node.attr, []) + [m for m, _ in facts.methods.get(key, Counter()).most_common()]
    cls = facts.classes.get(key[6:]) if key and key.startswith("class:") else None
    methods += [d.name for d in (cls.body if cls else []) if isinstance(d, _FUNCS) and not d.name.startswith("__")]
    methods = [m for m in dict.fromkeys(methods) if m != node.attr and _arity_fits(m, parent, facts)]
    for i, method in enumerate(methods[:_ATTRIBUTES]):
        ctx.add("wrong_function_name", node, [(*span, method)], PRIOR["wrong_function_name"] * DECAY ** i)
    receiver = node.value
    if isinstance(receiver, ast.Name) and receiver.id not in ("self", "cls") and \
            "import" not in facts.kinds_of(receiver):
        func, mine = facts.owner.get(node), _family(facts.kinds_of(receiver))
        ranked = []
        for name in facts.nearest(receiver, "obj", limit=8):
            if node.attr in facts.methods.get(facts.name_key(name, func), ()):
                ranked.append((0, name))  # the method is called on it elsewhere
            elif _family(facts.kinds_named(name, func)) in (mine, None) and mine != "num":
                ranked.append((1, name))
        ctx.ranked(receiver, [n for _, n in sorted(ranked, key=lambda r: r[0])], "same_function_wrong_caller", 2)


def _arity_fits(name: str, call: ast.Call, facts: Facts) -> bool:
    """True unless what the module knows of ``name`` (its def, its other calls) rules out
    ``call``'s number of positional arguments."""
    n = len(call.args)
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    arity = facts.arity(name)
    if arity is not None:
        return arity[0] <= n + len(call.keywords) and n <= arity[1]
    seen = {len(c.args) for c in facts.calls.get(name, [])}
    return not seen or n in seen


# ------------------------------------------------------------------ calls

def op_call(node: ast.Call, ctx: Context) -> None:
    func = node.func
    if isinstance(func, ast.Name):
        _function_name(node, func, ctx)
        if func.id == "range":
            for arg in node.args:
                plus_minus(arg, ctx, "bound_shift")
        if func.id == "len":
            plus_minus(node, ctx, "bound_shift", 0.9)  # len(xs) -> len(xs) - 1
        args = node.args
        if len(args) == 1 and not node.keywords and not isinstance(args[0], ast.Starred) and func.id not in (
                "print", "range", "len", "iter", "next", "type", "id", "hash", "super", "isinstance"):
            factor = 1.0 if func.id in _WRAPPERS else 0.8  # f(x) -> x
            ctx.replace(node, ctx.fill(node, args[0]), "remove_function_around_expression",
                        PRIOR["remove_function_around_expression"] * factor)
        if func.id in ("max", "min") and len(args) == 2 and not node.keywords:
            for bound, value in (args, args[::-1]):
                if _is_num(bound) and not isinstance(value, ast.Starred):
                    ctx.replace(node, ctx.fill(node, value), "remove_function_around_expression")
    _arguments(node, ctx)
    _recursive(node, ctx)


def _function_name(node: ast.Call, func: ast.Name, ctx: Context) -> None:
    """Wrong function name: a builtin of the same arity, or a sibling module function that
    accepts the call's arguments (most similar name first)."""
    facts, name = ctx.facts, func.id
    alts = list(_FUNC_SWAPS.get(name, []))
    if name in facts.functions or name not in BUILTINS | facts.classes.keys() and "import" not in facts.kinds_of(func):
        siblings = [f for f, defs in facts.functions.items() if f != name and isinstance(
            facts.parents.get(defs[0]), ast.Module) and _arity_fits(f, node, facts)]
        siblings.sort(key=lambda f: -difflib.SequenceMatcher(None, name, f).ratio())
        alts += siblings
    ctx.ranked(func, alts, "wrong_function_name", _ATTRIBUTES)


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _arguments(node: ast.Call, ctx: Context) -> None:
    """Same function with swapped, fewer or more arguments, or another keyword."""
    src, facts, name = ctx.src, ctx.facts, _callee(node)
    args = [a for a in node.args if not isinstance(a, ast.Starred)]
    for a, b in itertools.pairwise(args):
        (as_, ae), (bs, be) = src.span(a), src.span(b)
        ctx.add("same_function_swap_args", node, [(as_, ae, src.seg(b)), (bs, be, src.seg(a))],
                description=f"swapped the arguments `{_short(src.seg(a))}` and `{_short(src.seg(b))}`")
    own = isinstance(node.func, ast.Name) or isinstance(node.func, ast.Attribute) and isinstance(
        node.func.value, ast.Name) and node.func.value.id in ("self", "cls")
    arity = facts.arity(name) if own else None
    others = [c for c in facts.calls.get(name, []) if c is not node]
    items = sorted([*node.args, *node.keywords], key=lambda n: src.span(n))
    for item in ([items[-1]] if items else []) + ([node.args[-1]] if node.keywords and node.args else []):
        positional = not isinstance(item, ast.keyword)
        if positional and (isinstance(item, ast.Starred) or len(node.args) < 2 and not (
                arity and arity[0] < len(node.args) or any(len(c.args) < len(node.args) for c in others))):
            continue
        k = items.index(item)
        start = src.span(items[k - 1])[1] if k else src.span(item)[0]
        end = src.span(items[k + 1])[0] if not k and len(items) > 1 else src.span(item)[1]
        ctx.add("same_function_less_args", node, [(start, end, "")],
                description=f"dropped the argument `{_short(src.seg(item))}`")
    _more_arguments(node, ctx, arity, others)
    params = []
    if arity is not None:
        a = facts.functions[name][0].args
        params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")]
    used = {k.arg for k in node.keywords}
    params += [k.arg for c in others for k in c.keywords if k.arg]
    for kw in node.keywords:
        start = src.span(kw)[0]
        if kw.arg is None or src.text[start:start + len(kw.arg)] != kw.arg:
            continue
        alts = [p for p in dict.fromkeys(params) if p not in used]
        for i, alt in enumerate(alts[:2]):
            ctx.add("change_keyword_argument_used", kw, [(start, start + len(kw.arg), alt)],
                    PRIOR["change_keyword_argument_used"] * DECAY ** i)


def _more_arguments(node: ast.Call, ctx: Context, arity: tuple[int, float] | None,
                    others: list[ast.Call]) -> None:
    """Same function, more arguments: the next argument of another call of it, or the next
    parameter of its definition when a variable of that name is in scope."""
    src, facts = ctx.src, ctx.facts
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return
    visible = set(facts.scope_of(node).bound) | set(facts.scopes[None].bound) | set(
        facts.comprehension_names(node)) | BUILTINS
    n, used = len(node.args), {k.arg for k in node.keywords}
    found: Counter = Counter()
    for call in others:
        extra = [("arg", src.seg(call.args[n]), call.args[n])] if len(call.args) > n else []
        extra += [("kw", src.seg(k), k.value) for k in call.keywords if k.arg and k.arg not in used]
        for kind, text, value in extra:
            if {x.id for x in ast.walk(value) if isinstance(x, ast.Name)} <= visible:
                found[(kind, text)] += 1
    if arity is not None and n < arity[1]:
        a = ctx.facts.functions[_callee(node)][0].args
        params = [p.arg for p in a.posonlyargs + a.args if p.arg not in ("self", "cls")]
        if n < len(params) and params[n] in facts.scope_of(node).bound and params[n] not in used:
            found[("arg", params[n])] += 1
    end = src.span(node)[1]
    if src.text[end - 1:end] != ")":
        return
    last = max([src.span(x)[1] for x in [*node.args, *node.keywords]], default=None)
    open_ = src.text.index("(", src.span(node.func)[1]) + 1
    for i, ((kind, text), _) in enumerate(found.most_common(3)):
        if kind == "arg" and node.args:
            spans = [(src.span(node.args[-1])[1],) * 2 + (f", {text}",)]
        elif kind == "arg":
            spans = [(open_, open_, f"{text}, " if node.keywords else text)]
        else:
            spans = [(last, last, f", {text}")] if last is not None else [(open_, open_, text)]
        ctx.add("same_function_more_args", node, spans, PRIOR["same_function_more_args"] * DECAY ** i,
                description=f"added the argument `{_short(text)}` to `{_short(src.seg(node))}`")


def _recursive(node: ast.Call, ctx: Context) -> None:
    """A recursive call's arguments: ``f(n)`` -> ``f(n - 1)``, ``f(xs)`` -> ``f(xs[1:])``."""
    facts, callee = ctx.facts, node.func
    func = facts.owner.get(node)
    if func is None or not (isinstance(callee, ast.Name) and callee.id == func.name or isinstance(
            callee, ast.Attribute) and callee.attr == func.name and isinstance(callee.value, ast.Name)
            and callee.value.id in ("self", "cls")):
        return
    for arg in node.args:
        if isinstance(arg, (ast.Starred, ast.Constant)):
            continue
        sequence = isinstance(arg, ast.Subscript) and isinstance(arg.slice, ast.Slice) or isinstance(
            arg, ast.Name) and facts.kinds_of(arg) & {"seq", "str"}
        if sequence:
            ctx.replace(arg, f"{ctx.src.operand(arg)}[1:]", "change_recursive_argument")
        else:
            plus_minus(arg, ctx, "change_recursive_argument")


# ------------------------------------------------------------------ subscripts and wrappers

def op_subscript(node: ast.Subscript, ctx: Context) -> None:
    index = node.slice
    if isinstance(index, ast.Slice):
        for bound in (index.lower, index.upper):
            if bound is not None:
                plus_minus(bound, ctx, "slice_shift")
    else:
        for elt in index.elts if isinstance(index, ast.Tuple) else [index]:
            if not isinstance(elt, ast.Slice) and not _is_str(elt):
                plus_minus(elt, ctx, "index_shift")
    if isinstance(node.ctx, ast.Load):
        ctx.replace(node, ctx.fill(node, node.value), "remove_subscript")


def _beside(node: ast.AST, parent: ast.AST | None) -> ast.AST | None:
    """The other operand of the binary operation, comparison or augmented assignment ``node``
    is an operand of."""
    if isinstance(parent, ast.BinOp):
        return parent.right if parent.left is node else parent.left
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1:
        return parent.comparators[0] if parent.left is node else parent.left
    return parent.target if isinstance(parent, ast.AugAssign) and parent.value is node else None


def op_wrap(node: ast.expr, ctx: Context) -> None:
    """Add function around expression: ``abs``/``max(0, .)`` of a difference, ``int``/``round``
    of a quotient, ``list`` of an iterator, ``sorted`` of an iterated or returned collection,
    ``str`` of a non-string concatenated to a string, ``int`` of text used as a number."""
    parent, text, facts = ctx.parents.get(node), ctx.src.seg(node), ctx.facts
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in (
            _WRAPPERS | {"max", "min", "list", "sorted", "set", "tuple"}):
        return
    callee = _callee(node) if isinstance(node, ast.Call) else ""
    kinds = facts.kinds_of(node) if isinstance(node, ast.Name) else set()
    beside = _beside(node, parent)
    texts = []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        texts += [f"abs({text})", f"max(0, {text})"]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        texts += [f"int({text})", f"round({text})"]
    iterated = isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node
    collection = kinds & {"seq", "dict"} or callee in ("set", "keys", "values", "items")
    if iterated and callee not in ("range", "enumerate", "zip", "sorted", "reversed") or (
            isinstance(parent, ast.Return) and collection):
        texts.append(f"sorted({text})")
    if not iterated and callee in _ITERATORS | {"keys", "values", "items"} and isinstance(
            parent, (ast.Return, ast.Assign, ast.Compare)):
        texts.append(f"list({text})")
    textual = "str" in kinds or isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and (
        "texts" in facts.kinds_of(node.value))
    if textual and beside is not None and not _is_str(beside):
        texts.append(f"int({text})")  # text from input() or split() used as a number
    stringy = textual or callee in ("str", "repr", "format", "join", "lower", "upper", "strip")
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and not stringy and isinstance(
            parent, ast.BinOp) and isinstance(parent.op, ast.Add) and _is_str(beside):
        texts.append(f"str({text})")
    ctx.ranked(node, texts, "add_function_around_expression", 2)


def op_ifexp(node: ast.IfExp, ctx: Context) -> None:
    negate(node.test, ctx)


def op_comprehension(node: ast.comprehension, ctx: Context) -> None:
    for cond in node.ifs:
        negate(cond, ctx)


Operator = Callable[[ast.AST, Context], None]
#: Expression operators by node type (statement operators: ``statements.py``).
OPERATORS: dict[type, tuple[Operator, ...]] = {
    ast.Compare: (op_compare,), ast.BinOp: (op_binop, op_wrap), ast.BoolOp: (op_boolop,),
    ast.UnaryOp: (op_unaryop,), ast.Constant: (op_constant,), ast.Call: (op_call, op_wrap),
    ast.Subscript: (op_subscript, op_wrap), ast.Name: (op_name, op_wrap),
    ast.Attribute: (op_attribute, op_wrap), ast.IfExp: (op_ifexp,), ast.comprehension: (op_comprehension,),
    ast.Lambda: (op_lambda,), ast.List: (op_display,), ast.Tuple: (op_display,), ast.Set: (op_display,)}
