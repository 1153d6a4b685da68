"""The parameter check a failing test asks for: ``if size < 0: raise ValueError(...)`` at the
top of a suspicious function, when a failing test expected an exception that never came.

PAR's "parameter checker" fix template (Kim, Nam, Song, Kim: "Automatic patch generation
learned from human-written patches", ICSE 2013) and TBar's range checker (Liu et al.,
ISSTA 2019) add a guard on a parameter before it is used. Without a hint such guards would
be tried on every parameter of every function; here they are generated only when a failing
test's message says which exception it expected and did not see (pytest's ``DID NOT RAISE
<class 'ValueError'>``, unittest's ``ValueError not raised``), and the guard raises that
exception. Each (parameter, condition) is one mutant; the tests that pass today decide
between ``< 0``, ``<= 0`` and ``is None`` (a zero size that must stay allowed).
"""

from __future__ import annotations

import ast

from codur.validate.source import Edit, Source

CONDITIONS = ("< 0", "<= 0", "is None")
PRIOR = 0.7


def parameters(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The first three parameters of ``func`` a guard may test (``self`` / ``cls`` left out)."""
    args = func.args.posonlyargs + func.args.args + func.args.kwonlyargs
    names = [a.arg for a in args]
    if names and names[0] in ("self", "cls") and func.args.posonlyargs + func.args.args:
        names = names[1:]
    return names[:3]


def guards(func: ast.FunctionDef | ast.AsyncFunctionDef, src: Source,
           raises: frozenset[str]) -> list[tuple[int, tuple[Edit, ...], str]]:
    """(line, edits, description) of each guard for ``func``: every parameter (at most three,
    ``self``/``cls`` left out) × :data:`CONDITIONS` × the expected exception (at most two,
    by name). The guard goes before the first statement after the docstring."""
    body = func.body
    if ast.get_docstring(func, clean=False) is not None:
        body = body[1:]
    if not body:  # a docstring alone: nothing is done, so nothing to check before
        return []
    first = body[0]
    at = src.offset(first.lineno, 0)
    indent = src.text[at:src.offset(first.lineno, first.col_offset)]
    if indent.strip():  # the statement shares its line with the def: nothing to put a line before
        return []
    out = []
    for exc in sorted(raises)[:2]:
        for name in parameters(func):
            for cond in CONDITIONS:
                message = f"{name} must not be None" if cond == "is None" else (
                    f"{name} must not be negative" if cond == "< 0" else f"{name} must be positive")
                text = f"{indent}if {name} {cond}:\n{indent}    raise {exc}({message!r})\n"
                out.append((first.lineno, (Edit(at, at, text),),
                            f"added `if {name} {cond}: raise {exc}(...)` at the top of `{func.name}`"))
    return out


def raising_conditions(tree: ast.Module, raises: frozenset[str]) -> set[int]:
    """Lines of the conditions of the ``if`` statements of ``tree`` whose body raises one of
    ``raises`` (exception names a failing test expected and did not see): widening such a
    condition (``less_specific_if``: ``if size > maxsize or size < 0: raise ValueError``) is the
    other check those tests ask for, beside a new parameter check."""
    def raised(stmt: ast.stmt) -> str:
        exc = stmt.exc.func if isinstance(getattr(stmt, "exc", None), ast.Call) else getattr(stmt, "exc", None)
        return exc.id if isinstance(exc, ast.Name) else exc.attr if isinstance(exc, ast.Attribute) else ""
    return {line for node in ast.walk(tree) if isinstance(node, ast.If)
            and any(isinstance(s, ast.Raise) and raised(s) in raises for s in node.body)
            for line in range(node.test.lineno, (node.test.end_lineno or node.test.lineno) + 1)}
