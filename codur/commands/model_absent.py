"""The model's absence degrades a run, it does not stop it (issue 52).

When the model endpoint's check before the suite fails (:func:`codur.llm.preflight.preflight`:
down, hung, refusing the key), one line says so and the run goes on with the fixers that need
no model (mutation search; :func:`without_model`), and ends ``failed`` / ``model_unavailable``
only when a model was needed and nothing else fixed the bug (:func:`unavailable_result`). A task
only a model can do (a question, an analysis, a feature request) or a run whose fixers all need
one has nothing to go on with: exit 2 at once.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console


def preflight(err: Console, config: Any, task: str, *, dry_run: bool, served: bool = True) -> tuple[Any, str]:
    """One cheap request to the model endpoint before the suite runs (not in a dry run, nor when no
    fixer calls a model): (``config``, "") when it answers or is not asked. When it cannot be
    used (down, refusing the key, not at that URL: the same line whether or not a model was named),
    one line says so and the run goes on without the model (:func:`without_model`): (that
    config, the endpoint's line); exit 2 when there is nothing to go on with (a question, a
    feature request, only model fixers). When it answers and no model was named, the one it
    serves is asked for (``served``; :func:`codur.config.endpoint.served_model`): exit 2 with one
    line when it cannot be chosen (several, none)."""
    from codur.config import ConfigError
    from codur.llm.preflight import EndpointUnusable
    from codur.llm.preflight import preflight as check

    if config.dry_run or dry_run or not config.model_fixers():
        return config, ""
    try:
        check(config)
        if served and config.base_url and not config.model and not config.profiles:
            config = config.model_copy(update={"model": config.profiles_for("actor")[0].model})  # asks /v1/models
    except EndpointUnusable as exc:
        degraded = without_model(config, task)
        if degraded is None:
            err.print(f"codur: model endpoint {exc}", highlight=False, markup=False)
            raise typer.Exit(2) from None
        err.print(f"codur: model endpoint {exc}; going on without it: {', '.join(degraded.fixers)} only",
                  markup=False)
        return degraded, str(exc)
    except ConfigError as exc:
        err.print(f"codur: {exc}", highlight=False, markup=False)
        raise typer.Exit(2) from None
    return config, ""


def ended(result: Any, down: str) -> Any:
    """``result`` as it is when the model answered (``down`` empty); of a run that went on without
    its model (``down``: the endpoint's line), ended as :func:`unavailable_result`
    says, and its ``result.json`` rewritten to match."""
    from codur.core.files import atomic_write_bytes
    from codur.engine.report import result_json

    final = unavailable_result(result, down) if down else result
    if final is not result and result.run_dir is not None and (result.run_dir / "result.json").is_file():
        atomic_write_bytes(result.run_dir / "result.json", result_json(final))
    return final


def without_model(config: object, task: str) -> object | None:
    """``config`` (a CodurConfig) for a run without its model: the fixers that need none, no
    critic; None when there is nothing to go on with: the task's wording asks a question, an
    analysis or a feature (:func:`codur.graph.planning.task.read_task`), or every fixer of the
    run needs a model."""
    from codur.core.contracts import MODEL_FIXERS
    from codur.graph.planning.task import read_task
    from codur.tools.registry import TaskType

    kind = read_task(task).kind(failing_tests=True)
    if kind in (TaskType.EXPLANATION, TaskType.CODE_ANALYSIS, TaskType.CODE_GENERATION):
        return None
    fixers = [f for f in config.fixers if f not in MODEL_FIXERS]  # type: ignore[attr-defined]
    if not fixers:
        return None
    return config.model_copy(update={"fixers": fixers, "critic": False})  # type: ignore[attr-defined]


def unavailable_result(result: object, why: str) -> object:
    """``result`` (a RunResult of a run :func:`without_model`) as the run with its model would have
    ended: a failed run (not refused) ends ``model_unavailable (<why>)``, the reason the fixers
    without a model ended on kept in ``metadata.stop["before_model_unavailable"]``; any other
    result is returned as it is."""
    reason = result.reason  # type: ignore[attr-defined]
    if result.status.value != "failed" or reason.startswith(("refused", "model_unavailable")):  # type: ignore[attr-defined]
        return result
    meta = result.metadata  # type: ignore[attr-defined]
    stop = {**meta.stop, "before_model_unavailable": reason}
    return result.model_copy(update={"reason": f"model_unavailable ({why})",  # type: ignore[attr-defined]
                                     "metadata": meta.model_copy(update={"stop": stop})})
