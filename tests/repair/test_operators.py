"""Mutation operators: each yields the expected, valid, minimal mutant."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codur.mutation import generate_mutants


def mutate(tmp_path: Path, code: str, limit: int = 10_000):
    text = textwrap.dedent(code).lstrip("\n")
    (tmp_path / "m.py").write_text(text)
    scores = {("m.py", n): 1.0 for n in range(1, len(text.splitlines()) + 1)}
    mutants, texts = generate_mutants(tmp_path, scores, limit=limit)
    return text, mutants, [m.apply(texts["m.py"]) for m in mutants]


CASES = [
    # the seven classic patterns
    ("range_bound", "def f(n):\n    for i in range(n):\n        print(i)\n", "range(n)", "range(n + 1)"),
    ("division_by_100", "def f(base, rate):\n    tax = base * rate / 100\n    return tax\n",
     "tax = base * rate / 100", "tax = base * rate"),
    ("comparison_flip", "def f(a, b):\n    return a if a < b else b\n", "a < b", "a <= b"),
    ("comparison_flip_gt", "def f(a, b):\n    return a if a < b else b\n", "a < b", "a > b"),
    ("loop_condition", "def f(lo, hi):\n    while lo < hi:\n        lo += 1\n    return lo\n",
     "while lo < hi", "while lo <= hi"),
    ("fstring_prefix", "def f(name):\n    return 'Hi {name}!'\n", "'Hi {name}!'", "f'Hi {name}!'"),
    ("index_shift", "def f(xs, i):\n    return xs[i]\n", "xs[i]", "xs[i + 1]"),
    ("index_literal", "def f(xs):\n    return xs[0]\n", "xs[0]", "xs[-1]"),
    # general operators
    ("slice_fold", "def f(xs, n):\n    return xs[:n - 1]\n", "xs[:n - 1]", "xs[:n]"),
    ("boolean_swap", "def f(a, b):\n    return a and b\n", "a and b", "a or b"),
    ("drop_condition", "def f(a, b):\n    if a and b:\n        return 1\n    return 0\n",
     "if a and b:", "if a:"),
    ("arithmetic_swap", "def f(a, b):\n    return a + b\n", "a + b", "a - b"),
    ("floordiv", "def f(a, b):\n    return a / b\n", "a / b", "a // b"),
    ("swap_operands", "def f(a, b):\n    return a - b\n", "a - b", "b - a"),
    ("augassign_swap", "def f(t, x):\n    t += x\n    return t\n", "t += x", "t -= x"),
    ("augassign_to_assign", "def f(t, x):\n    t += x\n    return t\n", "t += x", "t = x"),
    ("assign_to_augassign", "def f(xs):\n    t = 0\n    for x in xs:\n        t = x\n    return t\n",
     "        t = x", "        t += x"),
    ("bound_assignment", "def f(lo, mid):\n    lo = mid\n    return lo\n", "lo = mid", "lo = mid + 1"),
    ("swap_arguments", "def f(a, b):\n    return divmod(a, b)\n", "divmod(a, b)", "divmod(b, a)"),
    ("negate_condition", "def f(ok):\n    if ok:\n        return 1\n    return 0\n", "if ok:", "if not ok:"),
    ("remove_not", "def f(ok):\n    if not ok:\n        return 1\n    return 0\n", "if not ok:", "if ok:"),
    ("remove_condition", "def f(ok):\n    if ok:\n        return 1\n    return 0\n", "if ok:", "if True:"),
    ("any_all", "def f(xs):\n    return any(xs)\n", "any(xs)", "all(xs)"),
    ("min_max", "def f(a, b):\n    return min(a, b)\n", "min(a, b)", "max(a, b)"),
    ("method_swap", "def f(s):\n    return s.startswith('x')\n", "startswith", "endswith"),
    ("return_bool", "def f():\n    return True\n", "return True", "return False"),
    ("return_int", "def f():\n    return 0\n", "return 0", "return 1"),
    ("return_none", "def f(xs):\n    if not xs:\n        return None\n    return xs[0]\n",
     "return None", "return 0"),
    ("bare_return", "def f(xs):\n    if not xs:\n        return\n    return xs[0]\n",
     "        return\n", "        return []\n"),
    ("return_to_none", "def f(xs):\n    return 0\n", "return 0", "return None"),
    ("variable_swap", "def f(a, b):\n    return a\n", "return a", "return b"),
    ("index_variable_swap", "def f(a, b, i, j):\n    return a[j] + b[i:]\n", "b[i:]", "b[j:]"),
    ("len_bound", "def f(xs, i):\n    return i < len(xs)\n", "len(xs)", "len(xs) - 1"),
]


@pytest.mark.parametrize("name, code, old, new", CASES, ids=[c[0] for c in CASES])
def test_operator_produces_expected_mutant(tmp_path, name, code, old, new):
    text, _, outs = mutate(tmp_path, code)
    assert text.count(old) == 1
    assert text.replace(old, new) in outs


def test_continue_guard_is_deleted(tmp_path):
    code = """
    def total(xs):
        t = 0
        for x in xs:
            if x < 0:
                continue
            t += x
        return t
    """
    text, _, outs = mutate(tmp_path, code)
    assert text.replace("        if x < 0:\n            continue\n", "") in outs


def test_lone_statement_is_replaced_by_pass(tmp_path):
    code = "def f(xs):\n    for x in xs:\n        continue\n"
    _, _, outs = mutate(tmp_path, code)
    assert "def f(xs):\n    for x in xs:\n        pass\n" in outs


def test_mutants_compile_are_unique_and_keep_formatting(tmp_path):
    code = """
    # a comment that must survive
    def score(values, limit=10):   # trailing comment
        total = 0
        for i in range(len(values) - 1):
            if values[i] > limit and not values[i] % 2:
                total += values[i] * 2
        return "{total}" if total else total
    """
    text, mutants, outs = mutate(tmp_path, code)
    assert len(outs) == len(set(outs)) > 50
    for out in outs:
        compile(out, "m.py", "exec")
        assert out != text
        assert "# a comment that must survive" in out and "# trailing comment" in out
    single = [m for m in mutants if "+" not in m.operator]
    multiline = ("delete_statement", "add_statement", "same_function_swap_args", "change_binary_operand")
    for m in single:  # a single edit touches one line (statement deletions and insertions aside)
        changed = [a for a, b in zip(text.splitlines(), m.apply(text).splitlines(), strict=False) if a != b]
        assert len(changed) <= 1 or m.operator in multiline


def test_pairs_come_after_single_edits(tmp_path):
    code = "def clamp(x, lo, hi):\n    return min(lo, max(x, hi))\n"
    text, mutants, outs = mutate(tmp_path, code)
    assert text.replace("min(lo, max(x, hi))", "max(lo, min(x, hi))") in outs
    kinds = ["+" in m.operator for m in mutants]
    assert kinds == sorted(kinds)  # every single edit precedes every pair


def test_unicode_columns_are_respected(tmp_path):
    code = "def f(a, b):\n    s = 'héllo wörld'; return a < b\n"
    text, _, outs = mutate(tmp_path, code)
    assert text.replace("a < b", "a <= b") in outs


def test_limit_is_respected(tmp_path):
    _, mutants, _ = mutate(tmp_path, "def f(a, b, c):\n    return a + b * c - a / b\n", limit=5)
    assert len(mutants) == 5


def test_len_shift_in_tuple_assignment_and_precedence(tmp_path):
    code = "def f(items, k):\n    lo, hi = 0, len(items)\n    return k * len(items)\n"
    text, _, outs = mutate(tmp_path, code)
    assert text.replace("0, len(items)", "0, len(items) - 1") in outs
    assert text.replace("k * len(items)", "k * (len(items) + 1)") in outs
    assert text.replace("k * len(items)", "k * len(items) + 1") not in outs


def test_crlf_line_endings_are_kept(tmp_path):
    text = "def f(a, b):\r\n    x = 1\r\n    return a < b\r\n"
    (tmp_path / "m.py").write_bytes(text.encode())
    scores = {("m.py", n): 1.0 for n in (1, 2, 3)}
    mutants, texts = generate_mutants(tmp_path, scores)
    outs = [m.apply(texts["m.py"]) for m in mutants]
    assert text.replace("a < b", "a <= b") in outs
    assert all(out.count("\r\n") == 3 for out in outs if "x = 1" in out)



def test_operand_shift_on_a_one_based_count_used_as_offset(tmp_path: Path):
    """examples/paginate's bug: page number (1-based) times page size as the slice start."""
    _, _, texts = mutate(tmp_path, """
        def get_page(items, number, size):
            start = number * size
            return items[start:start + size]
        """)
    assert any("start = (number - 1) * size" in t for t in texts)
    for t in texts:
        compile(t, "m.py", "exec")
