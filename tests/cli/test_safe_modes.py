"""Safe modes that say what they will do: ``--confirm`` with no terminal is refused at once;
``--read-only`` on a task that needs an edit ends in seconds with the plan and a proposed diff.

On main, ``--confirm < /dev/null`` printed the prompt and ended ``cancelled`` (exit 130) with no
word that no terminal could answer; ``--read-only`` on a fix task spent 2 turns and 6 model
calls and ended ``failed / stuck``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

TASK = "make the failing tests pass"
DIFF = """```diff
--- a/billing.py
+++ b/billing.py
@@ -19,3 +19,3 @@
     \"\"\"Percent off a line: 10% when at least BULK_THRESHOLD items are bought.\"\"\"
-    if quantity > BULK_THRESHOLD:
+    if quantity >= BULK_THRESHOLD:
         return BULK_DISCOUNT_PERCENT
```
The discount starts at the threshold."""


def test_confirm_without_a_terminal_exits_2_at_once(invoice_repo: Path):
    started = time.monotonic()
    with open("/dev/null") as devnull:
        proc = subprocess.run([sys.executable, "-m", "codur.commands", "run", TASK, "--repo", str(invoice_repo),
                               "--confirm"], stdin=devnull, capture_output=True, text=True, timeout=120)
    seconds = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--confirm" in lines[0] and "no terminal" in lines[0] and "--read-only" in lines[0]
    assert not (invoice_repo / ".codur").exists() and proc.stdout == ""
    assert seconds < 30  # the interpreter's start-up, no run


def test_read_only_on_a_fix_task_ends_with_the_plan_and_a_proposed_diff(invoice_repo: Path, scripted, invoke):
    before = (invoice_repo / "billing.py").read_text()
    models = scripted([DIFF])
    started = time.monotonic()
    res = invoke(TASK, "--repo", str(invoice_repo), "--read-only")
    assert res.exit_code == 0, res.output
    assert time.monotonic() - started < 60
    assert "read-only: nothing will be written" in res.stdout  # said at the start
    assert "status: success" in res.stdout and "read_only_proposal" in res.stdout
    assert "proposed diff (not applied, not tested)" in res.stdout
    assert "+    if quantity >= BULK_THRESHOLD:" in res.stdout
    assert (invoice_repo / "billing.py").read_text() == before
    assert len(models["actor"].calls) == 1 and not models["actor"].bound_tools  # one call, no tool offered


def test_read_only_question_is_still_answered_with_read_only_tools(invoice_repo: Path, scripted, invoke):
    models = scripted(["The discount starts above BULK_THRESHOLD, in bulk_discount_percent."])
    res = invoke("where is the bulk discount computed?", "--repo", str(invoice_repo), "--read-only")
    assert res.exit_code == 0, res.output
    assert "read_only_proposal" not in res.stdout and "answered" in res.stdout
    bound = {t.name for t in models["actor"].bound_tools}
    assert {"read_file", "grep"} <= bound and not bound & {"write_file", "replace_in_file", "run_pytest"}
