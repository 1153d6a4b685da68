"""``run`` / ``arun``: the short forms of ``LocalEngine().execute(request, components)``.

See :mod:`codur.engine.local` for what a run does, writes and how it is cancelled.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from codur.config import CodurConfig
from codur.engine.components import EngineComponents, Policies
from codur.engine.contracts import RunRequest, RunResult
from codur.engine.local import LocalEngine, new_run_id, run_folder
from codur.llm.factory import ModelProvider

__all__ = ["arun", "new_run_id", "run", "run_folder"]


def _components(models: ModelProvider | None, on_event: Callable[[dict], None] | None, checkpointer: Any,
                confirm: Callable[[str, dict], bool] | None, components: EngineComponents | None) -> EngineComponents:
    """The caller's components, else ones made from the keyword arguments (without settings: the
    engine is given them, once, and merges them with the request in one function,
    :func:`codur.engine.settings.run_settings`)."""
    if components is not None:
        return components
    return EngineComponents(models=models, emitter=on_event, checkpointer=checkpointer,
                            policies=Policies(confirm=confirm), session_store=None)


def _request(request: RunRequest | str, repo: Path | str | None) -> RunRequest:
    if isinstance(request, str):
        return RunRequest(input=request, repo=Path(repo or Path.cwd()))
    return request


def run(request: RunRequest | str, *, repo: Path | str | None = None, config: CodurConfig | None = None,
        models: ModelProvider | None = None, on_event: Callable[[dict], None] | None = None,
        checkpointer: Any = None, confirm: Callable[[str, dict], bool] | None = None,
        components: EngineComponents | None = None) -> RunResult:
    """Run codur on a repo and return what it did.

    Args:
        request: a RunRequest, or the task text (then ``repo`` gives the path).
        config: settings (default: from the environment).
        models: chat models per role (default: from config; tests pass a StaticModelProvider or MockProvider).
        on_event: called with every event as it happens (the CLI prints them).
        checkpointer: a LangGraph checkpointer (thread id = run id); default: SQLite in ``<repo>/.codur/``.
        confirm: asked before writes when the tool policy is confirm_writes.
        components: all of the above but ``config`` at once (then those keyword arguments are
            ignored; ``config`` applies when the components carry none). Session memory is the
            repo's SQLite store unless the components name another.

    Returns:
        The RunResult (see :meth:`codur.engine.local.LocalEngine.run`).

    Raises:
        pydantic.ValidationError: an empty task or a repo path that is not a directory.
        codur.llm.local.LocalModelUnavailable: the embedded model cannot start.
    """
    return LocalEngine(config).run(_request(request, repo),
                                   _components(models, on_event, checkpointer, confirm, components))


async def arun(request: RunRequest | str, *, repo: Path | str | None = None, config: CodurConfig | None = None,
               models: ModelProvider | None = None, on_event: Callable[[dict], None] | None = None,
               checkpointer: Any = None, confirm: Callable[[str, dict], bool] | None = None,
               components: EngineComponents | None = None) -> RunResult:
    """:func:`run` for asyncio callers; cancelling the task cancels the run (it ends ``cancelled``,
    its result written, before CancelledError reaches the caller). Same arguments and errors."""
    return await LocalEngine(config).execute(_request(request, repo),
                                             _components(models, on_event, checkpointer, confirm, components))
