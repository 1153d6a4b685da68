"""Connecting a batch to Ray: the cluster's token, a connect timeout of codur's own, a named cause.

``ray.init`` alone meets three problems on a real cluster. A head started with token
authentication (Ray's default from 2.52 on) refuses a client that sends no token, and the Ray
client retries until "ray client connection timeout" (32 s) without saying why; a half-stopped
cluster makes ``ray.init(address="auto")`` wait for minutes; and Ray prints its banner and its
processes' lines into codur's output. :func:`connect` therefore

- sends the token Ray itself reads (Ray's own places: the variable ``RAY_AUTH_TOKEN``, the file
  ``RAY_AUTH_TOKEN_PATH`` names, else ``~/.ray/auth_token``; :func:`token_source`), switching this
  process to Ray's token mode (``RAY_AUTH_MODE=token``) when one is there;
- for ``ray://HOST:PORT`` first opens a TCP connection to it (a refused or unreachable address is a
  ``network`` error at once), then waits for ``ray.init`` at most ``timeout_s`` seconds;
- names the cause: ``network`` or ``authentication`` (the Ray client's own log of the refused
  call says so), and whether a token was sent;
- sends what Ray prints while connecting (its banner, its processes' start-up lines) to a log file
  instead of codur's output, and names that file in an error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

#: Seconds codur waits for a Ray connection by default (``--ray-timeout``).
DEFAULT_TIMEOUT_S = 30.0
#: Seconds the TCP probe of a ``ray://`` address may take.
PROBE_S = 5.0
_CLIENT_LOGGERS = ("ray.util.client.worker", "ray.util.client")


class RayConnectError(RuntimeError):
    """codur could not connect to Ray; one line naming the address and the cause.

    Attributes:
        cause: ``network``, ``authentication`` or ``timeout``.
    """

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


def token_source() -> str | None:
    """Where Ray will read its token from: ``RAY_AUTH_TOKEN`` (the variable's name), the file
    ``RAY_AUTH_TOKEN_PATH`` names, or ``~/.ray/auth_token``; None when there is none."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    named = os.environ.get("RAY_AUTH_TOKEN_PATH")
    if named and Path(named).expanduser().is_file():
        return named
    default = Path.home() / ".ray" / "auth_token"
    return str(default) if default.is_file() else None


def _token_mode() -> None:
    """Switch this process (and the Ray workers it starts) to Ray's token authentication."""
    os.environ["RAY_AUTH_MODE"] = "token"
    try:  # Ray caches its config; re-read it (what Ray's own token setup does)
        from ray._raylet import Config

        Config.initialize("")
    except (ImportError, AttributeError):
        pass


class _Said(logging.Handler):
    """Keeps the Ray client's debug lines (they carry the server's reason for refusing a call)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def _quiet(log: Path):
    """File descriptors 1 and 2 go to ``log`` for the block (Ray's banner, its processes' lines)."""
    with open(log, "ab") as sink:
        saved = [os.dup(1), os.dup(2)]
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def _probe(address: str) -> None:
    """Open and close a TCP connection to a ``ray://HOST:PORT`` address.

    Raises:
        RayConnectError: cause ``network`` (refused, unreachable, no answer in PROBE_S seconds).
    """
    parts = urlsplit(address)
    host, port = parts.hostname, parts.port or 10001
    if not host:
        raise RayConnectError(f"--ray {address}: not a ray://HOST:PORT address", "network")
    try:
        socket.create_connection((host, port), timeout=PROBE_S).close()
    except OSError as exc:
        raise RayConnectError(f"--ray {address}: network: cannot reach {host}:{port} "
                              f"({exc.strerror or type(exc).__name__})", "network") from None


#: what a Ray client is told when the head's proxy could not start the server process for it (Ray's
#: ``proxier.py``: the process exited while starting); seen on a 2-core machine under load, and gone on the next try
SERVER_START_FAILED = "Initialization failure from server"


def _init(ray: Any, address: str, init: dict, box: dict) -> None:
    """``ray.init`` in the connecting thread, its error left in ``box["error"]``; once more when the head's
    client server did not start (:data:`SERVER_START_FAILED`: a transient failure)."""
    for attempt in (1, 2):
        try:
            ray.init(address=address, **init)
            box.pop("error", None)
            return
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc
            if attempt == 2 or SERVER_START_FAILED not in str(exc):
                return
            with contextlib.suppress(Exception):
                ray.shutdown()


def connect(ray: Any, address: str, timeout_s: float = DEFAULT_TIMEOUT_S, **init: Any) -> None:
    """``ray.init(address=...)`` within ``timeout_s`` seconds, Ray's output kept out of codur's.
    (``--ray local`` starts its instance with ``ray.init`` in the calling thread instead:
    :class:`codur.batch.pools.RayPool`.)

    Args:
        ray: the ``ray`` module.
        address: ``auto`` or ``ray://HOST:PORT``.
        timeout_s: seconds to wait for the connection (> 0).
        init: further ``ray.init`` arguments (runtime_env, num_cpus, ...).

    A refusal because the head could not start its client server (:data:`SERVER_START_FAILED`) is tried
    once more, within ``timeout_s``.

    Raises:
        RayConnectError: the address cannot be reached (``network``), the cluster refused the
            client (``authentication``), or no connection within ``timeout_s`` (``timeout``).
    """
    if address.startswith("ray://"):
        _probe(address)
    source = token_source()
    if source and not os.environ.get("RAY_AUTH_MODE"):
        _token_mode()
    log = Path(tempfile.gettempdir()) / f"codur-ray-{os.getpid()}.log"
    said = _Said()
    loggers = [logging.getLogger(name) for name in _CLIENT_LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(said)
        lg.setLevel(logging.DEBUG)
    box: dict[str, Any] = {}

    thread = threading.Thread(target=_init, args=(ray, address, init, box), name="codur-ray-connect", daemon=True)
    try:
        with _quiet(log):
            thread.start()
            thread.join(timeout_s)
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(said)
            lg.setLevel(level)
    token = f"the token from {source} was sent" if source else \
        "no token was sent (set RAY_AUTH_TOKEN, or put it in ~/.ray/auth_token)"
    refused = any("auth" in line.lower() for line in said.lines)
    error = box.get("error")
    if thread.is_alive() or error is not None:
        text = " ".join(str(error or "").split())[:200]
        if refused or "authentication" in text.lower() or type(error).__name__ == "AuthenticationError":
            raise RayConnectError(f"--ray {address}: authentication: the cluster refused the client; {token} "
                                  f"(Ray's log: {log})", "authentication")
        if thread.is_alive():
            raise RayConnectError(f"--ray {address}: timeout: no connection within {timeout_s:g} s (--ray-timeout); "
                                  f"{token}; Ray's log: {log}", "timeout")
        raise RayConnectError(f"--ray {address}: network: {text or type(error).__name__}; Ray's log: {log}",
                              "network")
