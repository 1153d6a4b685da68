"""Anti-patterns change the outcome of a run (codur/validate/antipatterns.py, codur/patch/choice.py):
a candidate that passes the tests but leaves code unreachable is never written; one that deletes
a guard is applied only when nothing better is found, and the run then ends success / plausible,
never verified; the agent's own change is held to the same rules at verification."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.llm import ScriptedChatModel, StaticModelProvider
from codur.patch import PatchPipeline

from ..repair.conftest import UPLOAD_DATES
from .conftest import patch_settings, snapshot, write_repo

PYPROJECT = '''
    [project]
    name = "demo"
    version = "0.1.0"

    [tool.pytest.ini_options]
    pythonpath = ["."]
    '''

#: A tuple of parcels is turned away by a type guard that wants a list. Deleting the guard makes
#: every test pass (no test gives anything but a sequence); widening it is the real fix.
PARCELS = {
    "parcels.py": '''
        """Weights of the parcels of a shipment."""


        def total_weight(parcels):
            """The weight of ``parcels`` (a sequence of {"kg": ...}), kilograms; 0 for anything else."""
            if not isinstance(parcels, list):
                return 0
            return sum(parcel["kg"] for parcel in parcels)
        ''',
    "tests/test_parcels.py": '''
        from parcels import total_weight


        def test_a_list_of_parcels():
            assert total_weight([{"kg": 2}, {"kg": 3}]) == 5


        def test_no_parcels():
            assert total_weight([]) == 0


        def test_a_tuple_of_parcels_is_a_sequence_too():
            assert total_weight(({"kg": 2}, {"kg": 1.5})) == 3.5
        ''',
    "pyproject.toml": PYPROJECT,
}
GUARD = ("plausible: deletes the guard at parcels.py:6 (if not isinstance(parcels, list): return 0); "
         "review whether bad input still needs rejecting")

#: An unknown date format should give None; the fallback parser (RFC 2822 dates) raises instead.
#: Returning None before the fallback makes the tests pass and leaves the fallback unreachable.
DATES = {
    "dates.py": UPLOAD_DATES,
    "tests/test_dates.py": '''
        from datetime import date

        from dates import upload_date


        def test_iso():
            assert upload_date("2024-03-01") == date(2024, 3, 1)


        def test_dotted():
            assert upload_date("01.03.2024") == date(2024, 3, 1)


        def test_unknown_format():
            assert upload_date("soon") is None
        ''',
    "pyproject.toml": PYPROJECT,
}
LOOP = '''    for fmt in FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
'''
DEAD_END = f'''```python
def upload_date(text):
{LOOP}    return None
    parsed = email.utils.parsedate_to_datetime(text)
    return parsed.date()
```'''
FALLBACK_KEPT = f'''```python
def upload_date(text):
{LOOP}    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return parsed.date()
```'''
UNREACHABLE = ("leaves code unreachable at dates.py:15 (parsed = email.utils.parsedate_to_datetime(text))")

NO_GUARD = '''```python
def total_weight(parcels):
    return sum(parcel["kg"] for parcel in parcels)
```'''
WIDER = '''```python
def total_weight(parcels):
    if not isinstance(parcels, (list, tuple)):
        return 0
    return sum(parcel["kg"] for parcel in parcels)
```'''


def pipeline(repo: Path, replies: list[str]):
    events: list[dict] = []
    settings = patch_settings(fixers=("sampling",), samples=len(replies))
    result = PatchPipeline(repo, settings, models=[ScriptedChatModel(replies=replies)], on_event=events.append).run()
    return result, [e for e in events if e["event_type"] == "patch.candidate"]


def test_a_sample_that_leaves_code_unreachable_is_never_written(tmp_path: Path):
    repo = write_repo(tmp_path / "dates", DATES)
    before = snapshot(repo)
    result, candidates = pipeline(repo, [DEAD_END])
    assert result.status == "not_found" and result.diff == ""
    assert result.refused == [UNREACHABLE] and candidates[0]["result"] == "refused"
    assert snapshot(repo) == before
    result, _ = pipeline(repo, [DEAD_END, FALLBACK_KEPT])
    assert result.status == "patched" and result.provenance["sample"] == 1 and "except (TypeError" in result.diff
    assert result.held == []


def test_a_clean_plausible_sample_wins_over_an_earlier_held_back_one(tmp_path: Path):
    repo = write_repo(tmp_path / "parcels", PARCELS)
    result, candidates = pipeline(repo, [NO_GUARD, WIDER])
    assert [c["result"] for c in candidates] == ["held", "plausible"]
    assert candidates[0]["reason"] == GUARD.removeprefix("plausible: ")
    assert result.status == "patched" and "(list, tuple)" in result.diff and result.held == []


def test_a_held_back_sample_is_applied_when_nothing_better_comes_and_says_so(tmp_path: Path):
    repo = write_repo(tmp_path / "parcels", PARCELS)
    result, _ = pipeline(repo, [NO_GUARD])
    assert result.status == "patched" and "-    if not isinstance(parcels, list):" in result.diff
    assert [h["kind"] for h in result.held] == ["deleted_guard"] and result.held[0]["line"] == 6


def test_a_run_whose_only_fix_deletes_a_type_guard_ends_plausible_never_verified(tmp_path: Path):
    """The mutation search alone (``codur repair``): its only test-passing mutants delete the guard
    or make its condition constant, both held back."""
    repo = write_repo(tmp_path / "parcels", PARCELS)
    config = CodurConfig(critic=False, fixers=["mutation"], repair_workers=2, test_memory_mb=0)
    result = run(RunRequest(task="make the failing tests pass", repo=repo), config=config)
    assert result.status is RunStatus.SUCCESS
    code = (repo / "parcels.py").read_text()
    if result.reason == "verified":  # the real fix: the guard kept, widened
        assert "isinstance(parcels" in code
        return
    assert result.reason == "plausible", result.reason
    first = result.summary.splitlines()[0]
    assert first == GUARD or first.startswith("plausible: replaces the condition at parcels.py:6"), first
    assert result.metadata.verdict["plausible"] == first.removeprefix("plausible: ")
    record = json.loads((Path(result.metadata.run_dir) / "result.json").read_text())
    assert record["reason"] == "plausible" and record["output_text"].splitlines()[0] == first


#: The same shipment, its guard also turning away an empty list. ``or`` → ``and`` passes every
#: test (a tuple with parcels gets through, an empty list sums to 0 anyway) and weakens the guard:
#: a string of parcels or an empty tuple now flows on.
EITHER = {**PARCELS, "parcels.py": PARCELS["parcels.py"].replace(
    "if not isinstance(parcels, list):", "if not isinstance(parcels, list) or not parcels:")}


def test_a_run_whose_only_fix_weakens_a_guard_ends_plausible_never_verified(tmp_path: Path):
    repo = write_repo(tmp_path / "parcels", EITHER)
    config = CodurConfig(critic=False, fixers=["mutation"], repair_workers=2, test_memory_mb=0)
    result = run(RunRequest(task="make the failing tests pass", repo=repo), config=config)
    assert result.status is RunStatus.SUCCESS
    code = (repo / "parcels.py").read_text()
    if result.reason == "verified":  # the real fix: the guard kept whole, widened
        assert "isinstance(parcels" in code and " or not parcels" in code, code
        return
    assert result.reason == "plausible", result.reason
    first = result.summary.splitlines()[0]
    assert first.startswith("plausible: weakens the guard at parcels.py:6 (not isinstance(parcels, list) or "
                            "not parcels) to (not isinstance(parcels, list) and not parcels)"), first


# -- the agent's own change, at verification ------------------------------------------------------


def call(name: str, **arguments) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def agent_run(repo: Path, replies: list[str]):
    config = CodurConfig(critic=False, fixers=["agent"], max_turns=1, retry_base_delay_s=0,
                         stop_without_progress=False)
    models = StaticModelProvider({"actor": ScriptedChatModel(replies=replies)})
    return run(RunRequest(task="make the failing tests pass", repo=repo), models=models, config=config)


def test_an_agent_change_that_leaves_code_unreachable_is_refused(tmp_path: Path):
    repo = write_repo(tmp_path / "dates", DATES)
    original = (repo / "dates.py").read_text()
    code = original.replace("            continue\n    parsed", "            continue\n    return None\n    parsed")
    result = agent_run(repo, [call("write_file", path="dates.py", content=code), "Fixed."])
    assert result.status is RunStatus.FAILED and result.reason == f"refused: {UNREACHABLE}", result.reason
    assert (repo / "dates.py").read_text() == original  # a failed run undoes itself


def test_an_agent_change_that_deletes_a_guard_ends_plausible(tmp_path: Path):
    repo = write_repo(tmp_path / "parcels", PARCELS)
    code = (repo / "parcels.py").read_text().replace("    if not isinstance(parcels, list):\n        return 0\n", "")
    result = agent_run(repo, [call("write_file", path="parcels.py", content=code), "Fixed."])
    assert result.status is RunStatus.SUCCESS and result.reason == "plausible", result.reason
    assert result.summary.splitlines()[0] == GUARD


# -- the order among held-back candidates, and what the user sees ----------------------------------


class Sample:
    """A held-back candidate as the ranking sees it: its provenance."""

    def __init__(self, logprob: float = -1.0):
        self.provenance = {"logprob": logprob}


def test_held_back_candidates_are_ranked_by_findings_then_tests_touched_then_edit_size_then_likelihood():
    from codur.patch.choice import Held, rank
    from codur.validate.antipatterns import Finding, Kind
    from codur.validate.evaluate import CandidateVerdict, Evaluation

    old = "def f(x):\n    if x is None:\n        return 0\n    log(x)\n    return x + 1\n"
    one = (Finding(Kind.GUARD, "f.py", 2, "if x is None: return 0"),)
    two = (*one, Finding(Kind.CALL, "f.py", 4, "log(x)"))
    bare = old.replace("    if x is None:\n        return 0\n", "")
    both = bare.replace("    log(x)\n", "")
    small, big, likely = Sample(), Sample(), Sample(logprob=-0.5)
    held = Held(deadline=0.0)
    for candidate, findings, text in ((Sample(), two, both), (big, one, bare.replace("x + 1", "(x or 0) + 1")),
                                      (small, one, bare), (likely, one, bare)):
        held.found.append((candidate, Evaluation(CandidateVerdict.HELD, held=findings), {"f.py": text}))
    assert rank(held, {"f.py": old}, None)[0] is likely  # one finding, the smallest edit, the likeliest
    held.found = [item for item in held.found if item[0] is not likely]
    assert rank(held, {"f.py": old}, None)[0] is small


def test_the_progress_lines_say_what_was_held_back():
    import io

    from rich.console import Console

    from codur.core.events.patch import PatchCandidate, PatchFound
    from codur.core.events.verify import VerifyVerdict
    from codur.ui.progress import Progress

    buffer = io.StringIO()
    progress = Progress(Console(file=buffer, width=300, highlight=False))
    why = GUARD.removeprefix("plausible: ")
    progress(PatchCandidate(source="mutation", label="parcels.py:6 deleted `if`", provenance={}, result="held",
                            fixed=1, seconds=0.2, reason=why))
    progress(PatchFound(label="parcels.py:6 deleted `if`", provenance={"source": "mutation"}, diff="", held=[why]))
    progress(VerifyVerdict(passed=True, strategy="tests", source="deterministic", overruled=None, fallback=None,
                           refused=None, plausible=why))
    text = buffer.getvalue()
    assert f"! plausible, not verified: {why}" in text
    assert f"#1 mutation: parcels.py:6 deleted `if` → held back: {why}" in text
    assert "plausible patch, held back (" in text and why in text.splitlines()[-2]


def test_among_held_back_candidates_the_one_fewer_passing_tests_ran_wins(tmp_path: Path):
    """PATCH-SIM's idea on the baseline's coverage: the edit of a line two passing tests ran loses
    to a larger edit of a line one passing test ran."""
    from codur.patch.choice import Held, behaviour_changed, rank
    from codur.testing.report import TestRecord
    from codur.validate.antipatterns import Finding, Kind
    from codur.validate.evaluate import CandidateVerdict, Evaluation
    from codur.validate.localize import Localization

    old = "def f(x):\n    if x:\n        return 1\n    if x is None:\n        return 2\n    return 3\n"
    loc = Localization(tests=(TestRecord("t::a", "passed", 0.0), TestRecord("t::b", "passed", 0.0),
                              TestRecord("t::c", "failed", 0.0)),
                       root=tmp_path, lines={str(tmp_path / "f.py"): {2: ["t::a", "t::b", "t::c"], 4: ["t::b"]}})
    first = old.replace("    if x:\n        return 1\n", "")
    second = old.replace("    if x is None:\n        return 2\n", "    print(x)\n")
    assert behaviour_changed(loc, {"f.py": old}, {"f.py": first}) == 2
    assert behaviour_changed(loc, {"f.py": old}, {"f.py": second}) == 1
    held = Held(deadline=0.0)
    a, b = Sample(), Sample()
    for candidate, text in ((a, first), (b, second)):
        finding = (Finding(Kind.GUARD, "f.py", 2, "if"),)
        held.found.append((candidate, Evaluation(CandidateVerdict.HELD, held=finding), {"f.py": text}))
    assert rank(held, {"f.py": old}, loc)[0] is b
