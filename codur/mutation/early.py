"""An early return for a parameter that may be None: ``if obj is None: return wrapper``.

PAR's "null pointer checker" (Kim, Nam, Song, Kim: "Automatic patch generation learned from
human-written patches", ICSE 2013) and TBar's null pointer checker (FP2, Liu et al., "TBar:
Revisiting Template-based Automated Program Repair", ISSTA 2019) guard a value that may be
null and return early. Here the guard tests a parameter and returns what the function itself
returns: for a function whose last statement is ``return NAME``, the check goes right after the
body's assignment of ``NAME`` (``wrapper = self.Wrapper(obj)`` then ``if obj is None: return
wrapper``): what the function would build for the None case, without the rest of the work
(a descriptor's ``__get__`` reached through the class, an optional argument left out).
"""

from __future__ import annotations

import ast

from codur.mutation.guards import parameters
from codur.validate.source import Edit, Source

PRIOR = 0.5


def null_returns(func: ast.FunctionDef | ast.AsyncFunctionDef,
                 src: Source) -> list[tuple[int, tuple[Edit, ...], str]]:
    """(line, edits, description) of ``if P is None: return NAME`` after the assignment of ``NAME``,
    for each parameter ``P`` (at most three, ``self``/``cls`` left out), when ``func`` ends with
    ``return NAME`` and its body assigns ``NAME`` once, before that return; [] otherwise."""
    last = func.body[-1] if func.body else None
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return []
    name = last.value.id
    assigns = [s for s in func.body[:-1] if isinstance(s, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)]
    if len(assigns) != 1:
        return []
    stmt = assigns[0]
    following = func.body[func.body.index(stmt) + 1]
    at = src.offset(following.lineno, 0)
    indent = src.text[at:src.offset(following.lineno, following.col_offset)]
    if indent.strip() or stmt.end_lineno is None or following.lineno <= stmt.end_lineno:
        return []  # statements sharing a line: nothing to put a line between
    out = []
    for param in parameters(func):
        if param == name:
            continue
        text = f"{indent}if {param} is None:\n{indent}    return {name}\n"
        out.append((following.lineno, (Edit(at, at, text),),
                    f"added `if {param} is None: return {name}` after `{name}` is built in `{func.name}`"))
    return out
