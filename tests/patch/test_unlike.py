"""The grammar that keeps a cloze fill from giving the masked code back (codur.patch.unlike), and
how the fill-in-the-middle asker sends it: the language checked through its regular-expression
twin, the request checked on a local HTTP server that speaks ``/v1/completions``."""

from __future__ import annotations

from pathlib import Path

from codur.llm.deadline import DeadlineChatOpenAI
from codur.llm.local import MODEL_ALIAS
from codur.patch.holes import FimAsk, fim_tokens
from codur.patch.masks import masks
from codur.patch.unlike import gbnf, regex

from .test_cloze import json_server


def fills(original: str, after: str, tries: list[str]) -> dict[str, bool]:
    language = regex(original, after)
    return {t: bool(language.fullmatch(t)) for t in tries}


def test_the_masked_code_again_is_no_fill_however_it_is_spaced_or_commented():
    assert fills("weight_kg", "", ["weight_kg", "  weight_kg ", "weight_kg  # kilograms", "weight_kg\n    x = 1",
                                   "", "   ", "# weight"]) == dict.fromkeys(
        ["weight_kg", "  weight_kg ", "weight_kg  # kilograms", "weight_kg\n    x = 1", "", "   ", "# weight"], False)
    assert fills("weight_kg", "", ["math.ceil(weight_kg)", "weight_kg / 1000", "weight", "weight_kg2",
                                   "w\nweight_kg"]) == dict.fromkeys(
        ["math.ceil(weight_kg)", "weight_kg / 1000", "weight", "weight_kg2", "w\nweight_kg"], True)


def test_the_masked_condition_with_the_colon_that_follows_the_hole_is_no_fill():
    after = ":\n        out.append(name)\n"
    assert fills("email", after, ["email:", "email :", "email:  # has one", "email", "email and name:", "not email",
                                  "email: x"]) == {
        "email:": False, "email :": False, "email:  # has one": False, "email": False,
        "email and name:": True, "not email": True, "email: x": True}
    # a call's closing parenthesis too
    assert fills("x, 1", ")\n", ["x, 1)", "x, 1", '":", 1)', "x, 1, 2"]) == {
        "x, 1)": False, "x, 1": False, '":", 1)': True, "x, 1, 2": True}


def test_a_new_line_is_any_code_but_blank_or_a_comment():
    assert fills("", "\n    return total\n", ["", "  ", "# check", "if not xs:", "total += 1"]) == {
        "": False, "  ": False, "# check": False, "if not xs:": True, "total += 1": True}


def test_the_grammar_escapes_what_gbnf_reads_specially():
    text = gbnf('a["k"]\\-^', "")
    assert '"\\"" ' in text and "[^\\n\\]]" in text and "[^\\n\\\\]" in text and "[^\\n\\-]" in text
    assert "[^\\n\\^]" in text and text.startswith("root ::= pad r0 end\n")
    assert regex('a["k"]\\-^', "").fullmatch('a["k"]\\-^') is None
    assert regex('a["k"]\\-^', "").fullmatch('a["j"]\\-^') is not None


TEXT = "def total(xs):\n    return sum(xs)\n"


def asked(status_for_grammar: int) -> tuple[list[str], list[dict]]:
    """Two fills of ``sum(xs)`` asked of a local server that answers a request carrying a grammar
    with ``status_for_grammar``; (the fills, the request bodies)."""
    seen: list[dict] = []

    def complete(path: str, body: dict) -> tuple[int, dict]:
        seen.append(body)
        if "grammar" in body and status_for_grammar != 200:
            return status_for_grammar, {"error": {"message": "grammar not supported", "type": "invalid_request_error"}}
        return 200, {"id": "c", "object": "text_completion", "created": 0, "model": body["model"],
                     "choices": [{"index": 0, "text": "sum(xs, 0)", "finish_reason": "stop", "logprobs": None}],
                     "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}
    server = json_server(complete)
    try:
        model = DeadlineChatOpenAI(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="local",
                                   model=MODEL_ALIAS, timeout=30, max_retries=0)
        ask = FimAsk(model, fim_tokens(model))
        mask = next(m for m in masks(TEXT, "t.py", [2]) if m.template == "return")
        return [ask("", mask, TEXT, 0.0, 0)[0] for _ in range(2)], seen
    finally:
        server.shutdown()


def test_the_fill_is_asked_under_the_grammar_that_excludes_the_masked_code(tmp_path: Path):
    got, seen = asked(200)
    assert got == ["sum(xs, 0)"] * 2 and len(seen) == 2
    assert all(b["grammar"] == gbnf("sum(xs)", "\n") for b in seen)


def test_a_server_that_refuses_the_grammar_is_asked_without_it_from_then_on(tmp_path: Path):
    got, seen = asked(400)
    assert got == ["sum(xs, 0)"] * 2
    assert ["grammar" in b for b in seen] == [True, False, False]  # refused once, asked again plain, then plain
