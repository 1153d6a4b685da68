"""codur: a coding agent for Python repositories, built on LangGraph.

Python API::

    from codur import run, RunRequest
    result = run(RunRequest(task="make the failing tests pass", repo="examples/invoice"))
    print(result.status, result.reason); print(result.diff)

``build_graph()`` returns the compiled graph (nodes initialize → observe → plan →
delegate → execute → verify → review → done, with retry, replan and repair edges).
"""

from codur.config import CodurConfig
from codur.engine.contracts import RunRequest, RunResult, RunStatus
from codur.engine.runner import arun, run


def build_graph(checkpointer=None, *, name: str = "codur"):
    """The compiled codur graph; see :func:`codur.graph.builder.build_graph`."""
    from codur.graph.builder import build_graph as _build

    return _build(checkpointer, name=name)


__all__ = ["CodurConfig", "RunRequest", "RunResult", "RunStatus", "arun", "build_graph", "run"]
__version__ = "0.1.0"
