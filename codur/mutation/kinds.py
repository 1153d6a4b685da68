"""The kinds of a name, read from the code around it: how an expression is used where it
stands (:func:`use_of`) and what a value assigned to a name makes of it (:func:`value_kind`).

Kinds are plain words: "num", "seq", "str", "dict", "bool", "index", "call", "obj",
"import", "texts" (a list of strings). :mod:`codur.mutation.names` collects them per scope.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

_SEQ_FUNCS = {"len", "sorted", "reversed", "enumerate", "zip", "sum", "list", "tuple", "set", "any",
              "all", "iter", "dict", "frozenset", "map", "filter"}
_NUM_FUNCS = {"len", "sum", "int", "abs", "round", "float", "min", "max", "ord", "pow", "divmod"}
#: what calling a method on a name says about it
METHOD_KINDS = {**dict.fromkeys(("append", "extend", "insert", "sort", "pop", "remove", "count", "index",
                                 "reverse", "appendleft", "popleft"), {"seq"}),
                **dict.fromkeys(("lower", "upper", "strip", "lstrip", "rstrip", "split", "startswith",
                                 "endswith", "replace", "isdigit", "isalpha", "title", "format"), {"str", "seq"}),
                **dict.fromkeys(("items", "keys", "values", "get", "setdefault"), {"dict", "seq"})}
#: what a parameter's annotation says about it
ANNOTATION_KINDS = {"int": {"num"}, "float": {"num"}, "bool": {"bool"}, "str": {"str", "seq"}, "list": {"seq"},
                    "dict": {"dict", "seq"}, "set": {"seq"}, "tuple": {"seq"}}
#: what a name assigned the result of calling the builtin or class ``f`` is
_CALL_KINDS = {**dict.fromkeys(_NUM_FUNCS, ("num",)),
               **dict.fromkeys(("dict", "defaultdict", "Counter", "OrderedDict"), ("dict", "seq")),
               **dict.fromkeys(("list", "sorted", "set", "tuple", "reversed", "deque", "frozenset"), ("seq",)),
               **dict.fromkeys(("str", "repr", "chr", "input"), ("str", "seq"))}
#: what a name assigned the result of the method ``m`` is
_METHOD_RESULT_KINDS = {**dict.fromkeys(("split", "rsplit", "splitlines", "readlines"), ("seq", "texts")),
                        **dict.fromkeys(("strip", "lower", "upper", "read", "readline", "join", "replace",
                                         "format"), ("str", "seq"))}
#: what a name assigned a display, a comprehension, a comparison ... is
_VALUE_KINDS = {**dict.fromkeys((ast.Dict, ast.DictComp), ("dict", "seq")),
                **dict.fromkeys((ast.List, ast.ListComp, ast.Set, ast.SetComp, ast.GeneratorExp), ("seq",)),
                ast.JoinedStr: ("str", "seq"), ast.Compare: ("bool",), ast.BoolOp: ("bool",)}
_ARITHMETIC_OF_ANY = (ast.Add, ast.Mod, ast.Mult)  # also concatenation, formatting, repetition


def is_num(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


# ------------------------------------------------------------------ uses

def _argument_use(node: ast.AST, call: ast.Call) -> str | None:
    if call.func is node:
        return "call"
    name = call.func.id if isinstance(call.func, ast.Name) else ""
    return "num" if name == "range" else "seq" if name in _SEQ_FUNCS else None


def _unary_use(node: ast.AST, parent: ast.UnaryOp) -> str | None:
    return "num" if isinstance(parent.op, ast.USub) else "bool" if isinstance(parent.op, ast.Not) else None


def _operand_use(node: ast.AST, parent: ast.BinOp) -> str | None:
    other = parent.right if parent.left is node else parent.left
    if is_str(other):
        return "str"
    return "num" if not isinstance(parent.op, _ARITHMETIC_OF_ANY) or is_num(other) else None


def _compared_use(node: ast.AST, parent: ast.Compare) -> str | None:
    others = [o for o in (parent.left, *parent.comparators) if o is not node]
    if any(isinstance(o, (ast.In, ast.NotIn)) for o in parent.ops) and node is not parent.left:
        return "seq"
    if any(is_num(o) for o in others) or any(isinstance(o, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for o in parent.ops):
        return "num"
    return "str" if any(is_str(o) for o in others) else None


_USES: dict[type, Callable[[ast.AST, ast.AST], str | None]] = {
    ast.Call: _argument_use,
    ast.Attribute: lambda node, parent: "obj",
    ast.Subscript: lambda node, parent: "seq" if parent.value is node else "index",
    ast.Slice: lambda node, parent: "num",
    ast.UnaryOp: _unary_use,
    **dict.fromkeys((ast.For, ast.AsyncFor, ast.comprehension),
                    lambda node, parent: "seq" if parent.iter is node else None),
    ast.BinOp: _operand_use,
    ast.Compare: _compared_use,
    **dict.fromkeys((ast.If, ast.While, ast.IfExp, ast.Assert),
                    lambda node, parent: "bool" if parent.test is node else None),
    ast.BoolOp: lambda node, parent: "bool",
}


def use_of(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str | None:
    """How an expression is used where it stands: "seq", "num", "index", "bool", "call",
    "obj", "str" or None (unknown). ``parents`` maps every node to its parent."""
    parent = parents.get(node)
    use = _USES.get(type(parent))
    return use(node, parent) if use is not None else None


# ------------------------------------------------------------------ values

def _constant_kind(value: ast.Constant) -> set[str]:
    v = value.value
    return {"bool"} if isinstance(v, bool) else {"num"} if isinstance(v, (int, float)) else \
        {"str", "seq"} if isinstance(v, str) else set()


def _arithmetic_kind(value: ast.BinOp) -> set[str]:
    if not isinstance(value.op, _ARITHMETIC_OF_ANY):
        return {"num"}
    return value_kind(value.left) | value_kind(value.right)


def _call_kind(value: ast.Call) -> set[str]:
    func = value.func
    if isinstance(func, ast.Name):
        return set(_CALL_KINDS.get(func.id, ()))
    if isinstance(func, ast.Attribute):
        return set(_METHOD_RESULT_KINDS.get(func.attr, ()))
    return set()


_VALUE_RULES: dict[type, Callable[[ast.AST], set[str]]] = {
    ast.Constant: _constant_kind,
    ast.UnaryOp: lambda value: {"bool"} if isinstance(value.op, ast.Not) else set(),
    ast.BinOp: _arithmetic_kind,
    ast.Call: _call_kind,
}


def value_kind(value: ast.AST | None) -> set[str]:
    """Kinds of a name assigned ``value`` (a new set; empty when the value says nothing)."""
    rule = _VALUE_RULES.get(type(value))
    return rule(value) if rule is not None else set(_VALUE_KINDS.get(type(value), ()))
