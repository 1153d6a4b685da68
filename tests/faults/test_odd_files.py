"""Issue 36, item 7: a module that starts with a UTF-8 byte order mark is read, mutated and
written with its BOM (it got 0 mutants: the text with the mark did not parse)."""

from __future__ import annotations

import json
from pathlib import Path

from codur import CodurConfig, RunRequest, RunStatus, run
from codur.mutation.mutants import generate
from codur.validate.source import Source

BOM = b"\xef\xbb\xbf"


def test_a_bom_module_gets_its_mutants_at_the_right_columns(ages_repo: Path) -> None:
    (ages_repo / "ages.py").write_bytes(BOM + b"def is_adult(age):\n    return age > 18\n")
    text = (ages_repo / "ages.py").read_bytes().decode("utf-8")
    src = Source(text)
    func = src.tree.body[0]
    assert src.seg(func).startswith("def is_adult") and src.seg(func.body[0]) == "return age > 18"
    mutants, texts = generate(ages_repo, {("ages.py", 2): 1.0})
    assert any(m.apply(texts["ages.py"]) == "\ufeffdef is_adult(age):\n    return age >= 18\n" for m in mutants)


def test_a_bom_module_is_fixed_and_keeps_its_bom(ages_repo: Path) -> None:
    source = (ages_repo / "ages.py").read_bytes()
    (ages_repo / "ages.py").write_bytes(BOM + source)
    config = CodurConfig(fixers=["mutation"], critic=False, repair_workers=1, timeout_s=120)
    result = run(RunRequest(task="make the failing tests pass", repo=ages_repo), config=config)
    assert result.status is RunStatus.SUCCESS, result.reason
    fixed = (ages_repo / "ages.py").read_bytes()
    assert fixed.startswith(BOM) and b"return age >= 18" in fixed and fixed.count(BOM) == 1


def test_a_memory_limit_too_small_to_start_the_tests_is_test_setup_failed_naming_it(ages_repo: Path) -> None:
    """Before: the run ended ``no_fixer``; the interpreter could not even map libc."""
    config = CodurConfig(fixers=["mutation"], critic=False, repair_workers=1, timeout_s=120, test_memory_mb=8)
    result = run(RunRequest(task="make the failing tests pass", repo=ages_repo), config=config)
    assert result.status is RunStatus.ERROR and result.reason == "test_setup_failed", result.reason
    events = [json.loads(line) for line in (result.metadata.run_dir / "trace.jsonl").read_text().splitlines()]
    problem = next(e["problem"] for e in events if e["event_type"] == "tests.setup_failed")
    assert problem.startswith("the test command cannot start under the memory limit of 8 MiB (test_memory_mb")
    assert "return age > 18" in (ages_repo / "ages.py").read_text()
