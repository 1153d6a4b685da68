"""codur in an 80-column terminal (a real pseudo-terminal): nothing is cropped, and a long diff
line folds with a continuation marker instead of wrapping into rows that read as diff lines."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.conftest import copy_example

CODUR = Path(sys.executable).with_name("codur")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
LONG_CALL = "line_is_eligible_for_the_bulk_discount_under_the_shop_rules_of_2024(quantity)"


def in_terminal(argv: list[str], columns: int = 80, **env: str) -> list[str]:
    """Run ``argv`` on a pseudo-terminal ``columns`` wide; its output rows, escapes removed."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 60, columns, 0, 0))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CODUR_", "COLUMNS", "LINES"))}
    proc = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env={**base, "TERM": "xterm", **env})
    os.close(child)
    out = b""
    while select.select([main], [], [], 120)[0]:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=30)
    os.close(main)
    text = ANSI.sub("", out.decode(errors="replace")).replace("\r\n", "\n")
    return [row.split("\r")[-1].rstrip() for row in text.split("\n")]  # the last redraw of a spinner row


@pytest.fixture(scope="module")
def long_line_repo(tmp_path_factory) -> Path:
    """examples/invoice with its buggy condition made longer than 80 columns, fixed by mutation."""
    repo = copy_example("invoice", tmp_path_factory.mktemp("narrow"))
    source = repo / "billing.py"
    source.write_text(source.read_text().replace("    if quantity > BULK_THRESHOLD:",
                                                 f"    if quantity > BULK_THRESHOLD and {LONG_CALL}:")
                      + f"\n\ndef {LONG_CALL.replace('(quantity)', '(quantity: int)')} -> bool:\n"
                        "    return quantity > 0\n")
    rows = in_terminal([str(CODUR), "make the failing tests pass", "--repo", str(repo)], CODUR_FIXERS="mutation",
                       XDG_CONFIG_HOME=str(repo.parent / "xdg"))
    (repo.parent / "run.txt").write_text("\n".join(rows))
    return repo


def test_a_long_diff_line_folds_with_a_marker_not_into_fake_diff_lines(long_line_repo: Path):
    rows = (long_line_repo.parent / "run.txt").read_text().split("\n")
    assert "status: success  reason: verified" in rows, rows[-30:]
    diff = rows[rows.index("--- a/billing.py"):]
    diff = diff[:next(i for i, row in enumerate(diff) if row.startswith("trace: "))]
    assert all(cell_len(row) <= 80 for row in diff)
    assert all(row[:1] in (" ", "+", "-", "@", "↪", "") for row in diff), diff
    folded = [row for row in diff if row.startswith("↪")]
    assert len(folded) >= 2  # the removed and the added long line each went on
    joined = "\n".join(diff).replace("\n↪ ", "")
    assert f"-    if quantity > BULK_THRESHOLD and {LONG_CALL}:" in joined.split("\n")
    assert f"+    if quantity >= BULK_THRESHOLD and {LONG_CALL}:" in joined.split("\n")


def test_runs_and_config_fold_instead_of_cropping(long_line_repo: Path, tmp_path: Path):
    rows = in_terminal([str(CODUR), "runs", "--repo", str(long_line_repo)])
    assert all(cell_len(row) <= 80 for row in rows)
    task_column = [row[row.index("make"):] for row in rows if "make" in row]
    assert task_column, rows
    start = rows.index(next(row for row in rows if "make" in row))
    words = " ".join(row[len(rows[start]) - len(task_column[0]):].strip() for row in rows[start:start + 3])
    assert "make the failing tests pass" in words and "…" not in "".join(rows)

    xdg = tmp_path / ("a-rather-long-folder-name-for-the-user-configuration" * 2)
    (xdg / "codur").mkdir(parents=True)
    (xdg / "codur" / "config.toml").write_text("samples = 2\n")
    rows = in_terminal([str(CODUR), "config", "--repo", str(long_line_repo)], XDG_CONFIG_HOME=str(xdg))
    assert all(cell_len(row) <= 80 for row in rows)
    samples = next(i for i, row in enumerate(rows) if row.startswith("│ samples "))
    origin = "".join(row.split("│")[3].strip() for row in rows[samples:samples + 20]
                     if row.startswith("│ ") and (row is rows[samples] or row.split("│")[1].strip() == ""))
    assert origin == str(xdg / "codur" / "config.toml")


def test_repair_folds_a_long_diff_line_as_run_does(long_line_repo: Path, tmp_path: Path):
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(long_line_repo, repo, ignore=shutil.ignore_patterns(".codur"))
    source = repo / "billing.py"  # the bug back in (the module's run fixed it)
    source.write_text(source.read_text().replace("quantity >= BULK_THRESHOLD and", "quantity > BULK_THRESHOLD and"))
    rows = in_terminal([str(CODUR), "repair", "--repo", str(repo), "--dry-run", "--workers", "1"])
    start = rows.index("--- a/billing.py")
    diff = rows[start:start + next(i for i, row in enumerate(rows[start:]) if row.startswith("patched"))]
    assert all(cell_len(row) <= 80 for row in diff), diff
    assert [row for row in diff if row.startswith("↪")], diff  # folded with the marker, not cropped
    joined = "\n".join(diff).replace("\n↪ ", "")
    assert f"+    if quantity >= BULK_THRESHOLD and {LONG_CALL}:" in joined.split("\n")


def test_piped_runs_and_undo_lines_are_whole_and_unpadded(long_line_repo: Path):
    listed = subprocess.run([str(CODUR), "runs", "--repo", str(long_line_repo)], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "40"}, timeout=60)
    lines = listed.stdout.splitlines()
    assert lines[1].startswith("run id  started  status  files  tokens  cost $  s  task")
    [row] = [line for line in lines if "make the failing tests pass" in line]
    assert row == row.rstrip() and "   " not in row  # one line, fields two spaces apart, no padding
    undone = subprocess.run([str(CODUR), "undo", "--repo", str(long_line_repo)], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "40"}, timeout=60)
    assert undone.returncode == 0, undone.stderr
    assert any(line.startswith("undid run ") and len(line) > 40 for line in undone.stdout.splitlines())
