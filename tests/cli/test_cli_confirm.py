"""``codur run --confirm``: each write's diff is shown, answered y, n, a or q from stdin."""

from __future__ import annotations

import json
from pathlib import Path

from codur.ui.confirm import write_diff

FIX_OLD = "if quantity > BULK_THRESHOLD:"
FIX_NEW = "if quantity >= BULK_THRESHOLD:"


def call(name: str, **arguments) -> str:
    """A tool call the way the local model writes it: a fenced JSON block in the content."""
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def fix_call() -> str:
    return call("replace_in_file", path="billing.py", old=FIX_OLD, new=FIX_NEW)

TASK = "make the failing tests pass"
QUESTION = "apply this write?"


def test_yes_applies_the_write_after_showing_its_diff(invoice_repo: Path, scripted, invoke):
    scripted([fix_call(), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--confirm", input="y\n")
    assert res.exit_code == 0, res.output
    assert res.stdout.count(QUESTION) == 1
    shown = res.stdout.split(QUESTION)[0]
    assert "? replace_in_file billing.py" in shown
    assert f"-    {FIX_OLD}" in shown and f"+    {FIX_NEW}" in shown  # the diff against the file now
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()


def test_no_refuses_the_write_and_the_model_is_told(invoice_repo: Path, scripted, invoke):
    before = (invoice_repo / "billing.py").read_text()
    models = scripted([fix_call(), "I could not change it."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--confirm", input="n\n")
    assert res.exit_code == 1
    assert (invoice_repo / "billing.py").read_text() == before
    told = models["actor"].calls[1][-1].content
    assert "not confirmed by the user" in told
    assert "files changed: (none)" in res.stdout


def test_all_applies_this_and_every_later_write_without_asking(invoice_repo: Path, scripted, invoke):
    scripted([fix_call(), call("write_file", path="NOTES.md", content="fixed the threshold\n"), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--confirm", input="a\n")
    assert res.exit_code == 0, res.output
    assert res.stdout.count(QUESTION) == 1
    assert (invoice_repo / "NOTES.md").read_text() == "fixed the threshold\n"
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()


def test_quit_refuses_the_write_and_cancels_the_run(invoice_repo: Path, scripted, invoke):
    before = (invoice_repo / "billing.py").read_text()
    scripted([fix_call(), call("write_file", path="NOTES.md", content="x\n"), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--confirm", input="q\n")
    assert res.exit_code == 130, res.output
    assert "status: cancelled" in res.stdout
    assert res.stdout.count(QUESTION) == 1
    assert (invoice_repo / "billing.py").read_text() == before and not (invoice_repo / "NOTES.md").exists()


def test_a_bad_answer_is_asked_again(invoice_repo: Path, scripted, invoke):
    scripted([fix_call(), "Fixed."])
    res = invoke(TASK, "--repo", str(invoice_repo), "--confirm", input="maybe\ny\n")
    assert res.exit_code == 0, res.output
    assert FIX_NEW in (invoice_repo / "billing.py").read_text()


def test_write_diff_of_each_writing_tool(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    assert write_diff(tmp_path, "write_file", {"path": "a.py", "content": "x = 1\ny = 3\n"}).splitlines()[2:] == [
        "@@ -1,2 +1,2 @@", " x = 1", "-y = 2", "+y = 3"]
    new_file = write_diff(tmp_path, "write_file", {"path": "b.py", "content": "z = 0\n"})
    assert new_file.startswith("--- /dev/null\n+++ b/b.py") and "+z = 0" in new_file
    replaced = write_diff(tmp_path, "replace_in_file", {"path": "a.py", "old": "y = 2", "new": "y = 20"})
    assert "-y = 2\n+y = 20\n" in replaced and " x = 1\n" in replaced
    patch = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 10\n"
    assert write_diff(tmp_path, "apply_patch", {"patch": patch}) == patch
    outside = write_diff(tmp_path, "write_file", {"path": "../../etc/passwd", "content": "x\n"})
    assert "root:" not in outside  # nothing outside the repo is read


def test_a_waiting_question_ends_when_the_run_is_cancelled(tmp_path: Path, monkeypatch):
    """Ctrl-C while the question waits sets the run's cancel event: the answer is q, at once."""
    import io
    import os
    import threading
    import time

    from rich.console import Console

    from codur.ui.confirm import WriteConfirmation

    (tmp_path / "a.py").write_text("x = 1\n")
    read_end, write_end = os.pipe()
    quits = []
    cancel = threading.Event()
    with os.fdopen(read_end) as stdin, os.fdopen(write_end, "w"):
        monkeypatch.setattr("sys.stdin", stdin)
        asker = WriteConfirmation(tmp_path, Console(file=io.StringIO()), on_quit=lambda: quits.append(1),
                                  cancel=cancel)
        threading.Timer(0.3, cancel.set).start()
        t0 = time.monotonic()
        assert asker("write_file", {"path": "a.py", "content": "x = 2\n"}) is False
        assert time.monotonic() - t0 < 2.0
    assert quits == [1] and asker.asked == [("write_file", "q")]
    assert asker("write_file", {"path": "a.py", "content": "x = 3\n"}) is False  # no more questions


def test_a_risky_write_is_asked_about_even_after_all(tmp_path: Path, monkeypatch) -> None:
    """Issue 21, item 3: --confirm's answer "a" covers plain writes, not one that adds risky code."""
    import io

    from rich.console import Console

    from codur.ui.confirm import WriteConfirmation

    monkeypatch.setattr("sys.stdin", io.StringIO("a\nn\ny\n"))
    out = io.StringIO()
    asker = WriteConfirmation(tmp_path, Console(file=out, width=200), on_quit=lambda: None)
    assert asker("write_file", {"path": "a.py", "content": "x = 2\n"}) is True  # a(ll)
    assert asker.risky("a.py", ["network: import socket"]) is False  # asked anyway: n
    assert asker.risky("a.py", ["network: import socket"]) is True  # y
    assert "risky change to a.py: network: import socket" in out.getvalue()
    assert asker.asked == [("write_file", "a"), ("risky", "n"), ("risky", "y")]
