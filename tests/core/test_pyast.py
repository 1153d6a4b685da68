"""Every parse in codur's process goes through one lock (CPython 3.11's AST converter keeps its
recursion counter in state every thread shares)."""

from __future__ import annotations

import ast
import threading

import pytest

from codur.core import pyast


def test_parse_ast_waits_for_a_parse_in_another_thread():
    done = threading.Event()
    with pyast._lock:  # another thread is inside a parse
        worker = threading.Thread(target=lambda: (pyast.parse_ast("x = 1"), done.set()))
        worker.start()
        assert not done.wait(0.3)  # it waits for the lock
    worker.join(5)
    assert done.is_set()


def test_parse_ast_and_literal_read_like_the_stdlib():
    source = "def f(a):\n    return a + 1\n"
    assert ast.dump(pyast.parse_ast(source)) == ast.dump(ast.parse(source))
    assert pyast.literal(" {'a': [1, None, True]} ") == {"a": [1, None, True]}
    with pytest.raises(SyntaxError):
        pyast.parse_ast("def f(:\n")
    with pytest.raises(ValueError):
        pyast.literal("open('x')")
