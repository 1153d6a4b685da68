"""Anti-patterns of a change, judged on the AST of the functions it changes: each rule on a
small program of ours, where a test-passing variant is refused or held back and the real fix
is not (codur/validate/antipatterns.py)."""

from __future__ import annotations

import json
from pathlib import Path

from codur.validate.antipatterns import Finding, Kind, judge, judge_files, refusal

from .conftest import UPLOAD_DATES

BENCH = Path(__file__).resolve().parents[2] / "bench"

DATES = UPLOAD_DATES

URLS = '''import re


def join_url(base, path):
    """base + path, or None when base is no http(s) URL."""
    if not isinstance(base, str) or not re.match(r"https?://", base):
        return None
    return base.rstrip("/") + "/" + path.lstrip("/")
'''

ORDERS = '''AUDIT = []


def take_order(order):
    """Check an order, write it in the audit log, return its total."""
    if order["qty"] < 0:
        raise ValueError("quantity")
    AUDIT.append(order["sku"])
    len(order)
    total = order["qty"] * order["price"]
    if total > 100:
        total = total * 0.95
    return total
'''

WEIGHTS = '''def total_weight(parcels):
    """The weight of the parcels that have one, kilograms."""
    total = 0
    for parcel in parcels:
        if parcel.weight > 0:
            total += parcel.weight
    return total
'''


def kinds(findings: list[Finding]) -> list[tuple[str, bool]]:
    return [(f.kind.value, f.refused) for f in findings]


# -- refused ---------------------------------------------------------------------------------


def test_code_left_unreachable_is_refused_the_real_fix_is_not():
    shortcut = DATES.replace("            continue\n    parsed", "            continue\n    return None\n    parsed")
    found = judge(DATES, shortcut, "dates.py")
    assert kinds(found) == [("unreachable", True)]
    assert found[0].line == 15 and found[0].text.startswith("parsed = email.utils")
    assert refusal(found) == "leaves code unreachable at dates.py:15 (parsed = email.utils.parsedate_to_datetime(text))"
    real = DATES.replace("    parsed = email.utils.parsedate_to_datetime(text)\n    return parsed.date()",
                         "    parsed = email.utils.parsedate_to_datetime(text)\n"
                         "    if parsed is not None:\n        return parsed.date()\n    return None")
    assert judge(DATES, real, "dates.py") == []


def test_a_loop_pasted_again_with_an_early_return_is_refused():
    pasted = DATES.replace("    for fmt in FORMATS:", "    for fmt in FORMATS:\n        try:\n"
                           "            return datetime.strptime(text, fmt).date()\n        except ValueError:\n"
                           "            return None\n    for fmt in FORMATS:", 1)
    found = judge(DATES, pasted, "dates.py")
    assert ("duplicate_block", True) in kinds(found)
    assert refusal(found) is not None


def test_a_block_duplicated_from_the_same_function_is_refused():
    twice = WEIGHTS.replace("    return total", "    for parcel in parcels:\n        if parcel.weight >= 0:\n"
                            "            total += parcel.weight\n    return total")
    found = judge(WEIGHTS, twice, "weights.py")
    assert kinds(found) == [("duplicate_block", True)]
    assert found[0].line == 7 and "for parcel in parcels" in found[0].text
    assert refusal(found) == "duplicates the block at weights.py:4 (for parcel in parcels: ...) at weights.py:7"


def test_an_unconditional_return_first_in_a_function_or_loop_is_refused():
    first = WEIGHTS.replace('    """The weight of the parcels that have one, kilograms."""\n',
                            '    """The weight of the parcels that have one, kilograms."""\n    return 0\n')
    assert kinds(judge(WEIGHTS, first, "weights.py"))[0] == ("early_exit", True)
    loop = "def first_big(xs):\n    for x in xs:\n        if x > 9:\n            return x\n    return None\n"
    exits = "def first_big(xs):\n    for x in xs:\n        return x\n    return None\n"
    found = judge(loop, exits, "big.py")
    assert kinds(found)[0] == ("early_exit", True) and found[0].line == 3
    guarded = "def first_big(xs):\n    for x in xs:\n        if x >= 9:\n            return x\n    return None\n"
    assert judge(loop, guarded, "big.py") == []


# -- held back -------------------------------------------------------------------------------


def test_a_deleted_guard_is_held_back_a_widened_one_is_not():
    no_guard = URLS.replace('    if not isinstance(base, str) or not re.match(r"https?://", base):\n'
                            "        return None\n", "")
    found = judge(URLS, no_guard, "utils.py")
    assert kinds(found) == [("deleted_guard", False)] and found[0].line == 6
    assert found[0].describe() == ("deletes the guard at utils.py:6 (if not isinstance(base, str) or ...: "
                                   "return None); review whether bad input still needs rejecting")
    assert refusal(found) is None
    widened = URLS.replace('r"https?://"', 'r"[a-z][a-z0-9+.-]*://"')
    assert judge(URLS, widened, "utils.py") == []


def test_a_guard_weakened_from_its_own_parts_is_held_back_one_narrowed_by_a_new_condition_is_not():
    weakened = URLS.replace("not isinstance(base, str) or not re.match", "not isinstance(base, str) and not re.match")
    found = judge(URLS, weakened, "utils.py")
    assert kinds(found) == [("weakened_guard", False)] and found[0].line == 6
    assert found[0].describe() == ('weakens the guard at utils.py:6 (not isinstance(base, str) or not '
                                   're.match(r"https?://", base)) to (not isinstance(base, str) and not '
                                   're.match(r"https?://", base)); review whether what it let through '
                                   'still needs rejecting')
    half = URLS.replace("not isinstance(base, str) or not re.match", "not re.match")
    assert kinds(judge(URLS, half, "utils.py")) == [("weakened_guard", False)]  # an operand of its or dropped
    narrowed = URLS.replace('re.match(r"https?://", base):', 're.match(r"https?://", base) and base != "":')
    assert judge(URLS, narrowed, "utils.py") == []  # a condition of its own added: a fix reads so
    swapped = ORDERS.replace("if total > 100:", "if total > 100 and order['qty'] > 1:")
    assert judge(ORDERS, swapped, "orders.py") == []  # not a guard: its body does not exit


def test_a_deleted_raise_is_held_back():
    no_raise = ORDERS.replace('        raise ValueError("quantity")', '        order["qty"] = 0')
    found = judge(ORDERS, no_raise, "orders.py")
    assert kinds(found) == [("deleted_raise", False)] and found[0].line == 7


def test_a_deleted_call_with_side_effects_is_held_back_a_pure_builtin_is_not():
    no_audit = ORDERS.replace('    AUDIT.append(order["sku"])\n', "")
    found = judge(ORDERS, no_audit, "orders.py")
    assert kinds(found) == [("deleted_call", False)] and found[0].text == 'AUDIT.append(order["sku"])'
    assert judge(ORDERS, ORDERS.replace("    len(order)\n", ""), "orders.py") == []
    moved = ORDERS.replace('AUDIT.append(order["sku"])', 'AUDIT.append(order["sku"].upper())')
    assert judge(ORDERS, moved, "orders.py") == []  # the call kept, its argument changed


def test_a_negated_condition_is_held_back_a_changed_bound_is_not():
    negated = ORDERS.replace("if total > 100:", "if not total > 100:")
    assert kinds(judge(ORDERS, negated, "orders.py")) == [("negated_condition", False)]
    inverted = ORDERS.replace("if total > 100:", "if total <= 100:")
    assert kinds(judge(ORDERS, inverted, "orders.py")) == [("negated_condition", False)]
    bound = ORDERS.replace("if total > 100:", "if total >= 100:")
    assert judge(ORDERS, bound, "orders.py") == []


def test_a_condition_replaced_by_a_constant_is_held_back():
    constant = ORDERS.replace("if total > 100:", "if True:")
    found = judge(ORDERS, constant, "orders.py")
    assert kinds(found) == [("constant_condition", False)] and found[0].line == 11
    assert "replaces the condition at orders.py:11 (total > 100) by True" in found[0].describe()


# -- the scope of the judgement ----------------------------------------------------------------


def test_only_python_code_files_are_judged_and_a_file_that_does_not_parse_is_left_to_its_tests():
    no_guard = URLS.replace('    if not isinstance(base, str) or not re.match(r"https?://", base):\n'
                            "        return None\n", "")
    assert judge_files({"tests/test_utils.py": URLS}, {"tests/test_utils.py": no_guard}) == []
    assert judge_files({"utils.txt": URLS}, {"utils.txt": no_guard}) == []
    assert judge(URLS, "def join_url(:\n", "utils.py") == []
    assert kinds(judge_files({"utils.py": URLS}, {"utils.py": no_guard})) == [("deleted_guard", False)]
    assert judge_files({}, {"new.py": "def f():\n    return 1\n    print(2)\n"})[0].kind is Kind.UNREACHABLE


def test_unreachable_code_that_was_there_before_is_not_the_change():
    old = "def f(x):\n    return x\n    print(x)\n"
    new = "def f(x):\n    return x + 1\n    print(x)\n"
    assert judge(old, new, "f.py") == []


def test_no_reference_fix_of_the_benches_is_refused():
    """The reference fixes of the benches: none refused (a real fix never is); of bench/agent's
    solutions none is held back, of bench/repair's one: a bug whose real fix is a negated
    condition (the tests cannot tell it from a shortcut)."""
    for task in sorted((BENCH / "agent" / "tasks").iterdir()):
        solution = task / "solution"
        new = {f.relative_to(solution).as_posix(): f.read_text() for f in solution.rglob("*.py")}
        old = {rel: (task / rel).read_text() if (task / rel).exists() else None for rel in new}
        assert judge_files(old, new) == [], task.name
    held = []
    for meta_path in sorted(BENCH.glob("repair/corpus*/*/meta.json")):
        meta = json.loads(meta_path.read_text())
        fix = meta["fix"]
        source = (meta_path.parent / fix["file"]).read_text()
        fixed = source.replace(fix["old"], fix["new"], 1)
        found = judge(source, fixed, fix["file"])
        assert refusal(found) is None, (meta_path.parent.name, found)
        held += [(meta_path.parent.name, f.kind.value) for f in found]
    assert held == [("09_palindrome", "negated_condition")]
