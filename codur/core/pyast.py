"""One door to ``ast.parse`` for every thread of codur's process.

CPython 3.11 keeps the AST converter's recursion counter in state shared by every thread
(python/cpython gh-106905, per-thread since 3.12.x): when a garbage collection inside one
thread's ``ast.parse`` runs a finalizer and the interpreter switches threads, a second
thread's parse resets that counter, and the first one fails with ``SystemError: AST
constructor recursion depth mismatch``. codur parses in several threads at once (a model
sample's reply while mutants are generated, the footprint check of a candidate on a
worker thread); measured on bench/real (cachetools-setitem-replace-size) the error ended a
whole run. Every parse in codur's process goes through :func:`parse_ast`, which holds one
lock for the parse.
"""

from __future__ import annotations

import ast
import threading

_lock = threading.RLock()
#: The byte order mark as a character: a UTF-8 file with a BOM decodes to a text starting with it.
BOM = "\ufeff"


def parse_ast(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **kwargs) -> ast.AST:
    """``ast.parse(source, filename, mode, **kwargs)`` under the process's one parse lock.
    A text that starts with a byte order mark (a UTF-8 file with a BOM, read as the tools read it)
    is parsed without it, as Python reads the file; line 1's columns then count from after it.
    Raises what ``ast.parse`` raises (SyntaxError, ValueError for a NUL byte)."""
    if isinstance(source, str) and source.startswith(BOM):
        source = source[1:]
    with _lock:
        return ast.parse(source, filename, mode, **kwargs)


def literal(text: str):
    """``ast.literal_eval`` of ``text`` (a Python literal), parsed under the lock. Raises
    SyntaxError or ValueError for text that is not a literal."""
    return ast.literal_eval(parse_ast(text.strip(), mode="eval"))
