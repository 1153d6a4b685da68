"""A method that names its own class where it means the instance's class:
``Money(...)`` -> ``type(self)(...)`` (:mod:`codur.mutation.classes`)."""

from __future__ import annotations

from pathlib import Path

from codur import RunStatus
from codur.mutation import generate_mutants

from .conftest import mutation_run, write_repo

MONEY = '''"""Amounts of money in cents, so that sums never pick up floating-point error."""


class Money:
    def __init__(self, cents, currency="EUR"):
        self.cents = cents
        self.currency = currency

    def __add__(self, other):
        if not isinstance(other, Money) or other.currency != self.currency:
            return NotImplemented
        return Money(self.cents + other.cents, self.currency)

    def __mul__(self, factor):
        return type(self)(round(self.cents * factor), self.currency)

    def __eq__(self, other):
        return isinstance(other, Money) and (self.cents, self.currency) == (other.cents, other.currency)

    def __repr__(self):
        return f"{type(self).__name__}({self.cents}, {self.currency!r})"


class Price(Money):
    """A net price; ``gross`` adds a tax rate such as 0.2."""

    def gross(self, rate):
        return Money(round(self.cents * (1 + rate)), self.currency)
'''

TESTS = '''import pytest

from money import Money, Price


def test_amounts_add_up_in_cents():
    assert Money(10) + Money(25) == Money(35)


def test_currencies_do_not_mix():
    with pytest.raises(TypeError):
        Money(10, "EUR") + Money(10, "USD")


def test_a_price_scaled_is_still_a_price():
    assert (Price(100) * 3).gross(0.2) == Money(360)


def test_prices_added_are_still_a_price():
    total = Price(100) + Price(250)
    assert isinstance(total, Price)
    assert total.gross(0.2) == Money(420)
'''


def _class_mutants(tmp_path: Path, code: str) -> list[str]:
    (tmp_path / "m.py").write_text(code)
    scores = {("m.py", n): 1.0 for n in range(1, code.count("\n") + 2)}
    mutants, texts = generate_mutants(tmp_path, scores, limit=100_000)
    return [m.apply(texts["m.py"]) for m in mutants if m.order == 1 and "-> `type(self)`" in m.description]


def test_a_class_named_in_a_method_becomes_the_instance_class(tmp_path: Path):
    texts = _class_mutants(tmp_path, MONEY)
    assert MONEY.replace("return Money(self.cents + other.cents", "return type(self)(self.cents + other.cents") in texts
    assert MONEY.replace("isinstance(other, Money) or", "isinstance(other, type(self)) or") in texts
    assert len(texts) == 4  # __add__ twice, __eq__ once, gross once; not __mul__'s type(self), not Price


def test_no_instance_class_outside_a_method_in_super_or_an_annotation(tmp_path: Path):
    code = ("class Node:\n    pass\n\n\ndef build():\n    return Node()\n\n\nclass Leaf(Node):\n"
            "    def __init__(self, parent: Node):\n        super(Node, self).__init__()\n"
            "        self.parent = parent\n")
    assert _class_mutants(tmp_path, code) == []


def test_the_mutation_search_keeps_the_subclass_of_a_sum(tmp_path: Path):
    repo = write_repo(tmp_path / "money", {"money.py": MONEY, "test_money.py": TESTS})
    result = mutation_run(repo, repair_workers=1, mutation_time_box_s=120)
    assert result.status is RunStatus.SUCCESS, result.reason
    assert "return type(self)(self.cents + other.cents, self.currency)" in (repo / "money.py").read_text()
    assert (repo / "test_money.py").read_text() == TESTS
