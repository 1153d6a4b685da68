"""Module analysis for the mutation operators: which names, attributes and callables are in
scope at a node, how each name is used (its kinds: "num", "seq", "str", "call", ..., see
:func:`codur.mutation.kinds.use_of`), and which names are nearest to stand in for another (:meth:`Facts.nearest`).

Computed once per module (:func:`facts_of`) and read through ``MutationSite.facts``.
"""

from __future__ import annotations

import ast
import builtins
import math
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from codur.mutation.kinds import ANNOTATION_KINDS, METHOD_KINDS, is_num, use_of, value_kind
from codur.validate.source import Source

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
BUILTINS = frozenset(dir(builtins))
_FACTS: weakref.WeakKeyDictionary[Source, Facts] = weakref.WeakKeyDictionary()


@dataclass
class Scope:
    """The names of one function (or of the module, ``Facts.scopes[None]``)."""

    bound: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # name -> lines
    kinds: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # name -> uses
    types: dict[str, str] = field(default_factory=dict)  # name -> class it was built from
    numbers: list[tuple[int, int | float]] = field(default_factory=list)  # (line, literal)
    conditions: list[ast.expr] = field(default_factory=list)  # tests and their and/or clauses


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
            inner = node if isinstance(node, FUNCS) else func
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
        for node in self.owner:
            self._bind(node)
        for node in self.owner:
            self._use(node)

    def _bind(self, node: ast.AST) -> None:
        """Record the names ``node`` binds in its scope (a def's own name: the enclosing scope)."""
        scope = self.scopes[self.owner[node]]
        if isinstance(node, (*FUNCS, ast.ClassDef)):
            self._bind_definition(node, scope)
        elif isinstance(node, ast.arg) and not isinstance(self.parents.get(self.parents.get(node)), ast.Lambda):
            self._bind_parameter(node, scope)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and not self.local(node):
            self._bind_target(node, scope)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                scope.bound[name].append(node.lineno)
                scope.kinds[name].add("import")

    def _bind_definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: Scope) -> None:
        scope.bound[node.name].append(node.lineno)
        scope.kinds[node.name].add("call")
        if isinstance(node, ast.ClassDef):
            self.classes[node.name] = node
        else:
            self.functions[node.name].append(node)

    def _bind_parameter(self, node: ast.arg, scope: Scope) -> None:
        """A parameter: bound at its function's line; its annotation gives kinds and class."""
        func = self.owner[node]
        scope.bound[node.arg].append(func.lineno if func else node.lineno)
        ann = node.annotation
        if isinstance(ann, ast.Name):
            scope.kinds[node.arg] |= ANNOTATION_KINDS.get(ann.id, set())
            if ann.id in self.classes or ann.id[:1].isupper():
                scope.types[node.arg] = ann.id

    def _bind_target(self, node: ast.Name, scope: Scope) -> None:
        """An assigned name: its value gives kinds (and class, ``x = C(...)``); a ``for`` over
        ``range(...)`` makes it a number and an index."""
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

    def _use(self, node: ast.AST) -> None:
        """Record what ``node`` says of the names it uses, the numbers and conditions of its
        scope, the calls, and the attributes and methods of each receiver."""
        scope = self.scopes[self.owner[node]]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            kind, parent = use_of(node, self.parents), self.parents.get(node)
            if kind and not (kind == "str" and isinstance(parent, ast.BinOp)):  # that is what is in doubt
                scope.kinds[node.id].add(kind)
            if isinstance(parent, ast.Attribute):
                scope.kinds[node.id] |= METHOD_KINDS.get(parent.attr, set())
        elif is_num(node) and not isinstance(node.value, bool):
            scope.numbers.append((node.lineno, node.value))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert, ast.comprehension)):
            for test in node.ifs if isinstance(node, ast.comprehension) else [node.test]:
                clauses = test.values if isinstance(test, ast.BoolOp) else [test]
                scope.conditions += [c for c in clauses if not isinstance(c, ast.Constant)]
        elif isinstance(node, ast.Call):
            self._use_call(node)
        elif isinstance(node, ast.Attribute) and (key := self.key(node.value)):
            parent = self.parents.get(node)
            if not (isinstance(parent, ast.Call) and parent.func is node):
                self.attributes[key][node.attr] += 1

    def _use_call(self, node: ast.Call) -> None:
        """A call: listed under its callee's name; a method call counted for its receiver."""
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        self.calls[name].append(node)
        if isinstance(func, ast.Attribute) and (key := self.key(func.value)):
            self.methods[key][func.attr] += 1
            if not node.args and not node.keywords:
                self.nullary[key][func.attr] += 1

    def local(self, node: ast.AST) -> bool:
        """True if ``node`` binds a name local to a comprehension or lambda."""
        parent = self.parents.get(node)
        while parent is not None and not isinstance(parent, (*FUNCS, ast.stmt)):
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
        while parent is not None and not isinstance(parent, (*FUNCS, ast.stmt)):
            if isinstance(parent, _COMPS):
                out += [n.id for g in parent.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)]
            elif isinstance(parent, ast.Lambda):
                out += [a.arg for a in parent.args.args]
            parent = self.parents.get(parent)
        return out

    def nearest(self, node: ast.AST, need: str | None, *, limit: int = 4, exclude: tuple[str, ...] = ()) -> list[str]:
        """Names that may replace ``node`` (a use with ``need``, see :func:`codur.mutation.kinds.use_of`), nearest
        first: the enclosing comprehensions' names, then the function's names by the distance
        of their nearest binding (a later binding counts 50 lines more; a name of another
        family than ``node``'s, numbers vs. collections, 5000 more), then module names."""
        func, line = self.owner.get(node), getattr(node, "lineno", 0)
        mine = family(self.kinds_of(node)) if isinstance(node, ast.Name) else None
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
                other = mine and family(kinds) not in (mine, None)
                out.append((dist + 10_000 * level + 5_000 * bool(other), name))
        skip = {getattr(node, "id", None), "self", "cls", "_", *exclude}
        return [n for _, n in sorted(out) if n not in skip][:limit]

    def kinds_named(self, name: str, func: ast.AST | None) -> set[str]:
        """How the variable ``name`` of ``func`` is used (see :func:`codur.mutation.kinds.use_of`)."""
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


def family(kinds: set[str]) -> str | None:
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


def facts_of(src: Source, parents: dict[ast.AST, ast.AST]) -> Facts:
    """The :class:`Facts` of ``src``'s module (``parents`` maps every node to its parent),
    computed once per source and kept while the source lives."""
    found = _FACTS.get(src)
    if found is None:
        found = _FACTS[src] = Facts(src.tree, parents)
    return found
