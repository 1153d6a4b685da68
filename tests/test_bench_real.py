"""bench/real's own code: the manifest is whole, test splicing, venv cloning, outcome parsing,
the per-bug figures read from codur's events.

Nothing here downloads: the bugs themselves are verified by ``bench/real/run.py --check``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[1] / "bench" / "real"
sys.path.insert(0, str(REAL))

import bugs  # noqa: E402
import events  # noqa: E402
import reach  # noqa: E402
import sdists  # noqa: E402
import splice  # noqa: E402


def real_run_module():
    """bench/real/run.py, loaded from its file (other benches have a run.py too: a bare
    ``import run`` takes whichever one a test put first on the path)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_real_run", REAL / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_manifest_names_defined_projects_versions_and_tests():
    data = tomllib.loads(bugs.MANIFEST.read_text())
    loaded = bugs.load()
    ids = [b.id for b in loaded]
    assert len(ids) == len(set(ids)) >= 20
    assert len({b.project for b in loaded}) >= 4
    for bug in loaded:
        assert len(bug.old_sha256) == len(bug.new_sha256) == 64, bug.id
        assert bug.fix and bug.take and bug.failing, bug.id
        assert any(r.startswith("pytest==") for r in bug.requirements), bug.id
        assert all("==" in r for r in bug.requirements), bug.id
        assert all(t.split("::")[0].startswith(tuple(bug.tests)) for t in bug.failing + bug.flaky), bug.id
        assert not set(bug.flaky) & set(bug.failing), bug.id
    # a version pinned but used by no bug is a leftover
    used = {f"{b.package}=={v}" for b in loaded for v in (b.old, b.new)}
    assert set(data["sha256"]) == used
    assert sum(1 for b in loaded if len(b.fix) > 1) >= 2


OLD = '''import os
import unittest


class T:
    def test_a(self):
        assert 1


def user():
    return Helper()


def test_b():
    assert 0
'''

NEW = '''import os
import pickle
import unittest
import unittest.mock
from os import sep


class T:
    def test_a(self):
        assert 2

    @staticmethod
    def test_new():
        assert pickle and unittest.mock


class Helper:
    pass


def user():
    return Helper()


def test_b():
    assert 1
'''


def test_take_replaces_appends_and_orders_a_new_class_before_its_user():
    out = splice.take(OLD, NEW, ["T.test_a", "T.test_new", "test_b", "Helper"])
    ns: dict = {}
    exec(compile(out, "spliced", "exec"), ns)  # the result is valid Python that runs
    assert "import pickle" in out and "import unittest.mock" in out  # used by the taken code
    assert "from os import sep" not in out  # not used by it
    assert "assert 2" in out and "assert 1" not in out.split("def test_a")[1].split("def")[0]
    assert out.index("    @staticmethod\n    def test_new") < out.index("class Helper")
    assert out.index("class Helper") < out.index("def user")
    assert "assert 0" not in out
    assert ns["user"]().__class__.__name__ == "Helper"


def test_take_of_a_missing_name_raises():
    with pytest.raises(splice.SpliceError):
        splice.take(OLD, NEW, ["nowhere"])
    with pytest.raises(splice.SpliceError):
        splice.take("x = 1\n", NEW, ["T.test_a"])  # the class is not in the older file


def test_clone_venv_points_scripts_at_the_copy(tmp_path):
    template = tmp_path / "tpl"
    (template / "bin").mkdir(parents=True)
    (template / "bin" / "pytest").write_text(f"#!{template}/bin/python\nimport sys\n")
    (template / "bin" / "python").symlink_to(sys.executable)
    (template / ".ready").write_text("")
    dest = sdists.clone_venv(template, tmp_path / "repo" / ".venv")
    assert (dest / "bin" / "pytest").read_text().startswith(f"#!{dest}/bin/python\n")
    assert (dest / "bin" / "python").is_symlink() and not (dest / ".ready").exists()


def test_run_suite_reads_each_outcome_and_judge_needs_every_failing_test(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / ".venv" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, repo / ".venv" / "bin" / "python")
    (repo / "tests" / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('v', ['a b', 'c'])\ndef test_p(v):\n    assert v != 'a b'\n\n"
        "def test_ok():\n    pass\n")
    bug = bugs.Bug(id="x", project="p", package="p", old="1", new="2", what="", fix=[], take=[],
                   failing=["tests/test_x.py::test_p[a b]"], source=".", tests=["tests"], requirements=[],
                   old_sha256="", new_sha256="")
    run = bugs.run_suite(bug, repo, timeout=60)
    assert run.outcomes == {"tests/test_x.py::test_p[a b]": "FAILED", "tests/test_x.py::test_p[c]": "PASSED",
                            "tests/test_x.py::test_ok": "PASSED"}
    assert bugs.judge(bug, run)[0] is False
    test = repo / "tests" / "test_x.py"
    test.write_text(test.read_text().replace("assert v != 'a b'", "assert v"))
    assert bugs.judge(bug, bugs.run_suite(bug, repo, timeout=60)) == (True, "3 tests pass")


# ---------------------------------------------------------------- the per-bug figures (events.py)

def test_codur_command_starts_the_codur_of_its_own_checkout(tmp_path, monkeypatch):
    fake = tmp_path / "codur"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "_entry.py").write_text("import sys\n\ndef main():\n    print(__file__, sys.argv[1:])\n")
    monkeypatch.setattr(events, "ROOT", tmp_path)
    out = subprocess.run([*events.codur_command(), "fix it", "--json"], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}).stdout
    assert out.strip() == f"{fake / '_entry.py'} ['fix it', '--json']"


#: codur's --json stdout of bench/real/run.py on humanize-naturalsize-float at a 150 s limit
#: (2026-11-26): the trace of that run, cut down to the first two of its 400 candidates, with
#: long fields (suspicious lines, functions, replies) shortened; the run.result line carries
#: the run's own result.json fields that the figures read. START is the process start.
START = 1795709391.486
STDOUT = '''\
{"event_type": "run.start", "run_id": "20261126-160952-a7d675", "ts": 1795709392.843, "task": "make the failing tests pass"}
{"event_type": "tests.run", "run_id": "20261126-160952-a7d675", "ts": 1795709394.166, "duration_s": 1.172, "exit_code": 1, "timed_out": false}
{"event_type": "patch.start", "run_id": "20261126-160952-a7d675", "ts": 1795709394.183, "fixers": ["mutation", "sampling", "hybrid"], "workers": 4}
{"event_type": "patch.localized", "run_id": "20261126-160952-a7d675", "ts": 1795709394.701, "failing_tests": ["tests/test_filesize.py::test_naturalsize[test_args62-1 Bytes]", "tests/test_filesize.py::test_naturalsize[test_args65-1B]"], "suspicious": [["src/humanize/filesize.py", 97, 0.6325]], "functions": [{"path": "src/humanize/filesize.py", "function": "naturalsize", "start": 34, "end": 105, "score": 0.632}], "elapsed_s": 0.511, "tests_run": 68, "selection": true}
{"event_type": "patch.mutants", "run_id": "20261126-160952-a7d675", "ts": 1795709394.803, "count": 400, "seconds": 0.1}
{"event_type": "patch.phase", "run_id": "20261126-160952-a7d675", "ts": 1795709394.803, "phase": "mutation", "candidates": 400}
{"event_type": "patch.candidate", "run_id": "20261126-160952-a7d675", "ts": 1795709394.856, "source": "mutation", "label": "src/humanize/filesize.py:97 replaced `gnu` with `abs_bytes`", "provenance": {"source": "mutation", "operator": "change_identifier_used", "line": 97, "description": "replaced `gnu` with `abs_bytes`"}, "result": "failed", "fixed": 0, "seconds": 0.05}
{"event_type": "patch.candidate", "run_id": "20261126-160952-a7d675", "ts": 1795709394.911, "source": "mutation", "label": "src/humanize/filesize.py:97 replaced `bytes_` with `abs_bytes`", "provenance": {"source": "mutation", "operator": "change_identifier_used", "line": 97, "description": "replaced `bytes_` with `abs_bytes`"}, "result": "failed", "fixed": 0, "seconds": 0.05}
{"event_type": "patch.phase", "run_id": "20261126-160952-a7d675", "ts": 1795709402.267, "phase": "sampling", "functions": ["naturalsize"], "file": "src/humanize/filesize.py", "samples": 6, "backfill": 248}
{"event_type": "model.call", "run_id": "20261126-160952-a7d675", "ts": 1795709439.916, "model": "qwen2.5-coder-1.5b-instruct", "role": "actor", "node": "patch", "input_tokens": 1237, "output_tokens": 102, "seconds": 37.636, "cost_usd": 0.0, "stream_closed": true}
{"event_type": "patch.sample", "run_id": "20261126-160952-a7d675", "ts": 1795709439.916, "k": 0, "variant": "plain", "temperature": 0.0, "outcome": "no_code", "seconds": 37.64, "tokens": 1347, "reply": "```python"}
{"event_type": "model.call", "run_id": "20261126-160952-a7d675", "ts": 1795709466.242, "model": "qwen2.5-coder-1.5b-instruct", "role": "actor", "node": "patch", "input_tokens": 1831, "output_tokens": 102, "seconds": 26.32, "cost_usd": 0.0, "stream_closed": true}
{"event_type": "patch.sample", "run_id": "20261126-160952-a7d675", "ts": 1795709466.242, "k": 1, "variant": "tests", "temperature": 0.0, "outcome": "no_code", "seconds": 26.33, "tokens": 1941, "reply": "```python"}
{"event_type": "model.call", "run_id": "20261126-160952-a7d675", "ts": 1795709542.575, "model": "qwen2.5-coder-1.5b-instruct", "role": "actor", "node": "patch", "input_tokens": 1941, "output_tokens": 124, "seconds": 76.332, "cost_usd": 0.0, "stream_closed": true}
{"event_type": "patch.sample", "run_id": "20261126-160952-a7d675", "ts": 1795709542.575, "k": 2, "variant": "file", "temperature": 0.0, "outcome": "stopped", "seconds": 76.33, "tokens": 2084, "reply": "```python"}
{"event_type": "patch.done", "run_id": "20261126-160952-a7d675", "ts": 1795709542.585, "status": "budget", "source": "", "tried": {"mutation": 400, "sampling": 0, "hybrid": 0}, "llm_calls": 3, "tokens": 5372, "elapsed_s": 148.402, "phases": {"localize": 0.511, "mutation": 5.099, "sampling": 140.309}, "message": "the search's time or token budget ran out"}
{"event_type": "run.end", "run_id": "20261126-160952-a7d675", "ts": 1795709542.875, "status": "timeout", "reason": "timeout"}
{"event_type": "run.result", "run_id": "20261126-160952-a7d675", "ts": 1795709543.1, "status": "timeout", "reason": "timeout", "metadata": {"fixer": "", "usage": {"llm_calls": 3}}}
'''  # noqa: E501 - the recorded lines, verbatim


def test_figures_of_a_recorded_run_with_mutants_and_model_samples():
    seen = events.read_events("codur: a line that is not JSON\n" + STDOUT, START)
    assert len(seen) == 18 and seen[6]["t"] == 3.37  # the first candidate, 3.37 s after the start
    assert events.figures(seen) == {
        "first_candidate_s": 3.37, "localize_s": 0.511, "localized_tests": 68, "mutants_s": 0.1, "mutants": 400,
        "samples": 3, "sample_s": 46.8,  # (37.64 + 26.33 + 76.33) / 3
        "candidates": 2, "fixer": "", "fixed_by": "",
        # 2 replies with no code (echoes) and one stopped early: 3 replies, 0 candidates in 140.3 model s
        "fills": 0, "replies": 3, "echoes": 2, "echo_share": 0.667, "model_candidates": 0, "model_s": 140.3,
        "candidates_per_model_min": 0.0}
    assert events.CodurRun(seen, 151.9, START, 1).result()["status"] == "timeout"


def test_figures_of_a_run_that_never_reached_the_pipeline():
    seen = events.read_events(STDOUT.splitlines()[0] + "\n", START)
    assert events.figures(seen) == {
        "first_candidate_s": None, "localize_s": None, "localized_tests": None, "mutants_s": None, "mutants": None,
        "samples": 0, "sample_s": None, "candidates": 0, "fixer": "", "fixed_by": "",
        "fills": 0, "replies": 0, "echoes": 0, "echo_share": None, "model_candidates": 0, "model_s": 0.0,
        "candidates_per_model_min": None}
    assert events.CodurRun(seen, 420.0, START, None).result()["status"] == "killed"
    assert events.CodurRun(seen, 2.0, START, 2, "boom").result()["reason"] == "exit 2, no run.result: boom"


#: A run of the cloze fixer with the embedded model on a shipping fee missing its ``math.ceil``
#: (tests/e2e/test_patch_cloze_e2e.py), from its trace, with the ``run.result`` line ``--json`` adds.
FILLS = '''\
{"event_type": "run.start", "run_id": "20261129-031949-46507b", "ts": 1795922389.9, "task": "make the failing tests pass"}
{"event_type": "patch.phase", "run_id": "20261129-031949-46507b", "ts": 1795922393.314, "phase": "cloze", "candidates": 24}
{"event_type": "patch.fill", "run_id": "20261129-031949-46507b", "ts": 1795922395.394, "k": 0, "template": "condition", "file": "shipping.py", "line": 6, "temperature": 0.0, "outcome": "candidate", "seconds": 2.08, "tokens": 123, "fill": "weight_kg < 0"}
{"event_type": "patch.candidate", "run_id": "20261129-031949-46507b", "ts": 1795922395.523, "source": "cloze", "label": "shipping.py:6: condition filled by model fill 0: weight_kg < 0", "provenance": {"source": "cloze", "fill": 0, "template": "condition", "line": 6, "temperature": 0.0, "text": "weight_kg < 0"}, "result": "failed", "fixed": 0, "seconds": 0.13}
{"event_type": "patch.fill", "run_id": "20261129-031949-46507b", "ts": 1795922396.066, "k": 1, "template": "compare", "file": "shipping.py", "line": 6, "temperature": 0.0, "outcome": "unchanged", "seconds": 0.67, "tokens": 123, "fill": "weight_kg"}
{"event_type": "patch.fill", "run_id": "20261129-031949-46507b", "ts": 1795922396.634, "k": 2, "template": "compare", "file": "shipping.py", "line": 6, "temperature": 0.0, "outcome": "unchanged", "seconds": 0.57, "tokens": 122, "fill": "0"}
{"event_type": "patch.fill", "run_id": "20261129-031949-46507b", "ts": 1795922397.562, "k": 3, "template": "before", "file": "shipping.py", "line": 6, "temperature": 0.0, "outcome": "no_parse", "seconds": 0.93, "tokens": 131, "fill": "if weight_kg < 0:"}
{"event_type": "patch.fill", "run_id": "20261129-031949-46507b", "ts": 1795922398.413, "k": 4, "template": "rhs", "file": "shipping.py", "line": 8, "temperature": 0.0, "outcome": "candidate", "seconds": 0.85, "tokens": 126, "fill": "math.ceil(weight_kg)"}
{"event_type": "patch.candidate", "run_id": "20261129-031949-46507b", "ts": 1795922398.795, "source": "cloze", "label": "shipping.py:8: rhs filled by model fill 4: math.ceil(weight_kg)", "provenance": {"source": "cloze", "fill": 4, "template": "rhs", "line": 8, "temperature": 0.0, "text": "math.ceil(weight_kg)"}, "result": "plausible", "fixed": 1, "seconds": 0.38}
{"event_type": "patch.fill", "run_id": "20261129-031949-46507b", "ts": 1795922399.27, "k": 5, "template": "line", "file": "shipping.py", "line": 8, "temperature": 0.0, "outcome": "duplicate", "seconds": 0.86, "tokens": 126, "fill": "kilograms = math.ceil(weight_kg)"}
{"event_type": "patch.done", "run_id": "20261129-031949-46507b", "ts": 1795922399.27, "status": "patched", "source": "cloze", "tried": {"mutation": 0, "cloze": 2, "sampling": 0, "hybrid": 0}, "llm_calls": 6, "tokens": 751, "elapsed_s": 8.646, "phases": {"localize": 0.396, "cloze": 5.956}, "message": "", "refused": []}
{"event_type": "run.end", "run_id": "20261129-031949-46507b", "ts": 1795922400.224, "status": "success", "reason": "verified"}
{"event_type": "run.result", "run_id": "20261129-031949-46507b", "ts": 1795922400.3, "status": "success", "reason": "verified", "metadata": {"fixer": "model fill of a masked line", "usage": {"llm_calls": 0}}}
'''  # noqa: E501 - the recorded lines


def test_model_figures_of_a_recorded_cloze_run_count_replies_echoes_and_candidates_per_model_minute():
    fig = events.figures(events.read_events(FILLS, 1795922389.9))
    assert fig["fixer"] == "model fill of a masked line" and fig["fixed_by"] == "cloze"
    # 6 fills: 2 candidates, 2 unchanged (the compare masks gave `weight_kg` and `0` back), 1 no_parse, 1 duplicate
    assert (fig["fills"], fig["samples"], fig["replies"], fig["echoes"], fig["model_candidates"]) == (6, 0, 6, 2, 2)
    assert fig["echo_share"] == 0.333 and fig["model_s"] == 6.0  # 2.08 + 0.67 + 0.57 + 0.93 + 0.85 + 0.86
    assert fig["candidates_per_model_min"] == 20.0


def test_the_table_prints_the_figures_and_a_dash_for_a_record_without_them(capsys):
    real_run = real_run_module()

    seen = events.read_events(STDOUT, START)
    common = {"project": "humanize", "fixed": False, "status": "timeout", "llm_calls": 3,
              "tests": ["t1", "t2"], "fix_hunks": {"src/humanize/filesize.py": 1}}
    new = {"bug": "humanize-naturalsize-float", "seconds": 151.9, **common, **events.figures(seen)}
    old = {"bug": "older-record", "seconds": 90.0, "fixer": "", **common}  # written before the figures existed
    green = {**old, "bug": "green-but-wrong", "fixed": True, "correct": False, "heldout": 68, "same_fix": False,
             "reason": "verified"}
    real_run.print_table([new, old, green])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1].split()[1:12] == ["fixed", "correct", "held", "same", "s", "1st", "cand", "loc", "s", "mut", "s"]
    assert lines[2].split()[1:11] == ["✗", "-", "-", "-", "152", "3.4", "0.5", "0.10", "3", "46.8"]
    assert lines[3].split()[1:8] == ["✗", "-", "-", "-", "90", "-", "-"]
    assert lines[4].split()[1:6] == ["✓", "✗", "68", "-", "90"]
    assert "green 1/3; correct (held-out tests pass) 0/1 green with held-out tests" in out
    assert lines[1].split()[-11:-5] == ["replies", "echoes", "echo%", "m-cand", "model", "s"]
    assert lines[2].split()[-8:-2] == ["3", "2", "67%", "0", "140.3", "0.00"]
    assert lines[3].split()[-8:-2] == ["-", "-", "-", "-", "-", "-"]


def test_the_totals_give_fixes_by_fixer_and_the_model_figures(capsys):
    real_run = real_run_module()

    cloze = events.figures(events.read_events(FILLS, 1795922389.9))
    sampled = events.figures(events.read_events(STDOUT, START))
    common = {"project": "p", "status": "success", "llm_calls": 0, "tests": ["t"], "fix_hunks": {"a.py": 1},
              "seconds": 10.0, "reason": "verified"}
    recs = [{"bug": "cloze-fix", "fixed": True, "correct": True, **common, **cloze},
            {"bug": "sampled", "fixed": False, **common, **sampled},
            {"bug": "old-mutation", "fixed": True, "correct": False, "fixer": "mutation search", **common}]
    real_run.print_table(recs)
    out = capsys.readouterr().out
    assert "fixes by fixer: cloze 1 (correct 1), mutation 1 (correct 0)" in out
    # 6 fills + 3 samples; 2 + 2 echoes; 2 candidates in 6.0 + 140.3 model s
    assert "model: 9 replies (6 fills, 3 samples), 4 echoes (44%), 2 distinct candidates in 146 model s " \
           "(0.82 per model-minute)" in out
    assert out.splitlines()[2].split()[-2] == "cloze"


# ---------------------------------------------------------------- the held-out check

import heldout  # noqa: E402


def test_changed_test_files_lists_new_and_changed_files_only(tmp_path):
    repo, newer = tmp_path / "repo", tmp_path / "newer"
    for root, files in ((repo, {"tests/test_a.py": "def test_a(): pass\n", "tests/test_b.py": "x = 1\n"}),
                        (newer, {"tests/test_a.py": "def test_a(): pass\n", "tests/test_b.py": "x = 2\n",
                                 "tests/sub/test_c.py": "def test_c(): pass\n", "README": "r"})):
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    assert heldout.changed_test_files(repo, newer, ["tests"]) == ["tests/sub/test_c.py", "tests/test_b.py"]


def test_held_out_tests_passed_on_the_reference_and_were_not_shown():
    outcomes = {"t.py::test_shown": "PASSED", "t.py::test_new": "PASSED", "t.py::test_later_fix": "FAILED",
                "t.py::test_p[1]": "PASSED", "t.py::test_err": "ERROR"}
    assert heldout.select(outcomes, {"t.py::test_shown"}) == ["t.py::test_new", "t.py::test_p[1]"]


def test_tests_failing_on_the_bug_itself_are_left_out_of_the_held_out_check():
    # a release's fix file holds another change (a new property) whose test fails on the bug
    # repo as it is: a patch of the bug alone cannot pass it, so it is not held out
    outcomes = {"t.py::test_keeps": "PASSED", "t.py::test_new_property": "PASSED"}
    assert heldout.select(outcomes, set(), {"t.py::test_new_property"}) == ["t.py::test_keeps"]


def _flaky_repo(tmp_path):
    """A repo whose ``.venv`` is this interpreter's, with a test failing on its first run only
    (it counts its runs in a file) and one always failing."""
    repo = tmp_path / "repo"
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_evict.py").write_text(
        "import pathlib\n\nCOUNT = pathlib.Path(__file__).with_name('runs.txt')\n\n\n"
        "def test_evicts_by_chance():\n"
        "    n = int(COUNT.read_text()) if COUNT.exists() else 0\n"
        "    COUNT.write_text(str(n + 1))\n"
        "    assert n > 0\n\n\n"
        "def test_broken():\n    assert 1 + 1 == 3\n\n\n"
        "def test_fine():\n    assert True\n")
    bug = bugs.Bug(id="flaky", project="p", package="p", old="1", new="2", what="", fix=[], take=[],
                   failing=[], source=".", tests=["tests"], requirements=[], old_sha256="", new_sha256="")
    return bug, repo


def test_a_test_failing_by_chance_is_run_again_and_not_counted(tmp_path):
    bug, repo = _flaky_repo(tmp_path)
    first, never = heldout.failing(bug, repo, ["tests/test_evict.py"])
    assert first["tests/test_evict.py::test_evicts_by_chance"] == "FAILED"
    assert never == {"tests/test_evict.py::test_broken"}
    # the file ran 3 times: test_broken failed every time; the chance failure passed at its second run
    assert (repo / "tests" / "runs.txt").read_text() == "3"


def test_newest_compares_release_numbers_not_strings():
    assert heldout.newest(["1.9.0", "1.22.4", "1.20.0"]) == "1.22.4"


def test_normalize_ignores_docstrings_formatting_and_version_but_not_a_changed_guard():
    fix = 'def clamp(x, lo):\n    """Clamp."""\n    if x < lo:\n        return lo\n    return x\n'
    same = ('__version__ = "2.0"\n\ndef clamp(x,lo):   # reformatted\n'
            '    if (x < lo):\n        return lo\n    return x\n')
    other = 'def clamp(x, lo):\n    if x <= lo:\n        return lo\n    return x\n'
    assert heldout.normalize('__version__ = "1.0"\n' + fix) == heldout.normalize(same)
    assert heldout.normalize(fix) != heldout.normalize(other)
    assert heldout.normalize('"""Only a docstring."""\n') == heldout.normalize("")


def test_reach_takes_each_edit_of_the_fix_alone_and_leaves_comment_lines_out():
    old = "def f(x):\n    # the rate\n    y = x * 2\n    z = 0\n    return y\n"
    new = "def f(x):\n    # the rate, doubled\n    # (issue 3)\n    y = x * 3\n    z = 0\n    return y + z\n"
    got = list(reach.edits(old, new))
    assert [(line, was, now) for line, was, now, _ in got] == [
        (3, "    y = x * 2\n", "    y = x * 3\n"), (5, "    return y\n", "    return y + z\n")]
    # each edit alone, on the old text, its comments kept as they were
    assert got[0][3] == "def f(x):\n    # the rate\n    y = x * 3\n    z = 0\n    return y\n"
    assert got[1][3] == "def f(x):\n    # the rate\n    y = x * 2\n    z = 0\n    return y + z\n"
    assert list(reach.edits(old, old.replace("# the rate", "# the new rate"))) == []  # a comment changed alone


def test_reach_puts_a_rank_in_the_cloze_tier_whose_lines_hold_it():
    assert [reach.tier(r) for r in (1, 3, 4, 8, 9, 16, 17, 32, 33, None)] == [1, 1, 2, 2, 3, 3, 4, 4, None, None]
