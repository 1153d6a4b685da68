"""codur: a coding agent for Python repositories, built on LangGraph.

Python API::

    from codur import run, RunRequest
    result = run(RunRequest(task="make the failing tests pass", repo="examples/invoice"))
    print(result.status, result.reason); print(result.diff)

``build_graph()`` returns the compiled graph (nodes initialize → observe → plan →
delegate → execute → verify → review → done, with retry, replan and repair edges).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.config import CodurConfig
    from codur.engine.contracts import RunRequest, RunResult, RunStatus
    from codur.engine.runner import arun, run

#: Public names, imported on first use (PEP 562): ``import codur`` stays instant, so the
#: ``codur`` command can take a Ctrl-C during its start-up (see :mod:`codur._entry`).
_LAZY = {"CodurConfig": "codur.config", "RunRequest": "codur.engine.contracts",
         "RunResult": "codur.engine.contracts", "RunStatus": "codur.engine.contracts",
         "arun": "codur.engine.runner", "run": "codur.engine.runner"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'codur' has no attribute {name!r}")


def build_graph(checkpointer=None, *, name: str = "codur"):
    """The compiled codur graph; see :func:`codur.graph.builder.build_graph`."""
    from codur.graph.builder import build_graph as _build

    return _build(checkpointer, name=name)


__all__ = ["CodurConfig", "RunRequest", "RunResult", "RunStatus", "arun", "build_graph", "run"]
__version__ = "0.1.0"
