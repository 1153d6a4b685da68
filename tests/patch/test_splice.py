"""Whole-function patches: choosing the function, reading the reply, splicing it in."""

from __future__ import annotations

import ast
import textwrap

import pytest

from codur.patch.splice import code_blocks, function_at, functions, normalized, source_of, splice

MODULE = textwrap.dedent('''\
    import functools


    def plain(xs):
        s = 0
        for x in xs:
            s += x
        return s


    @functools.lru_cache(None)
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)


    class Cart:
        def __init__(self):
            self.items = []

        def total(self):
            """Sum of the prices."""
            s = 0
            for p in self.items:
                s -= p
            return s


    def outer(xs):
        def inner(x):
            return x + 1
        return [inner(x) for x in xs]
    ''')


def line_of(text: str, needle: str) -> int:
    """1-based number of the only line of ``text`` containing ``needle``."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, hits
    return hits[0]


def fenced(code: str) -> str:
    return "```python\n" + textwrap.dedent(code).strip("\n") + "\n```"


def body_of(text: str, name: str) -> list[str]:
    """The lines of the function ``name`` in ``text`` (decorators included)."""
    span = next(s for s in functions(text) if s.name == name)
    return text.splitlines()[span.start - 1: span.end]


# -- function_at ---------------------------------------------------------------------


def test_functions_lists_every_function_outermost_first():
    spans = functions(MODULE, "m.py")
    assert [s.qualname for s in spans] == ["plain", "fib", "Cart.__init__", "Cart.total", "outer",
                                          "outer.<locals>.inner"]
    fib = spans[1]
    assert (fib.start, fib.def_line) == (line_of(MODULE, "@functools"), line_of(MODULE, "def fib"))
    assert fib.end == line_of(MODULE, "return fib(n - 1)")
    assert spans[3].indent == "    " and spans[0].indent == ""


def test_function_at_a_method_is_the_method_not_the_class():
    span = function_at(MODULE, line_of(MODULE, "s -= p"), "m.py")
    assert span is not None
    assert (span.qualname, span.file, span.indent) == ("Cart.total", "m.py", "    ")


def test_function_at_prefers_the_outermost_function_that_fits():
    line = line_of(MODULE, "return x + 1")
    assert function_at(MODULE, line).qualname == "outer"
    # outer has 4 lines: over max_lines, the innermost function holding the line is used
    assert function_at(MODULE, line, max_lines=3).qualname == "outer.<locals>.inner"


def test_function_at_a_decorator_line_belongs_to_its_function():
    assert function_at(MODULE, line_of(MODULE, "@functools")).qualname == "fib"


@pytest.mark.parametrize("needle", ["import functools", "class Cart:"])
def test_function_at_module_level_line_is_none(needle):
    assert function_at(MODULE, line_of(MODULE, needle)) is None


# -- splice --------------------------------------------------------------------------


def test_splice_a_plain_function_with_prose_around():
    span = function_at(MODULE, line_of(MODULE, "s += x"))
    reply = "Here is the fix:\n" + fenced("""
        def plain(xs):
            return sum(xs)
        """) + "\nThis sums the list."
    new = splice(MODULE, span, reply)
    assert new is not None
    assert body_of(new, "plain") == ["def plain(xs):", "    return sum(xs)"]
    # everything else is untouched
    assert new.replace("def plain(xs):\n    return sum(xs)\n",
                       "def plain(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n") == MODULE


def test_splice_keeps_the_decorator_when_the_reply_has_none():
    span = function_at(MODULE, line_of(MODULE, "if n < 2"))
    new = splice(MODULE, span, fenced("""
        def fib(n):
            return n if n <= 1 else fib(n - 1) + fib(n - 2)
        """))
    assert new is not None
    assert body_of(new, "fib") == ["@functools.lru_cache(None)", "def fib(n):",
                                   "    return n if n <= 1 else fib(n - 1) + fib(n - 2)"]


def test_splice_uses_the_replys_own_decorator():
    span = function_at(MODULE, line_of(MODULE, "if n < 2"))
    new = splice(MODULE, span, fenced("""
        @functools.cache
        def fib(n):
            return n if n <= 1 else fib(n - 1) + fib(n - 2)
        """))
    assert new is not None
    assert body_of(new, "fib")[:2] == ["@functools.cache", "def fib(n):"]
    assert "lru_cache" not in new


def test_splice_a_method_is_indented_inside_its_class_and_keeps_the_docstring():
    span = function_at(MODULE, line_of(MODULE, "s -= p"))
    new = splice(MODULE, span, fenced("""
        def total(self):
            s = 0
            for p in self.items:
                s += p
            return s
        """))
    assert new is not None
    assert body_of(new, "total") == [
        "    def total(self):",
        '        """Sum of the prices."""',  # the rewrite dropped it: put back
        "        s = 0",
        "        for p in self.items:",
        "            s += p",
        "        return s",
    ]
    tree = ast.parse(new)
    cart = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert [f.name for f in cart.body] == ["__init__", "total"]


def test_splice_the_replys_docstring_wins_over_the_original():
    span = function_at(MODULE, line_of(MODULE, "s -= p"))
    new = splice(MODULE, span, fenced('''
        def total(self):
            """Total price."""
            return sum(self.items)
        '''))
    assert new is not None
    assert '"""Total price."""' in new and "Sum of the prices" not in new


def test_splice_a_nested_function():
    span = function_at(MODULE, line_of(MODULE, "return x + 1"), max_lines=3)
    new = splice(MODULE, span, "```\n    def inner(x):\n        return x - 1\n```")  # indented in the reply
    assert new is not None
    assert body_of(new, "outer") == ["def outer(xs):", "    def inner(x):", "        return x - 1",
                                     "    return [inner(x) for x in xs]"]


def test_splice_keeps_crlf_line_endings():
    text = MODULE.replace("\n", "\r\n")
    span = function_at(text, line_of(MODULE, "s -= p"))
    new = splice(text, span, fenced("""
        def total(self):
            return sum(self.items)
        """))
    assert new is not None
    assert "return sum(self.items)\r\n" in new
    assert new.count("\n") == new.count("\r\n")  # no bare LF
    assert new.replace("\r\n", "\n") == splice(MODULE, function_at(MODULE, line_of(MODULE, "s -= p")),
                                               fenced("def total(self):\n    return sum(self.items)"))


def test_splice_into_a_tab_indented_class():
    text = "class Cart:\n\tdef total(self):\n\t\tif self.items:\n\t\t\treturn 1\n\t\treturn 0\n\n\nX = 1\n"
    span = function_at(text, 3)
    assert span is not None and span.indent == "\t"
    new = splice(text, span, fenced("""
        def total(self):
            if not self.items:
                return 1
            return 0
        """))
    assert new == "class Cart:\n\tdef total(self):\n\t\tif not self.items:\n\t\t\treturn 1\n\t\treturn 0\n\n\nX = 1\n"


def test_splice_picks_the_block_defining_the_function_among_several():
    span = function_at(MODULE, line_of(MODULE, "s += x"))
    reply = ("First a test:\n" + fenced("""
        def test_plain():
            assert plain([1, 2]) == 3
        """) + "\nand the fix:\n" + fenced("""
        def plain(xs):
            return sum(xs)
        """) + "\nand a usage example:\n" + fenced("print(plain([1]))"))
    new = splice(MODULE, span, reply)
    assert new is not None
    assert body_of(new, "plain") == ["def plain(xs):", "    return sum(xs)"]
    assert "test_plain" not in new and "print(" not in new


def test_splice_a_bare_reply_without_a_fence():
    span = function_at(MODULE, line_of(MODULE, "s += x"))
    new = splice(MODULE, span, "def plain(xs):\n    return sum(xs)\n")
    assert new is not None and body_of(new, "plain") == ["def plain(xs):", "    return sum(xs)"]


def test_splice_a_reply_cut_mid_block_is_dropped():
    span = function_at(MODULE, line_of(MODULE, "s += x"))
    cut = "```python\ndef plain(xs):\n    s = 0\n    for x in xs:\n"  # the stream stopped here
    assert code_blocks(cut) == ["def plain(xs):\n    s = 0\n    for x in xs:\n"]  # the unclosed fence counts
    assert splice(MODULE, span, cut) is None


def test_splice_a_reply_defining_another_name_is_dropped():
    span = function_at(MODULE, line_of(MODULE, "s += x"))
    assert splice(MODULE, span, fenced("def plain_sum(xs):\n    return sum(xs)")) is None
    assert splice(MODULE, span, "I cannot see the bug.") is None


def test_splice_takes_back_the_source_it_showed():
    span = function_at(MODULE, line_of(MODULE, "s += x"))
    shown = source_of(MODULE, span)
    new = splice(MODULE, span, fenced(shown.replace("s += x", "s += 2 * x")))
    assert new is not None and "        s += 2 * x\n" in new and new.replace("2 * x", "x") == MODULE


# -- normalized ----------------------------------------------------------------------


def test_normalized_ignores_formatting_comments_and_docstrings():
    a = "def f(x):\n    return x+1\n"
    b = 'def f( x ):\n    """Add one."""\n    # comment\n    return (x + 1)  # trailing\n'
    assert normalized(a) == normalized(b)  # b's docstring is one a does not have
    assert normalized('def f(x):\n    """Old."""\n    return x + 1\n') == normalized(b)
    assert normalized('def f():\n    """Only a docstring."""\n') == normalized("def f():\n    pass\n")
    assert normalized(a) != normalized("def f(x):\n    return x-1\n")
    assert normalized("def f(x):\n    return x >= 1\n") != normalized("def f(x):\n    return x > 1\n")


def test_normalized_of_text_that_does_not_parse_is_the_text():
    assert normalized("def f(:\n") == "def f(:\n"
