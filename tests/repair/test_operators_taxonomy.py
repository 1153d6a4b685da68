"""Operators named after the ManySStuBs4J / PySStuBs / TSSB-3M single-statement bug patterns:
each yields the expected mutant on small code of its own, and a few do not yield unwanted ones."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codur.mutation import generate_mutants, patterns
from codur.mutation.patterns import HAND_PRIORS, PRIOR, TAXONOMY


def mutants_of(tmp_path: Path, code: str) -> tuple[str, dict[str, str]]:
    """(text, {mutated text: operator}) for every line of ``code`` scored 1.0."""
    text = textwrap.dedent(code).lstrip("\n")
    (tmp_path / "m.py").write_text(text)
    scores = {("m.py", n): 1.0 for n in range(1, text.count("\n") + 2)}
    mutants, texts = generate_mutants(tmp_path, scores, limit=100_000)
    return text, {m.apply(texts["m.py"]): m.operator for m in mutants if "+" not in m.operator}


PICK = "def pick(x, y):\n    if x > 0:\n        return x\n    if y > 0:\n        return y\n    return 0\n"
FULL = "def full(first, last):\n    return first + ', ' + last\n"
CASES = [
    # (operator, code, old, new): `old` occurs once in `code`; `new` replaces it in a mutant
    ("change_identifier_used", """
        def area(width, height):
            side = width
            return side * side
        """, "side * side", "side * height"),
    ("change_identifier_used", """
        def clamp_step(lo, hi, x):
            mid = (lo + hi) // 2
            if x < mid:
                lo = mid
            return lo, hi
        """, "        lo = mid", "        hi = mid"),
    ("change_identifier_used", """
        def cell(grid, row, col):
            return grid[row][row]
        """, "grid[row][row]", "grid[row][col]"),
    ("wrong_function_name", """
        def mean(xs):
            return sum(xs) / len(xs)


        def middle(xs):
            return sorted(xs)[len(xs) // 2]


        def summary(xs):
            return mean(xs)
        """, "return mean(xs)", "return middle(xs)"),
    ("wrong_function_name", "def f(xs):\n    return sorted(xs)\n", "sorted(xs)", "reversed(xs)"),
    ("wrong_function_name", "def f(x):\n    return str(x)\n", "str(x)", "repr(x)"),
    ("wrong_function_name", "def f(x):\n    return int(x)\n", "int(x)", "round(x)"),
    ("wrong_function_name", "def f(out, xs):\n    out.append(xs)\n", "out.append(xs)", "out.extend(xs)"),
    ("wrong_function_name", """
        class Stack:
            def push(self, x):
                self.items.append(x)

            def peek(self):
                return self.items[-1]

            def top(self):
                return self.push()
        """, "self.push()", "self.peek()"),
    ("change_attribute_used", """
        class Box:
            def __init__(self, w, h):
                self.w = w
                self.h = h

            def area(self):
                return self.w * self.w
        """, "self.w * self.w", "self.w * self.h"),
    ("add_attribute_access", """
        def first(node):
            return node.value


        def total(nodes):
            s = 0
            for node in nodes:
                s += node
            return s
        """, "s += node\n", "s += node.value\n"),
    ("add_method_call", """
        def show(counts):
            out = []
            for name, n in counts:
                out.append(name * n)
            return out
        """, "in counts:", "in counts.items():"),
    ("add_method_call", """
        def is_yes(answer):
            return answer == "yes"
        """, 'answer == "yes"', 'answer.lower() == "yes"'),
    ("same_function_more_args", """
        def fmt(x, digits=2):
            return round(x, digits)


        def price(x):
            return fmt(x, 0)


        def weight(x):
            return fmt(x)
        """, "return fmt(x)\n", "return fmt(x, 0)\n"),
    ("same_function_more_args", """
        def scale(x, factor=1):
            return x * factor


        def grow(x, factor):
            return scale(x)
        """, "scale(x)", "scale(x, factor)"),
    ("same_function_less_args", "def f(x):\n    return round(x, 2)\n", "round(x, 2)", "round(x)"),
    ("same_function_swap_args", "def f(a, b):\n    return pow(a, b)\n", "pow(a, b)", "pow(b, a)"),
    ("same_function_wrong_caller", """
        def take(stack, spare):
            spare.append(1)
            return stack.pop()
        """, "stack.pop()", "spare.pop()"),
    ("change_keyword_argument_used", """
        def box(text, width=10, height=2):
            return text * width * height


        def show(t):
            return box(t, height=5)
        """, "height=5", "width=5"),
    ("add_function_around_expression", "def gap(a, b):\n    return a - b\n", "a - b", "abs(a - b)"),
    ("add_function_around_expression", "def gap(a, b):\n    return a - b\n", "a - b", "max(0, a - b)"),
    ("add_function_around_expression", "def half(n):\n    return n / 2\n", "n / 2", "int(n / 2)"),
    ("add_function_around_expression", 'def label(n):\n    return "n=" + n\n', '"n=" + n', '"n=" + str(n)'),
    ("add_function_around_expression", "def squares(xs):\n    return map(abs, xs)\n",
     "map(abs, xs)", "list(map(abs, xs))"),
    ("add_function_around_expression", """
        def names(d):
            for k in d:
                print(k)
        """, "for k in d:", "for k in sorted(d):"),
    ("add_function_around_expression", """
        def first_negative(xs):
            for i in range(xs):
                if xs[i] < 0:
                    return i
        """, "range(xs)", "range(len(xs))"),
    ("add_function_around_expression", """
        def total(line):
            parts = line.split(",")
            s = 0
            s += parts[1]
            return s
        """, "s += parts[1]", "s += int(parts[1])"),
    ("add_function_around_expression", """
        def size_label(n):
            n = float(n)
            return f"{n} B"
        """, 'f"{n} B"', 'f"{int(n)} B"'),
    ("add_function_around_expression", """
        def size_label(n, short=False):
            n = float(n)
            return f"{n}B" if short else f"{n} bytes"
        """, 'f"{n}B" if short else f"{n} bytes"', 'f"{int(n)}B" if short else f"{int(n)} bytes"'),
    ("wrong_function_name", """
        from datetime import datetime


        def clock(text):
            stamp = datetime.strptime(text, "%H:%M%z")
            return stamp.time()
        """, "stamp.time()", "stamp.timetz()"),
    ("change_regex_quantifier", """
        import re


        def is_zip(text):
            return re.fullmatch(r"[0-9]{5}(-[0-9]{4})?", text) is not None
        """, "[0-9]{5}(", "[0-9]{1,5}("),
    ("remove_function_around_expression", "def half(n):\n    return int(n / 2)\n", "int(n / 2)", "n / 2"),
    ("remove_function_around_expression", "def f(g, x):\n    return g(x) + 1\n", "g(x)", "x"),
    ("remove_function_around_expression", "def f(d):\n    return max(0, d)\n", "max(0, d)", "d"),
    ("change_numeric_literal", """
        def grade(score):
            if score >= 90:
                return "A"
            if score >= 75:
                return "B"
            return "C"
        """, "score >= 75", "score >= 90"),
    ("change_numeric_literal", "def f():\n    rate = 0.0\n    return rate\n", "rate = 0.0", "rate = 1.0"),
    ("change_numeric_literal", "def f(n):\n    return n * 8\n", "n * 8", "n * 9"),
    ("change_boolean_literal", "def f(xs):\n    return sorted(xs, reverse=True)\n", "reverse=True", "reverse=False"),
    ("change_boolean_literal", """
        def drain(items):
            running = len(items) > 0
            while True:
                running = items.pop() != 0
            return running
        """, "while True:", "while running:"),
    ("change_boolean_literal", "def f(g, x):\n    return g(x, default=None)\n", "default=None", "default=False"),
    ("change_binary_operand", FULL,
     "first + ', ' + last", "last + ', ' + first"),
    ("change_binary_operand", FULL,
     "first + ', ' + last", "first + last + ', '"),
    ("change_binary_operand", "def f(a, b):\n    return a % b\n", "a % b", "b % a"),
    ("change_binary_operand", "def f(word, line):\n    return word in line\n", "word in line", "line in word"),
    ("change_binary_operator", "def f(a, b):\n    return a ^ b\n", "a ^ b", "a & b"),
    ("change_binary_operator", "def f(a, b):\n    a ^= b\n    return a\n", "a ^= b", "a |= b"),
    ("change_binary_operator", "def f(a, b):\n    a &= b\n    return a\n", "a &= b", "a ^= b"),
    ("change_binary_operator", "def f(a, b):\n    if a > b:\n        return a\n    return b\n", "a > b", "a >= b"),
    ("change_unary_operator", "def f(x):\n    return -x\n", "-x", "x"),
    ("change_unary_operator", "def f(ok):\n    if not ok:\n        return 1\n    return 0\n", "not ok", "ok"),
    ("change_unary_operator", "def f(rows):\n    return sorted(rows, key=lambda r: r[1])\n",
     "lambda r: r[1]", "lambda r: -r[1]"),
    ("more_specific_if", PICK, "if x > 0:", "if x > 0 and y > 0:"),
    ("more_specific_if", """
        def positive(node):
            if node.value > 0:
                return True
            return False
        """, "if node.value > 0:", "if node is not None and node.value > 0:"),
    ("more_specific_if", "def f(a, b):\n    if a or b:\n        return 1\n    return 0\n", "if a or b:", "if a:"),
    ("less_specific_if", "def f(a, b):\n    if a and b:\n        return 1\n    return 0\n", "if a and b:", "if b:"),
    ("less_specific_if", PICK, "if y > 0:", "if y > 0 or x > 0:"),
    ("add_elements_to_iterable", "def f(n):\n    rows = []\n    return rows * n\n", "rows = []", "rows = [[]]"),
    ("add_elements_to_iterable", "def moves():\n    return [(0, 1), (1, 0), (0, -1)]\n",
     "(0, -1)]", "(0, -1), (-1, 0)]"),
    ("change_constant_type", "def ok(status):\n    return status == 200\n", "status == 200", 'status == "200"'),
    ("change_constant_type", "def f(x):\n    return x + '3'\n", "'3'", "3"),
    ("add_subscript", "def f(xs):\n    for x in xs:\n        print(x)\n", "in xs:", "in xs[1:]:"),
    ("add_subscript", "def f(xs):\n    xs.sort()\n    return xs\n", "return xs", "return xs[0]"),
    ("remove_subscript", "def f(xs):\n    return len(xs[0])\n", "xs[0]", "xs"),
    ("index_shift", "def f(grid, i, j):\n    return grid[i, j]\n", "grid[i, j]", "grid[i, j + 1]"),
    ("change_recursive_argument", """
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n)
        """, "* fact(n)", "* fact(n - 1)"),
    ("change_recursive_argument", """
        def total(xs):
            if not xs:
                return 0
            return xs[0] + total(xs)
        """, "+ total(xs)", "+ total(xs[1:])"),
]


@pytest.mark.parametrize("operator, code, old, new", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_pattern_operator_produces_expected_mutant(tmp_path, operator, code, old, new):
    text, outs = mutants_of(tmp_path, code)
    assert text.count(old) == 1
    expected = text.replace(old, new)
    assert expected in outs, f"no mutant {new!r}"
    assert outs[expected] == operator


def test_add_statement_copies_a_statement_from_the_sibling_branch(tmp_path):
    text, outs = mutants_of(tmp_path, """
        def tally(words):
            seen, total = {}, 0
            for w in words:
                if w in seen:
                    seen[w] += 1
                    total += 1
                else:
                    seen[w] = 1
            return total
        """)
    expected = text.replace("            seen[w] = 1\n", "            seen[w] = 1\n            total += 1\n")
    assert outs.get(expected) == "add_statement"


def test_add_statement_goes_before_the_closing_jump(tmp_path):
    text, outs = mutants_of(tmp_path, """
        def scan(xs):
            hits, n = [], 0
            for x in xs:
                if x > 0:
                    hits.append(x)
                    n += 1
                else:
                    hits.append(0)
                    continue
            return hits, n
        """)
    expected = text.replace("            continue\n", "            n += 1\n            continue\n")
    assert outs.get(expected) == "add_statement"


def test_unwanted_mutants_are_not_made(tmp_path):
    text, outs = mutants_of(tmp_path, """
        def pair(a, b):
            return a * b


        def mean(xs):
            return sum(xs) / len(xs)


        def report(xs, k):
            for x in xs:
                print(x)
            return mean(xs) * k
        """)
    assert text.replace("mean(xs) * k", "k * mean(xs)") not in outs  # a commutative swap
    assert text.replace("mean(xs) * k", "pair(xs) * k") not in outs  # pair takes two arguments
    assert text.replace("len(xs)", "len()") not in outs  # len takes one
    assert text.replace("for x in xs:", "for x in x:") not in outs  # the loop's own target


def test_identifier_candidates_are_the_nearest_few(tmp_path):
    text, outs = mutants_of(tmp_path, """
        def f(a):
            b1 = a + 1
            b2 = a + 2
            b3 = a + 3
            b4 = a + 4
            b5 = a + 5
            b6 = a + 6
            return b6
        """)
    assert text.replace("return b6", "return b5") in outs
    assert text.replace("return b6", "return b2") not in outs  # farther than the nearest three


def test_priors_come_from_the_table():
    rows = [line.split() for line in patterns.__doc__.splitlines() if line.split()[:1] and line.split()[0] in TAXONOMY]
    assert {row[0]: float(row[-1]) for row in rows} == {op: PRIOR[op] for op in TAXONOMY}  # the docstring table
    assert set(TAXONOMY) <= set(PRIOR) and set(HAND_PRIORS) <= set(PRIOR)
    assert all(0.3 <= p <= 1.0 for p in PRIOR.values())
    # the pattern ordering of the table, per candidate: a larger share or a smaller fan-out ranks higher
    rate = {op: count / fanout for op, (count, _, fanout) in TAXONOMY.items()}
    ops = sorted(TAXONOMY, key=rate.get)
    assert [PRIOR[op] for op in ops] == sorted(PRIOR[op] for op in ops)
    assert max(PRIOR[op] for op in TAXONOMY) < PRIOR["bound_shift"]  # off-by-one edits stay first
