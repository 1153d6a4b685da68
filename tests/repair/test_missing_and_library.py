"""The missing-statement operators (a never-ending ``while``, the last batch of a loop) and
the standard-library ones (optional arguments, chained string methods, negated sums), on
small code of our own."""

from __future__ import annotations

import pytest

from .test_operators_taxonomy import mutants_of

CASES = [
    # (operator, code, old, new): `old` occurs once in `code`; `new` replaces it in a mutant
    ("mirror_link", """
        class Node:
            def __init__(self, value):
                self.value, self.prev, self.next = value, None, None


        class Playlist:
            def __init__(self):
                self.head = self.tail = None

            def append(self, value):
                node = Node(value)
                if self.tail is None:
                    self.head = self.tail = node
                    return
                self.tail.next = node
                self.tail = node
        """, "        self.tail.next = node\n", "        node.prev = self.tail\n        self.tail.next = node\n"),
    ("keep_discarded_result", """
        def backoff(first, cap):
            out, delay = [], first
            while delay < cap:
                out.append(delay)
                delay * 2
            return out
        """, "        delay * 2\n", "        delay *= 2\n"),
    ("keep_discarded_result", """
        def tags(text):
            found = []
            for tag in text.split(","):
                tag.strip()
                found.append(tag)
            return found
        """, "        tag.strip()\n", "        tag = tag.strip()\n"),
    ("advance_loop_variable", """
        def digit_sum(n):
            total = 0
            while n > 0:
                total += n % 10
            return total
        """, "        total += n % 10\n", "        total += n % 10\n        n //= 10\n"),
    ("advance_loop_variable", """
        def first_gap(slots):
            i = 0
            while i < len(slots) and slots[i]:
                print(slots[i])
            return i
        """, "        print(slots[i])\n", "        print(slots[i])\n        i += 1\n"),
    ("advance_loop_variable", """
        def export_all(api, start=0):
            records, cursor = [], start
            while cursor is not None:
                page = api.page(cursor)
                records.extend(page["items"])
            return records
        """, '        records.extend(page["items"])\n',
     '        records.extend(page["items"])\n        cursor = page["next"]\n'),
    ("advance_loop_variable", """
        def total(head):
            node, s = head, 0
            while node:
                s += node.value
            return s


        def last(head):
            while head.next is not None:
                head = head.next
            return head
        """, "        s += node.value\n", "        s += node.value\n        node = node.next\n"),
    ("return_at_end", """
        def normalize(raw: str) -> str:
            digits = "".join(c for c in raw if c.isdigit())
            if len(digits) == 10:
                digits = "1" + digits
            if len(digits) != 11:
                raise ValueError(raw)
        """, "        raise ValueError(raw)\n", "        raise ValueError(raw)\n    return digits\n"),
    ("return_at_end", """
        def largest(xs):
            if not xs:
                return None
            best = xs[0]
            for x in xs:
                best = max(best, x)
        """, "        best = max(best, x)\n", "        best = max(best, x)\n    return best\n"),
    ("flush_after_loop", """
        def chunks(items, size):
            out, chunk = [], []
            for item in items:
                chunk.append(item)
                if len(chunk) == size:
                    out.append(chunk)
                    chunk = []
            return out
        """, "    return out", "    if chunk:\n        out.append(chunk)\n    return out"),
    ("flush_after_loop", """
        def sentences(words):
            current = []
            for word in words:
                if word != ".":
                    current.append(word)
                elif current:
                    yield " ".join(current)
                    current = []
        """, "            current = []\n",
     "            current = []\n    if current:\n        yield ' '.join(current)\n".replace("'", '"')),
    ("dedent_last_statement", """
        def next_free(taken, start, step):
            t = start
            while t in taken:
                if t % 2:
                    print("odd slot taken", t)
                    t += step
            return t
        """, "            t += step\n", "        t += step\n"),
    ("dedent_last_statement", """
        def total(xs):
            s = 0
            for x in xs:
                s += x
                return s
        """, "        return s\n", "    return s\n"),
    ("same_function_more_args", """
        def header(line):
            name, value = line.split(":")
            return name, value
        """, 'line.split(":")', 'line.split(":", 1)'),
    ("same_function_more_args", """
        def ranking(scores):
            return sorted(scores, key=len)
        """, "sorted(scores, key=len)", "sorted(scores, key=len, reverse=True)"),
    ("same_function_more_args", """
        def stock(counts, item):
            return counts.get(item) + 1
        """, "counts.get(item)", "counts.get(item, 0)"),
    ("same_function_less_args", """
        def words(text):
            return text.split(" ")
        """, 'text.split(" ")', "text.split()"),
    ("add_method_call", """
        def handle(name):
            return name.replace(" ", "_")
        """, 'name.replace(" ", "_")', 'name.replace(" ", "_").lower()'),
    ("change_unary_operator", """
        def losses(changes):
            return sum(c for c in changes if c < 0)
        """, "sum(c for c", "sum(-c for c"),
    ("add_function_around_expression", """
        def evens(xs):
            for x in xs:
                if x % 2 == 0:
                    yield x


        def report(xs):
            found = evens(xs)
            return len(found), found
        """, "found = evens(xs)", "found = list(evens(xs))"),
    ("more_specific_if", """
        def overdue(task, today):
            if today > task.due:
                return True
            return False
        """, "if today > task.due:", "if task.due is not None and today > task.due:"),
]


@pytest.mark.parametrize("operator, code, old, new", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_operator_produces_expected_mutant(tmp_path, operator, code, old, new):
    text, outs = mutants_of(tmp_path, code)
    assert text.count(old) == 1
    assert outs.get(text.replace(old, new)) == operator


def test_a_loop_that_changes_its_condition_or_can_leave_gets_no_update(tmp_path):
    for code in ("""
        def drain(queue):
            while queue:
                queue.pop()
        """, """
        def wait(ready):
            while not ready():
                pass
        """, """
        def find(xs, i):
            while i < len(xs):
                if xs[i]:
                    return i
        """):
        _, outs = mutants_of(tmp_path, code)
        assert "advance_loop_variable" not in outs.values()


def test_a_loop_without_a_reset_gets_no_flush(tmp_path):
    _, outs = mutants_of(tmp_path, """
        def totals(rows):
            out = []
            for row in rows:
                out.append(sum(row))
            return out
        """)
    assert "flush_after_loop" not in outs.values()


def test_optional_arguments_are_not_added_twice(tmp_path):
    _, outs = mutants_of(tmp_path, """
        def ranking(scores):
            return sorted(scores, reverse=True)
        """)
    assert outs and not any(t.count("reverse=True") > 1 for t in outs)


@pytest.mark.parametrize("code", [
    """
    def log(msg):
        print(msg)
    """,
    """
    def sign(x) -> int:
        if x < 0:
            return -1
        else:
            return 1
    """,
    """
    def items(xs) -> list:
        for x in xs:
            yield x
    """,
    """
    def check(x) -> None:
        if x < 0:
            raise ValueError(x)
    """,
])
def test_a_function_that_cannot_fall_off_its_end_or_returns_nothing_gets_no_return(tmp_path, code):
    _, outs = mutants_of(tmp_path, code)
    assert "return_at_end" not in outs.values()
