"""The cloze fixer on programs of our own: a fill-in-the-middle model (a local HTTP server that
speaks the OpenAI ``/v1/completions`` protocol and answers each fill by a script) fills the
masks of the suspicious lines; each fill is spliced and judged by the real tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from codur.core.usage import UsageLedger
from codur.llm.deadline import DeadlineChatOpenAI
from codur.llm.factory import record_in
from codur.llm.local import MODEL_ALIAS
from codur.llm.scripted import ScriptedChatModel
from codur.patch import PatchPipeline
from codur.patch.holes import fim_tokens
from codur.patch.masks import masks
from codur.patch.prompt import PromptParts
from codur.patch.sampling import Sampler
from codur.patch.splice import function_at

from .conftest import patch_settings, write_repo

PYPROJECT = '[project]\nname = "toy"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n'
#: Every started kilogram is charged: the fix is ``math.ceil`` inside one expression.
SHIPPING = {
    "shipping.py": '''
        import math


        def shipping_fee(weight_kg, per_kg=2.5):
            """Charge every started kilogram: 0.2 kg costs one kilogram."""
            if weight_kg <= 0:
                raise ValueError("weight must be positive")
            kilograms = weight_kg
            return kilograms * per_kg
        ''',
    "test_shipping.py": '''
        from shipping import shipping_fee


        def test_a_started_kilogram_is_charged_whole():
            assert shipping_fee(1.2) == 5.0


        def test_whole_kilograms():
            assert shipping_fee(2) == 5.0
        ''',
    "pyproject.toml": PYPROJECT,
}
#: A user without an e-mail address must be skipped: the fix is a guard around one line.
REMINDERS = {
    "reminders.py": '''
        def reminders(users):
            """One line per user that has an e-mail address."""
            out = []
            for name, email in users:
                out.append(f"{name} <{email.lower()}>")
            return out
        ''',
    "test_reminders.py": '''
        from reminders import reminders


        def test_users_without_email_are_skipped():
            assert reminders([("Ann", "ANN@x.org"), ("Bob", None)]) == ["Ann <ann@x.org>"]


        def test_every_user_with_email():
            assert reminders([("Ann", "a@x.org")]) == ["Ann <a@x.org>"]
        ''',
    "pyproject.toml": PYPROJECT,
}
#: A header value may hold a colon: split at the first one only (a wrong argument list).
HEADERS = {
    "headers.py": '''
        def parse_header(line):
            """'Name: value' -> ('name', 'value'); the value may hold colons."""
            name, value = line.split(":", 2)
            return name.strip().lower(), value.strip()
        ''',
    "test_headers.py": '''
        from headers import parse_header


        def test_a_value_with_a_colon():
            assert parse_header("Time: 12:30") == ("time", "12:30")


        def test_a_plain_value():
            assert parse_header("Host: x.org") == ("host", "x.org")
        ''',
    "pyproject.toml": PYPROJECT,
}

#: Nothing to do counts as done: the fix is a conditional expression around one right-hand side.
PROGRESS = {
    "progress.py": '''
        def percent_done(done, total):
            """How much of the work is done, in whole percent; no work at all counts as done."""
            share = done / total
            return round(100 * share)
        ''',
    "test_progress.py": '''
        from progress import percent_done


        def test_no_work_at_all_is_done():
            assert percent_done(0, 0) == 100


        def test_a_quarter():
            assert percent_done(1, 4) == 25
        ''',
    "pyproject.toml": PYPROJECT,
}
#: An hour is 3,600 seconds: the fix is one value of a table written over several lines.
DURATIONS = {
    "durations.py": '''
        def duration_seconds(amount, unit):
            """``amount`` of ``unit`` ("s", "min", "h" or "d") in seconds."""
            per_unit = {
                "s": 1,
                "min": 60,
                "h": 360,
                "d": 86400,
            }
            return amount * per_unit[unit]
        ''',
    "test_durations.py": '''
        from durations import duration_seconds


        def test_two_hours():
            assert duration_seconds(2, "h") == 7200


        def test_minutes_and_days():
            assert duration_seconds(3, "min") == 180
            assert duration_seconds(1, "d") == 86400
        ''',
    "pyproject.toml": PYPROJECT,
}

Answer = Callable[[str, str], str]


def json_server(answer: Callable[[str, dict], tuple[int, dict]]) -> ThreadingHTTPServer:
    """A local HTTP server, serving from a thread, answering each POST with ``answer(path,
    body)`` -> (status, JSON reply); the caller shuts it down."""
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            status, reply = answer(self.path, json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def fim_server() -> Iterator[Callable[[Answer], tuple[DeadlineChatOpenAI, list[dict]]]]:
    """Start a local ``/v1/completions`` server answering each fill with ``answer(prefix, suffix)``
    (the prompt split at the FIM tokens); returns the model that calls it and the requests seen."""
    servers = []

    def start(answer: Answer) -> tuple[DeadlineChatOpenAI, list[dict]]:
        seen: list[dict] = []

        def complete(path: str, body: dict) -> tuple[int, dict]:
            seen.append(body)
            prompt = body["prompt"]
            prefix, _, rest = prompt.removeprefix("<|fim_prefix|>").partition("<|fim_suffix|>")
            text = answer(prefix, rest.removesuffix("<|fim_middle|>"))
            return 200, {"id": "c", "object": "text_completion", "created": 0, "model": body["model"],
                         "choices": [{"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}],
                         "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 5,
                                   "total_tokens": len(prompt) // 4 + 5}}

        server = json_server(complete)
        servers.append(server)
        model = DeadlineChatOpenAI(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="local",
                                   model=MODEL_ALIAS, timeout=30, max_retries=0)
        return model, seen

    yield start
    for server in servers:
        server.shutdown()


def run_cloze(repo: Path, model, **changes):
    events: list = []
    settings = patch_settings(**{"fixers": ("cloze",), "time_budget_s": 120, **changes})
    result = PatchPipeline(repo, settings, models=[model], on_event=events.append).run()
    return result, [e.as_dict() if hasattr(e, "as_dict") else e for e in events]


def patched_by(tmp_path: Path, fim_server, files: dict, template: str, answer: Answer):
    """Run the cloze fixer alone on ``files`` with a FIM server answering ``answer``; assert the repo
    got patched by a fill of ``template``; return the result, its events and the requests seen."""
    model, seen = fim_server(answer)
    result, events = run_cloze(write_repo(tmp_path, files), model)
    assert result.status == "patched" and result.provenance["template"] == template, result.message
    return result, events, seen


def fills(events) -> list[dict]:
    return [e for e in events if e["event_type"] == "patch.fill"]


def test_a_fill_of_the_right_hand_side_adds_the_missing_ceil(tmp_path: Path, fim_server):
    repo = write_repo(tmp_path, SHIPPING)
    model, seen = fim_server(lambda prefix, suffix: "math.ceil(weight_kg)" if prefix.endswith("kilograms = ")
                             else "weight_kg")
    result, events = run_cloze(repo, model)
    assert result.status == "patched" and result.source == "cloze", result.message
    assert "+    kilograms = math.ceil(weight_kg)\n" in result.diff
    assert result.provenance["template"] == "rhs" and result.provenance["text"] == "math.ceil(weight_kg)"
    # the model was asked for fills only: every prompt is FIM, with the failing test said first
    assert all(b["prompt"].startswith("<|fim_prefix|># The tests that fail:\n# test_shipping.py::") for b in seen)
    assert all(b["prompt"].endswith("<|fim_middle|>") and b["stop"][0] == "\n" for b in seen)
    assert all(b["max_tokens"] <= 64 for b in seen)
    outcomes = {f["outcome"] for f in fills(events)}
    assert "candidate" in outcomes and outcomes <= {"candidate", "unchanged", "duplicate", "no_parse"}
    assert result.llm_calls == len(seen) and result.tokens > 0


def test_a_new_guard_around_the_line_skips_the_users_without_email(tmp_path: Path, fim_server):
    # the embedded model often writes the ":" that follows the hole again: cut, as it then parses
    result, _, _ = patched_by(tmp_path, fim_server, REMINDERS, "guard", lambda prefix, suffix: "email:" if
                              prefix.endswith("    if ") and suffix.startswith(":\n") else "out.append(name)")
    assert "+        if email:\n+            out.append(" in result.diff


def test_a_fill_of_the_argument_list_splits_at_the_first_colon_only(tmp_path: Path, fim_server):
    result, events, seen = patched_by(tmp_path, fim_server, HEADERS, "args", lambda prefix, suffix: '":", 1' if
                                      prefix.endswith("line.split(") else "line.split" if prefix.endswith("value = ")
                                      else "line")
    assert '+    name, value = line.split(":", 1)\n' in result.diff
    # a fill that gives the masked code back is never judged
    judged = [e for e in events if e["event_type"] == "patch.candidate"]
    assert all(e["provenance"]["text"] != "line.split" or e["provenance"]["template"] != "callee" for e in judged)
    # the prompts share their start: the server's prompt cache keeps the header and the file's top
    head = "<|fim_prefix|># The tests that fail:\n"
    assert all(b["prompt"].startswith(head) for b in seen) and len(seen) >= 4


def test_a_conditional_expression_whose_else_keeps_the_value_guards_the_division(tmp_path: Path, fim_server):
    # the hole is before " else done / total": the model writes only the new value and its condition
    result, _, seen = patched_by(tmp_path, fim_server, PROGRESS, "choice", lambda prefix, suffix: "1.0 if not total" if
                                 suffix.startswith(" else done / total\n") else "done / total" if
                                 prefix.endswith("share = ") else "round(100 * share)")
    assert "+    share = 1.0 if not total else done / total\n" in result.diff
    asked = [b["prompt"] for b in seen]
    assert any(p.endswith(" else done / total\n    return round(100 * share)\n<|fim_middle|>") for p in asked)


def test_a_value_of_a_table_written_over_several_lines_is_a_hole_of_its_own(tmp_path: Path, fim_server):
    result, events, _ = patched_by(tmp_path, fim_server, DURATIONS, "element",
                                   lambda prefix, suffix: "3600" if prefix.endswith('"h": ') else "1")
    assert '-        "h": 360,\n+        "h": 3600,\n' in result.diff
    assert result.provenance["line"] == 6 and result.provenance["text"] == "3600"
    assert {f["template"] for f in fills(events)} >= {"element"}


def test_the_mutation_tiers_come_before_the_models_masks_unless_asked(tmp_path: Path, fim_server):
    repo = write_repo(tmp_path, SHIPPING)
    model, seen = fim_server(lambda prefix, suffix: "weight_kg * 1")  # never a fix
    settings = dict(fixers=("mutation", "cloze"), max_mutants=2, max_pairs=0, time_box_s=1.0)
    result, events = run_cloze(repo, model, **settings)
    assert result.status == "not_found"
    # the mutation tiers went beside the model's fills and into the rest: every mutant tried before the masks
    order = [p for p in result.phases if "tier" in p or "rest" in p]
    assert order[0] == "mutation (rest)" and order[1:3] == ["cloze (tier 2)", "cloze (tier 3)"], result.phases
    assert not any(p.startswith("mutation (tier") for p in order), result.phases
    # model_tiers_first: the model's masks first
    first, _ = run_cloze(repo, model, model_tiers_first=True, **settings)
    order = [p for p in first.phases if "tier" in p]
    assert order[:2] == ["cloze (tier 2)", "cloze (tier 3)"] and "mutation (tier 2)" in order, first.phases
    # the model off: the mutation tiers still run
    off = PatchPipeline(repo, patch_settings(time_budget_s=120, **settings), models=None).run()
    assert "mutation (tier 2)" in off.phases and not any(p.startswith("cloze") for p in off.phases)


def test_the_cores_the_model_leaves_go_on_to_the_next_mutation_tiers(tmp_path: Path, fim_server):
    from tests.repair.conftest import OFF_BY_ONE
    repo = write_repo(tmp_path, OFF_BY_ONE)  # its fix is mutant 7 or 8: tier 2 of max_mutants=4
    model, _ = fim_server(lambda prefix, suffix: "xs[i] * 1")  # never a fix
    result, events = run_cloze(repo, model, fixers=("mutation", "cloze"), max_mutants=4, max_pairs=0, tiers=3,
                               time_box_s=1.0)
    assert result.status == "patched" and result.source == "mutation", result.message
    assert "len(xs) - 1" in result.diff
    # tested beside the model's fills (or right after them), not in a tier phase of its own
    assert not any("tier" in p for p in result.phases), result.phases
    assert next(e for e in events if e["event_type"] == "patch.done")["tried"]["mutation"] > 4


def test_the_models_first_tier_ends_at_its_time_box_and_its_next_tiers_still_run(tmp_path: Path, fim_server):
    """Past ``model_box_s`` the fills of tier 1 stop, the sampler's first tier does not begin, and the
    cloze fixer's next tier still runs; without the box tier 1 asks
    every fill and the sampler asks its samples (a chat request)."""
    def slow(prefix: str, suffix: str) -> str:
        time.sleep(0.25)
        return "weight_kg + 0"  # never the fix
    boxed, seen = fim_server(slow)
    result, _ = run_cloze(write_repo(tmp_path / "boxed", SHIPPING), boxed, fixers=("cloze", "sampling"),
                          model_box_s=1.5, tiers=2, time_budget_s=6)
    assert result.status != "patched" and result.phases["cloze"] < 2.5, result.phases
    assert seen and all("prompt" in body for body in seen)  # fills only: no sample was asked
    assert "cloze (tier 2)" in result.phases and "sampling" not in result.phases
    whole, asked = fim_server(slow)
    result, _ = run_cloze(write_repo(tmp_path / "whole", SHIPPING), whole, fixers=("cloze", "sampling"),
                          model_box_s=0, tiers=2, time_budget_s=10)
    assert result.phases["cloze"] > 2.5 and "sampling" in result.phases, result.phases
    assert any("messages" in body for body in asked)


def test_masks_follow_the_templates_and_a_model_without_fim_gets_none():
    text = "def f(xs, n):\n    total = sum(xs, 0)\n    return total > n\n"
    found = [(m.line, m.template, m.original) for m in masks(text, "f.py", [3, 2])]
    assert found == [(3, "return", "total > n"), (3, "compare", "total"), (3, "compare", "n"),
                     (3, "choice", "total > n"), (3, "line", "return total > n"), (3, "guard", ""), (3, "before", ""),
                     (2, "rhs", "sum(xs, 0)"), (2, "choice", "sum(xs, 0)"), (2, "args", "xs, 0"), (2, "arg", "xs"),
                     (2, "arg", "0"),
                     (2, "callee", "sum"), (2, "line", "total = sum(xs, 0)"), (2, "guard", ""), (2, "before", "")]
    # "after" line 2 is "before" line 3: one mask; nothing runs after a return
    assert fim_tokens(ScriptedChatModel(replies=[])) is None


SRC = "def price(quantity, unit):\n    gross = quantity + unit\n    return gross\n"


def test_a_kind_of_prompt_that_gave_the_code_back_is_not_asked_again():
    parts = PromptParts([function_at(SRC, 2, "shop.py")], SRC, "shop.py::test_price FAILED")
    echo = "```python\n" + SRC + "```"
    model = ScriptedChatModel(replies=[echo], default_reply=echo)
    drawn = list(Sampler([model], parts, echoes=1).draw(6))
    assert [(d.variant, d.outcome) for d in drawn] == [("plain", "unchanged"), ("file", "unchanged")]
    assert len(model.calls) == 2  # the function prompt once, the whole-file prompt once
    again = list(Sampler([ScriptedChatModel(replies=[], default_reply=echo)], parts).draw(4))
    assert [d.outcome for d in again] == ["unchanged"] * 4  # without the limit: asked again


def like_the_embedded_model(text: str, fixes: dict[str, str]) -> Answer:
    """Fills as the embedded model gave them on the shipping fee: a hole cut in ``text`` gets the
    code it held back (an echo), a new hole (a guard, a line before or after) the line that follows
    it; ``fixes``: the end of a prefix -> the fill written there instead."""
    def answer(prefix: str, suffix: str) -> str:
        if fill := next((f for end, f in fixes.items() if prefix.endswith(end)), None):
            return fill
        body = prefix[prefix.index(text[:12]):]
        if text.startswith(body) and text.endswith(suffix):
            return text[len(body):len(text) - len(suffix)].split("\n")[0]
        return suffix.lstrip(":\n ").split("\n")[0]
    return answer


def test_tied_lines_give_the_value_lines_masks_first_and_the_missing_ceil_is_the_first_fill(tmp_path: Path,
                                                                                             fim_server):
    repo = write_repo(tmp_path, SHIPPING)
    text = (repo / "shipping.py").read_text()
    model, seen = fim_server(like_the_embedded_model(text, {"    kilograms = ": "math.ceil(weight_kg)"}))
    result, events = run_cloze(repo, model)
    assert result.status == "patched" and result.provenance["template"] == "rhs", result.message
    # both tests run lines 6, 8 and 9 (a tie); the guard's condition went the same way in both, so the
    # value lines come first: the first fill is the fix, the guard line's masks come last
    drawn = fills(events)
    assert (drawn[0]["line"], drawn[0]["template"], drawn[0]["outcome"]) == (8, "rhs", "candidate")
    assert result.provenance["fill"] == 0
    assert list(dict.fromkeys(f["line"] for f in drawn)) in ([8], [8, 9], [8, 9, 6])


def test_a_hole_whose_greedy_fill_gave_the_code_back_is_not_filled_again_in_its_tier(tmp_path: Path, fim_server):
    repo = write_repo(tmp_path, SHIPPING)
    model, seen = fim_server(like_the_embedded_model((repo / "shipping.py").read_text(), {}))  # never a fix
    result, events = run_cloze(repo, model)
    assert result.status == "not_found"
    tier1 = [f for f in fills(events) if f["k"] < 1000]
    echoed = {(f["line"], f["template"]) for f in tier1 if f["temperature"] == 0 and f["outcome"] == "unchanged"}
    again = {(f["line"], f["template"]) for f in tier1 if f["temperature"] > 0}
    assert len(echoed) >= 4 and not echoed & again, (echoed, again)
    # a hole whose greedy fill was new code gets its second fill
    assert again == {(f["line"], f["template"]) for f in tier1 if f["temperature"] == 0} - echoed


def test_tied_lines_give_the_branch_lines_first_when_a_test_expected_an_exception(tmp_path: Path, fim_server):
    files = {**SHIPPING, "shipping.py": SHIPPING["shipping.py"].replace("<= 0", "< 0").replace("weight_kg\n",
                                                                                           "math.ceil(weight_kg)\n"),
             "test_shipping.py": "import pytest\nfrom shipping import shipping_fee\n\n\n"
                                 "def test_no_weight_is_refused():\n    with pytest.raises(ValueError):\n"
                                 "        shipping_fee(0)\n\n\ndef test_a_parcel():\n"
                                 "    assert shipping_fee(1.2) == 5.0\n"}
    repo = write_repo(tmp_path, files)
    model, _ = fim_server(like_the_embedded_model((repo / "shipping.py").read_text(), {"    if ": "weight_kg <= 0"}))
    result, events = run_cloze(repo, model)
    assert result.status == "patched" and "+    if weight_kg <= 0:" in result.diff, result.message
    assert (fills(events)[0]["line"], fills(events)[0]["template"]) == (6, "condition")


def test_the_fills_are_recorded_in_the_runs_usage_ledger(tmp_path: Path, fim_server):
    repo = write_repo(tmp_path, SHIPPING)
    model, seen = fim_server(lambda prefix, suffix: "math.ceil(weight_kg)" if prefix.endswith("kilograms = ")
                             else "weight_kg")
    ledger = UsageLedger()
    result, events = run_cloze(repo, record_in(model, ledger))
    assert result.status == "patched"
    # each fill is a model call of the run: its tokens (the server's prompt + 5) in the ledger, as a chat call's
    drawn = fills(events)
    assert ledger.usage.calls == len(seen) == len(drawn) == result.llm_calls
    assert ledger.usage.output_tokens == 5 * len(seen)
    assert ledger.usage.total_tokens == sum(f["tokens"] for f in drawn) == result.tokens


def test_a_long_module_is_seen_through_a_window_around_the_hole(tmp_path: Path, fim_server):
    """A fill sees the module's head and the function around the hole, not the whole file: the
    embedded model read a 700-line module's prompt for 275 s (a bench/real run's whole budget)."""
    zones = "".join(f'\n\ndef zone_{n}_surcharge(weight_kg):\n    """Zone {n}\'s surcharge in euros."""\n'
                    f"    return round(weight_kg * {n / 100:.2f}, 2)\n" for n in range(1, 120))
    repo = write_repo(tmp_path, SHIPPING)
    module = repo / "shipping.py"
    module.write_text(module.read_text().replace("import math\n", "import math\n" + zones, 1))
    assert len((repo / "shipping.py").read_text()) > 12_000
    model, seen = fim_server(lambda prefix, suffix: "math.ceil(weight_kg)" if prefix.endswith("kilograms = ")
                             else "weight_kg")
    result, _ = run_cloze(repo, model)
    assert result.status == "patched" and "+    kilograms = math.ceil(weight_kg)\n" in result.diff
    for body in seen:
        prompt = body["prompt"]
        assert len(prompt) < 6_500 and "import math\n" in prompt and "def shipping_fee(" in prompt
        assert "def zone_1_surcharge" not in prompt and "# ...\n" in prompt
