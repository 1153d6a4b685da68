"""Edit formats of a model sample: whole function, SEARCH/REPLACE blocks, unified diff."""

from __future__ import annotations

import pytest

from codur.patch.formats import apply_reply, complete
from codur.patch.splice import function_at

SRC = '''"""Cart totals."""


class Cart:
    def __init__(self):
        self.items = []

    def total(self):
        out = 0
        for price, qty in self.items:
            out += price + qty
        return out
'''
METHOD_LINE = 11


def span():
    return function_at(SRC, METHOD_LINE, "cart.py")


def test_search_replace_block_is_applied_with_the_file_indentation():
    reply = "<<<<<<< SEARCH\nout += price + qty\n=======\nout += price * qty\n>>>>>>> REPLACE"
    new, changed = apply_reply("search_replace", SRC, [span()], reply)
    assert "            out += price * qty\n" in new and changed == ["Cart.total"]
    assert new.replace("price * qty", "price + qty") == SRC


def test_search_replace_that_matches_nothing_is_dropped():
    reply = "<<<<<<< SEARCH\nout -= price\n=======\nout += price * qty\n>>>>>>> REPLACE"
    assert apply_reply("search_replace", SRC, [span()], reply) is None


def test_unified_diff_is_applied_by_its_context_not_its_line_numbers():
    reply = ("```diff\n--- a/cart.py\n+++ b/cart.py\n@@ -90,3 +90,3 @@\n         for price, qty in self.items:\n"
             "-            out += price + qty\n+            out += price * qty\n         return out\n```")
    new, _ = apply_reply("udiff", SRC, [span()], reply)
    assert "out += price * qty" in new and "price + qty" not in new


def test_diff_whose_context_does_not_match_is_dropped():
    reply = "```diff\n@@ -1,2 +1,2 @@\n for x in y:\n-    a = 1\n+    a = 2\n```"
    assert apply_reply("udiff", SRC, [span()], reply) is None


def test_function_format_splices_the_method():
    reply = "```python\ndef total(self):\n    return sum(p * q for p, q in self.items)\n```"
    new, changed = apply_reply("function", SRC, [span()], reply)
    assert "        return sum(p * q for p, q in self.items)" in new and changed == ["Cart.total"]


@pytest.mark.parametrize("fmt, reply, done", [
    ("search_replace", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE", True),
    ("search_replace", "<<<<<<< SEARCH\na\n=======\nb\n", False),
    ("udiff", "```diff\n@@ -1 +1 @@\n-a\n+b\n```", True),
    ("udiff", "```diff\n@@ -1 +1 @@\n-a\n", False),
    ("function", "```python\ndef total(self):\n    return 1\n```", True),
])
def test_complete_tells_when_the_stream_may_stop(fmt, reply, done):
    assert complete(fmt, reply, ["total"]) is done
