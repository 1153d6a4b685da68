"""What a mutation operator sees and how it records a candidate edit (:class:`MutationSite`,
:class:`Change`), and the edits operators of every family share: +-1 (:func:`plus_minus`),
negation (:func:`negate`) and added ``and``/``or`` clauses (:func:`add_clauses`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from codur.mutation.guards import parameters
from codur.mutation.names import FUNCS, Facts, facts_of, family
from codur.mutation.patterns import DECAY, PRIOR
from codur.validate.source import Edit, Source

SYM = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
       ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
       ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
       ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
       ast.LShift: "<<", ast.RShift: ">>", ast.MatMult: "@", ast.And: "and", ast.Or: "or"}
#: the +-1 that equals flipping the comparison's strictness: x OP (c + d), (c + d) OP x
_FLIP_RIGHT = {ast.Gt: -1, ast.LtE: -1, ast.GtE: 1, ast.Lt: 1}
_FLIP_LEFT = {ast.Lt: -1, ast.GtE: -1, ast.LtE: 1, ast.Gt: 1}


@dataclass(frozen=True)
class Change:
    """One candidate edit, before it is checked to compile."""

    operator: str
    line: int
    edits: tuple[Edit, ...]
    description: str
    prior: float


@dataclass
class MutationSite:
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
        return facts_of(self.src, self.parents)

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The statement holding ``node`` (``node`` itself when it is one)."""
        while node is not None and not isinstance(node, ast.stmt):
            node = self.parents.get(node)
        return node

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



def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."



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


def plus_minus(node: ast.expr, ctx: MutationSite, operator: str, prior: float | None = None) -> None:
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


def negate(node: ast.expr, ctx: MutationSite, prior: float | None = None) -> None:
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


def add_clauses(test: ast.expr, ctx: MutationSite) -> None:
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
    ordered = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
    compared = [ctx.src.seg(side) for n in ast.walk(test) if isinstance(n, ast.Compare)
                and any(isinstance(op, ordered) for op in n.ops)
                for side in (n.left, *n.comparators) if isinstance(side, ast.Attribute)]  # an optional field
    guarded = compared + [n.value.id for n in ast.walk(test) if isinstance(n, ast.Attribute)
                          and isinstance(n.value, ast.Name) and n.value.id not in ("self", "cls")]
    texts = [f"{name} is not None and {_clause(test, ctx.src, 'and')}" for name in guarded]
    ctx.ranked(test, texts, "more_specific_if", 2)
    _sign_clauses(test, ctx)
    _membership_clauses(test, ctx)


#: Prior factor of the range and membership clauses (:func:`_sign_clauses`, :func:`_membership_clauses`).
CHECKER_FACTOR = 0.9
_ORDERED = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: Base classes whose instances answer ``x in self`` without defining ``__contains__`` in the module.
CONTAINERS = frozenset({"Container", "Collection", "Mapping", "MutableMapping", "Set", "MutableSet",
                        "dict", "set", "frozenset", "OrderedDict", "defaultdict", "UserDict"})


def _sign_clauses(test: ast.expr, ctx: MutationSite) -> None:
    """``test or x < 0`` and ``test and x >= 0`` for each name ``x`` the condition compares
    with an ordered operator, when the module's facts say ``x`` is a number: a size, count
    or index the condition checks against one bound only, and that may be negative.
    PAR's range checker (Kim et al., ICSE 2013) and TSSB-3M's "Less/More Specific If"
    (Richter & Wehrheim, MSR 2022) with the clause the condition's own variable gives."""
    facts = ctx.facts
    names = [side.id for n in ast.walk(test) if isinstance(n, ast.Compare) and any(isinstance(op, _ORDERED)
                                                                                  for op in n.ops)
             for side in (n.left, *n.comparators) if isinstance(side, ast.Name)]
    func = facts.owner.get(test)
    numeric = [n for n in dict.fromkeys(names) if family(facts.kinds_named(n, func)) == "num"]
    for joiner, clause, operator in (("or", "{} < 0", "less_specific_if"), ("and", "{} >= 0", "more_specific_if")):
        texts = [f"{_clause(test, ctx.src, joiner)} {joiner} {clause.format(n)}" for n in numeric]
        ctx.ranked(test, texts, operator, 2, CHECKER_FACTOR)


def _membership_clauses(test: ast.expr, ctx: MutationSite) -> None:
    """``test and p not in self`` and ``test and p in self`` for each parameter ``p`` of a
    method whose class answers ``in`` (:func:`answers_in`; not ``__contains__`` itself): a
    condition that should hold only for a key the container holds (or does not hold yet).
    TSSB-3M's "More Specific If" with the receiver's own membership test."""
    func = ctx.facts.owner.get(test)
    cls = ctx.parents.get(func) if func is not None else None
    if not isinstance(cls, ast.ClassDef) or not answers_in(cls, ctx.facts.classes):
        return
    args = func.args.posonlyargs + func.args.args
    if not args or args[0].arg != "self" or func.name == "__contains__":  # there `in self` recurses
        return
    for op in ("not in", "in"):
        texts = [f"{_clause(test, ctx.src, 'and')} and {p} {op} self" for p in parameters(func)]
        ctx.ranked(test, texts, "more_specific_if", 2, CHECKER_FACTOR)


def answers_in(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int = 0) -> bool:
    """Whether instances of ``cls`` answer ``x in obj`` by design: it defines ``__contains__``,
    or a base does (a class of the module, through ``classes``: name -> class), or a base is
    a container ABC or builtin (:data:`CONTAINERS`, by name or as ``collections.abc.NAME``)."""
    if any(isinstance(s, FUNCS) and s.name == "__contains__" for s in cls.body):
        return True
    for base in cls.bases:
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
        if name in CONTAINERS:
            return True
        if name in classes and classes[name] is not cls and depth < 8 and answers_in(classes[name], classes,
                                                                                      depth + 1):
            return True
    return False
