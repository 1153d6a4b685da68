"""observe: a hanging test shows as a failing one (with a traceback into the loop), not as
a test run that timed out with no result."""

from __future__ import annotations

import re
import time
from pathlib import Path

from codur.config import CodurConfig
from codur.graph.context import build_context
from codur.graph.observe import observe_node
from codur.graph.verification.deterministic import verify_repo
from codur.testing.command import TEST_TIMEOUT_S
from codur.tools import ToolExecutor, ToolSettings


def test_a_hanging_test_is_reported_as_failing(tmp_path: Path):
    (tmp_path / "slugs.py").write_text(
        "def next_free(name, taken):\n    n = 1\n    while f'{name}-{n}' in taken:\n        pass\n"
        "    return f'{name}-{n}'\n")
    (tmp_path / "test_slugs.py").write_text(
        "from slugs import next_free\n\n\ndef test_free():\n    assert next_free('a', set()) == 'a-1'\n\n\n"
        "def test_taken():\n    assert next_free('a', {'a-1'}) == 'a-2'\n")
    ctx = build_context(tmp_path, CodurConfig(critic=False))
    start = time.monotonic()
    update = observe_node.body({"repo": str(tmp_path), "task": "fix it", "run_id": "t"}, ctx)
    assert time.monotonic() - start < TEST_TIMEOUT_S + 20
    tests = update["observation"].tests
    assert tests.failed == ["test_slugs.py::test_taken"] and tests.passed_count == 1
    assert "slugs.py" in tests.report and "TimeoutError" in tests.report


def test_verify_fails_a_hanging_test_at_its_limit_with_the_loops_line(tmp_path: Path, monkeypatch):
    monkeypatch.setattr("codur.tools.testing.TEST_TIMEOUT_S", 0.5)
    (tmp_path / "slugs.py").write_text(
        "def next_free(name, taken):\n    n = 1\n    while f'{name}-{n}' in taken:\n        pass\n"
        "    return f'{name}-{n}'\n")
    (tmp_path / "test_slugs.py").write_text(
        "from slugs import next_free\n\n\ndef test_taken():\n    assert next_free('a', {'a-1'}) == 'a-2'\n")
    start = time.monotonic()
    verdict = verify_repo(ToolExecutor(tmp_path, ToolSettings(timeout_s=60)).ctx, task="fix it", task_type="code_fix",
                          changed=[], has_tests=True)
    assert time.monotonic() - start < 30  # the 0.5 s per-test limit, not the run's 60 s
    assert not verdict.passed and verdict.failing_tests == ["test_slugs.py::test_taken"]
    assert re.search(r"slugs.py:[34]: in next_free", verdict.evidence[0].output)
