"""codur: a coding agent for Python repositories, built on LangGraph.

Python API::

    from codur import run, RunRequest
    result = run(RunRequest(task="make the failing tests pass", repo="examples/invoice"))
    print(result.status, result.reason); print(result.diff)

The Executor specification's names: ``Executor`` (an agent run with retries, backoff, quota
awareness and dry run), ``IterationPlan``, ``ExecutionResult``, ``AgentPort``, ``QuotaState``.

``build_graph()`` returns the compiled graph (nodes initialize → observe → plan →
delegate → execute → verify → review → done, with retry, replan and repair edges).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.config import CodurConfig
    from codur.core.contracts import RunStatus
    from codur.core.ports import AgentPort, ExecutionResult, IterationPlan, QuotaState, QuotaStatus
    from codur.engine.components import EngineComponents
    from codur.engine.contracts import RunRequest, RunResult
    from codur.engine.local import LocalEngine
    from codur.engine.runner import arun, run
    from codur.llm.agent_runner import Executor
    from codur.llm.scripted import MockProvider

#: Public names, imported on first use (PEP 562): ``import codur`` stays instant, so the
#: ``codur`` command can take a Ctrl-C during its start-up (see :mod:`codur._entry`).
_LAZY = {"CodurConfig": "codur.config", "RunRequest": "codur.engine.contracts",
         "RunResult": "codur.engine.contracts", "RunStatus": "codur.core.contracts",
         "arun": "codur.engine.runner", "run": "codur.engine.runner", "LocalEngine": "codur.engine.local",
         "EngineComponents": "codur.engine.components", "MockProvider": "codur.llm.scripted",
         # the Executor specification's names (v0.6)
         "Executor": "codur.llm.agent_runner", "IterationPlan": "codur.core.ports",
         "ExecutionResult": "codur.core.ports", "AgentPort": "codur.core.ports", "QuotaState": "codur.core.ports",
         "QuotaStatus": "codur.core.ports"}

from codur._lazy import lazy_exports  # noqa: E402 - after the table it serves

__getattr__ = lazy_exports("codur", _LAZY, globals())


def build_graph(checkpointer=None, *, name: str = "codur"):
    """The compiled codur graph (:func:`codur.graph.builder.build_graph`), runnable on its own:
    ``build_graph().invoke({"task": ..., "repo": "/abs/path"}, context={...settings})`` builds
    the run's object from the settings and writes the run's record (folder, trace, journal,
    result: :mod:`codur.graph.record`), so ``codur runs`` and ``codur undo`` see it; a
    :class:`codur.graph.context.Run` given as ``context`` is used as it is."""
    from codur.graph.builder import build_graph as _build
    from codur.graph.context import StudioRun

    return _build(checkpointer, name=name, context_of=StudioRun())


__all__ = ["AgentPort", "CodurConfig", "EngineComponents", "ExecutionResult", "Executor", "IterationPlan",
           "LocalEngine", "MockProvider", "QuotaState", "QuotaStatus", "RunRequest", "RunResult", "RunStatus", "arun",
           "build_graph", "run"]
__version__ = "0.1.0"
