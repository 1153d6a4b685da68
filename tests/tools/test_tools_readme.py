"""codur/tools/README.md's worked example runs as written and does what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "codur" / "tools" / "README.md"


def test_the_worked_example_runs_as_written():
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.DOTALL).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})  # noqa: S102
    signature, counted, outside, bad = out.getvalue().splitlines()
    assert signature == "count_lines(path: str, skip_blank: bool = False)"
    assert counted == "a.py: 2 lines" and outside == "False"
    assert bad.startswith("Error: bad arguments for count_lines") and "Expected count_lines(" in bad
