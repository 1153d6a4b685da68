"""The five specifications codur was built from (kept in ``docs/specs/``) and their code examples.

A document's code example runs as written, with only the package name mapped
(``agent_core`` -> ``codur``), in a fresh folder, in its own interpreter: what a user who
copies it gets.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "docs" / "specs"
DOCUMENTS = {
    "000": "000_aab11a21d3d42336.txt",  # the RLM engine, first version
    "001": "001_ed5c21a18d661533.txt",  # the RLM engine, second version
    "002": "002_eaacd3e6285ea76e.txt",  # the Executor
    "003": "003_5936930b1eba0bad.txt",  # the execution module
    "004": "004_8ada404ca672be65.txt",  # the execution engines
}
_BLOCK = re.compile(r"^```(?P<lang>\w*)\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


def document(number: str) -> str:
    """The text of specification ``number`` ("000" ... "004")."""
    return (SPECS / DOCUMENTS[number]).read_text(encoding="utf-8")


def python_blocks(number: str) -> list[str]:
    """The ```python blocks of specification ``number``, in order, as written."""
    return [m["body"] for m in _BLOCK.finditer(document(number)) if m["lang"] == "python"]


def scenarios(number: str) -> list[str]:
    """The ``#### Scenario:`` titles of specification ``number``, in order."""
    return re.findall(r"^#### Scenario: (.+)$", document(number), re.MULTILINE)


def run_example(code: str, folder: Path, *, top_level_await: bool = False,
                timeout_s: float = 120.0) -> subprocess.CompletedProcess:
    """Run ``code`` (``agent_core`` mapped to ``codur``) in a new interpreter in ``folder``.

    ``top_level_await``: the code is compiled with ``PyCF_ALLOW_TOP_LEVEL_AWAIT`` and its
    coroutine run by ``asyncio.run``, as ``python -m asyncio`` (or a notebook) runs an
    example written with a bare ``await``.
    """
    mapped = code.replace("agent_core", "codur")
    if top_level_await:
        runner = ("import ast, asyncio, sys\n"
                  "code = compile(sys.stdin.read(), '<example>', 'exec', flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)\n"
                  "result = eval(code, {'__name__': '__main__'})\n"
                  "if result is not None:\n    asyncio.run(result)\n")
        argv = [sys.executable, "-c", runner]
    else:
        argv = [sys.executable, "-"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(argv, input=mapped, cwd=folder, capture_output=True, text=True, timeout=timeout_s, env=env)
