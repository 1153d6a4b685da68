"""``_attempt_local_repair`` (the execution module's named repair entry point) fixes a real repo."""

from __future__ import annotations

import subprocess
import sys

from codur.graph.execution.repair import _attempt_local_repair


def test_attempt_local_repair_fixes_the_invoice_example(invoice_repo):
    before = (invoice_repo / "billing.py").read_text()
    answer = _attempt_local_repair(invoice_repo, workers=4, time_budget_s=120)
    assert set(answer) == {"success", "message"}
    assert answer["success"] is True, answer["message"]
    assert "billing.py" in answer["message"] and ">=" in answer["message"], answer["message"]
    assert (invoice_repo / "billing.py").read_text() != before
    suite = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=invoice_repo,
                           capture_output=True, text=True, timeout=120)
    assert suite.returncode == 0, suite.stdout[-800:]
