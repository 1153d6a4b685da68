"""One embedded model server for a local batch, instead of one per task process.

Each ``codur`` process that uses the embedded model starts its own llama.cpp server
(~1.1 GB of weights mapped, a KV cache, a start-up of seconds). A local batch instead starts
one server with a slot per worker (llama.cpp ``n_parallel``, each slot keeping the
configured context) and hands its URL to every task process
(``CODUR_LOCAL__SERVER_URL``: :class:`codur.llm.local.AttachedServer`), so the tasks share
its weights and take turns on the cores. A Ray batch keeps one server per node's process:
its workers may be on other machines.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from codur.batch.tasks import BatchTask
from codur.core.events import Event
from codur.core.events.batch import BatchModelServer

URL_ENV = "CODUR_LOCAL__SERVER_URL"


def needs_embedded_model(tasks: list[BatchTask]) -> bool:
    """Whether a task may call the embedded model: the settings (environment and user file)
    name no endpoint for some role, and a task's fixers (its own, else the settings') include
    one that calls a model."""
    from codur.config import load_config
    from codur.core.contracts import MODEL_FIXERS
    from codur.llm.factory import ROLES

    config = load_config(None)
    embedded = any(p.base_url is None for r in ROLES for p in config.profiles_for(r, resolve=False))
    if config.local.server_url or not embedded:
        return False
    return any(any(f in MODEL_FIXERS for f in (t.fixers or config.fixers)) for t in tasks)


@contextlib.contextmanager
def shared_model_server(tasks: list[BatchTask], workers: int,
                        emit: Callable[[Event], None] = lambda e: None) -> Iterator[dict[str, str]]:
    """Start the batch's embedded server when a task may need it; yields the environment
    for the task processes (``{}``: none started) and stops the server at the end.

    A server that cannot start (no ``local`` extra, a bad download) is reported as a
    ``batch.model_server`` event with ``error``; each task then meets the same error itself."""
    if not needs_embedded_model(tasks):
        yield {}
        return
    from codur.config import load_config
    from codur.llm.local import LocalModelServer, LocalModelUnavailable

    local = load_config(None).local
    settings = local.model_copy(update={"parallel": workers, "n_ctx": local.n_ctx * workers})
    try:
        server = LocalModelServer(settings).start()
    except LocalModelUnavailable as exc:
        emit(BatchModelServer(error=str(exc)))
        yield {}
        return
    emit(BatchModelServer(url=server.base_url, slots=workers, n_ctx=settings.n_ctx))
    try:
        yield {URL_ENV: server.base_url}
    finally:
        server.stop()
