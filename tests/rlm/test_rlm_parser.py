"""parse_response over a table of replies as models really write them."""

import pytest

from codur.rlm.parser import FinalAnswer, parse_response

F = FinalAnswer

CASES = [
    # (id, reply, code blocks, final, thinking contains)
    ("final-only", "FINAL(42)", [], F("direct", "42"), ""),
    ("final-after-prose", "The magic number is in line 3.\nFINAL(48213)", [], F("direct", "48213"),
     "The magic number is in line 3."),
    ("final-var", "I stored it.\nFINAL_VAR(answer)", [], F("variable", "answer"), "I stored it."),
    ("final-var-quoted", 'FINAL_VAR("result")', [], F("variable", "result"), ""),
    ("final-nested-parens", "FINAL(f(x) is called (twice) in main())", [],
     F("direct", "f(x) is called (twice) in main()"), ""),
    ("final-quoted-string", 'FINAL("Paris")', [], F("direct", "Paris"), ""),
    ("final-multiline", "FINAL(first line\nsecond line)", [], F("direct", "first line\nsecond line"), ""),
    ("final-unclosed", "FINAL(the answer is 7", [], F("direct", "the answer is 7"), ""),
    ("repl-block", "Let me look.\n```repl\nprint(len(context))\n```", ["print(len(context))"], None,
     "Let me look."),
    ("python-block", "```python\nx = 1\nprint(x)\n```\n", ["x = 1\nprint(x)"], None, ""),
    ("two-blocks-in-order", "First:\n```repl\na = 1\n```\nThen:\n```python\nprint(a)\n```",
     ["a = 1", "print(a)"], None, "First:"),
    ("code-then-final", "```repl\nx = search_context('needle')\nprint(x)\n```\nFINAL_VAR(x)",
     ["x = search_context('needle')\nprint(x)"], F("variable", "x"), ""),
    ("final-inside-repl-is-code", "```repl\nanswer = 3\nFINAL(answer)\n```", ["answer = 3\nFINAL(answer)"],
     None, ""),
    ("final-inside-other-fence-ignored", "Example:\n```text\nFINAL(99)\n```\nStill looking.", [], None,
     "Still looking."),
    ("fence-final-then-real-final", "```python\nFINAL(1)\n```\nFINAL(2)", ["FINAL(1)"], F("direct", "2"), ""),
    ("bare-fence-not-code", "```\nls -la\n```", [], None, "ls -la"),
    ("json-fence-not-code", '```json\n{"a": 1}\n```', [], None, '"a": 1'),
    ("unclosed-block-runs-to-end", "```repl\nprint('cut by max_tokens'", ["print('cut by max_tokens'"], None, ""),
    ("empty-final-ignored", "I will call FINAL() once I know.", [], None, "I will call  once I know."),
    ("final-var-not-identifier", "FINAL_VAR(the result)", [], None, ""),
    ("final-var-of-a-value", "The port is 41468. FINAL_VAR(41468)", [], F("direct", "41468"), "The port is 41468."),
    ("final-var-of-an-expression-runs", '```repl\nhits = grep("ERROR")\n```\nFINAL_VAR(len(hits))',
     ['hits = grep("ERROR")', "FINAL_VAR(len(hits))"], None, ""),
    ("final-var-of-an-index-runs", "FINAL_VAR(rows[0])", ["FINAL_VAR(rows[0])"], None, ""),
    ("first-final-wins", "FINAL(a)\nFINAL(b)", [], F("direct", "a"), ""),
    ("not-a-marker", "MY_FINAL(3) and obj.FINAL(4)", [], None, "MY_FINAL(3)"),
    ("tilde-fence", "~~~python\nprint(1)\n~~~", ["print(1)"], None, ""),
    ("indented-fence", "  ```repl\n  print(2)\n  ```", ["  print(2)"], None, ""),
    ("upper-case-lang", "```Python\nprint(3)\n```", ["print(3)"], None, ""),
    ("backticks-in-code", "```repl\ns = '``'\nprint(s)\n```", ["s = '``'\nprint(s)"], None, ""),
    ("no-protocol", "The answer is probably 42.", [], None, "The answer is probably 42."),
    ("empty-block-skipped", "```repl\n\n```\nFINAL(x)", [], F("direct", "x"), ""),
]


@pytest.mark.parametrize("reply, blocks, final, thinking", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_parse_table(reply, blocks, final, thinking):
    parsed = parse_response(reply)
    assert list(parsed.code_blocks) == blocks
    assert parsed.final == final
    assert thinking in parsed.thinking


def test_thinking_excludes_code_and_markers():
    parsed = parse_response("Plan: count.\n```repl\nprint(1)\n```\nDone.\nFINAL(1)")
    assert "print(1)" not in parsed.thinking
    assert "FINAL" not in parsed.thinking
    assert parsed.thinking.startswith("Plan: count.") and "Done." in parsed.thinking
