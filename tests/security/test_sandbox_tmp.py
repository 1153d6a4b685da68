"""Issue 36, item 6: the sandbox's private /tmp has a size (a tmpfs is RAM the test memory limit
does not count: a test filled an unsized one with 4 GiB)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.sandbox.bwrap import bwrap_executable, bwrap_problem, supports_tmpfs_size
from codur.sandbox.limits import MIN_TMP_MB, default_tmp_mb, machine_memory_mb
from codur.tools import ToolExecutor, ToolSettings

BWRAP = bwrap_executable()
pytestmark = pytest.mark.skipif(not BWRAP or not supports_tmpfs_size(BWRAP),
                                reason=f"no bubblewrap with --size here: {bwrap_problem()}")

FILL = """\
written = 0
try:
    with open('/tmp/fill', 'wb') as f:
        while written < 256 * 2**20:
            f.write(b'x' * 2**20)
            f.flush()
            written += 2**20
except OSError as exc:
    print('stopped', exc.errno)
print('wrote', written // 2**20)
"""


def test_a_test_cannot_fill_the_sandbox_tmp_past_its_size(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "fill.py").write_text(FILL)
    out = ToolExecutor(repo, ToolSettings(tmp_mb=32)).execute("run_python_file", {"path": "fill.py"}).output
    wrote = int(out.split("wrote ")[1].split()[0])
    assert "stopped 28" in out and 24 <= wrote <= 32, out  # ENOSPC at 32 MiB, not 256


def test_the_default_size_is_a_share_of_memory() -> None:
    total = machine_memory_mb()
    assert total is not None and default_tmp_mb() == max(MIN_TMP_MB, total // 8)
