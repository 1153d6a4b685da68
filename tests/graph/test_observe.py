"""observe: a hanging test shows as a failing one (with a traceback into the loop), not as
a test run that timed out with no result."""

from __future__ import annotations

import time
from pathlib import Path

from codur.config import CodurConfig
from codur.graph.context import CodurContext
from codur.graph.observe import TEST_TIMEOUT_S, observe_node


def test_a_hanging_test_is_reported_as_failing(tmp_path: Path):
    (tmp_path / "slugs.py").write_text(
        "def next_free(name, taken):\n    n = 1\n    while f'{name}-{n}' in taken:\n        pass\n"
        "    return f'{name}-{n}'\n")
    (tmp_path / "test_slugs.py").write_text(
        "from slugs import next_free\n\n\ndef test_free():\n    assert next_free('a', set()) == 'a-1'\n\n\n"
        "def test_taken():\n    assert next_free('a', {'a-1'}) == 'a-2'\n")
    ctx = CodurContext(config=CodurConfig(critic=False))
    start = time.monotonic()
    update = observe_node.body({"repo": str(tmp_path), "task": "fix it", "run_id": "t"}, ctx)
    assert time.monotonic() - start < TEST_TIMEOUT_S + 20
    tests = update["observation"].tests
    assert tests.failed == ["test_slugs.py::test_taken"] and tests.passed_count == 1
    assert "slugs.py" in tests.report and "TimeoutError" in tests.report
