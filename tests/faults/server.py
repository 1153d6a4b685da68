"""A fault-injecting OpenAI-compatible server for tests (stdlib http.server in a thread, 127.0.0.1).

``GET /v1/models`` lists ``models`` (a path outside ``root``, when set, gets a 404).
``POST /v1/chat/completions`` answers with the next fault
of the script (then ``default`` for every later request): a normal reply, a status with a JSON
error body and headers (429 with or without Retry-After, 429 ``insufficient_quota``, 500, 503), a reply slower than the
client's timeout, malformed JSON, empty ``choices``, or, for ``stream=True``, a stream cut in
the middle (the connection closes before the promised length). Every request is recorded
(``requests``: monotonic time and JSON body).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Fault = Callable[[BaseHTTPRequestHandler, dict], None]


def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None,
          content_type: str = "application/json", length: int | None = None) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()


def _completion(request: dict, content: str) -> dict:
    return {"id": "chatcmpl-fault", "object": "chat.completion", "created": int(time.time()),
            "model": request.get("model", "fault"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def _sse(request: dict, pieces: list[str], done: bool = True) -> bytes:
    chunks = [{"id": "chatcmpl-fault", "object": "chat.completion.chunk", "created": int(time.time()),
               "model": request.get("model", "fault"),
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": p}, "finish_reason": None}]}
              for p in pieces]
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + ("data: [DONE]\n\n" if done else "")
    return text.encode()


def ok(content: str = '{"task_type": "code_fix", "steps": ["fix it"]}') -> Fault:
    """A normal reply (streamed as server-sent events when the request asks for a stream)."""

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        if request.get("stream"):
            _send(handler, 200, _sse(request, [content[: len(content) // 2], content[len(content) // 2:]]),
                  content_type="text/event-stream")
        else:
            _send(handler, 200, json.dumps(_completion(request, content)).encode())

    return fault


def status(code: int, message: str = "server error", *, error_code: str | None = None,
           headers: dict[str, str] | None = None) -> Fault:
    """An HTTP error with an OpenAI-style body ``{"error": {"message", "type", "code"}}``."""
    body = {"error": {"message": message, "type": error_code or "server_error", "code": error_code}}

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        _send(handler, code, json.dumps(body).encode(), headers)

    return fault


def rate_limited(retry_after: str | None = None) -> Fault:
    """429 ``rate_limit_exceeded``, with a Retry-After header (seconds or an HTTP date) when given."""
    return status(429, "Rate limit reached for requests", error_code="rate_limit_exceeded",
                  headers={"Retry-After": retry_after} if retry_after is not None else None)


def insufficient_quota() -> Fault:
    """429 ``insufficient_quota``: retrying cannot help."""
    return status(429, "You exceeded your current quota, please check your plan and billing details.",
                  error_code="insufficient_quota")


def slow(seconds: float, stop: threading.Event, content: str = "late") -> Fault:
    """A normal reply after ``seconds`` (longer than the client waits); ends early when ``stop`` is set."""

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        if stop.wait(seconds):
            return
        with contextlib.suppress(OSError):  # the client gave up long ago
            ok(content)(handler, request)

    return fault


def malformed() -> Fault:
    """200 with a body that is not JSON."""
    return lambda handler, request: _send(handler, 200, b'{"id": "chatcmpl-fault", "choices": [{"mess')


def empty_choices() -> Fault:
    """200 with ``choices: []``."""

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        _send(handler, 200, json.dumps({**_completion(request, ""), "choices": []}).encode())

    return fault


def stream_cut(content: str = "```python\ndef f():\n    return 1\n```") -> Fault:
    """For stream=True: the first half of the events, then the connection closes short of the
    promised Content-Length (no ``[DONE]``); a plain request gets the same cut body."""

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        part = _sse(request, [content[: len(content) // 2]], done=False)
        _send(handler, 200, part, content_type="text/event-stream", length=len(part) + 4096)
        handler.close_connection = True

    return fault


def trickle(pieces: list[str], every_s: float, hung_up: threading.Event) -> Fault:
    """For stream=True: one event of ``pieces`` every ``every_s`` seconds (chunked), then
    ``[DONE]``; sets ``hung_up`` when the client closes the connection before the end."""

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        events = [_sse(request, [p], done=False) for p in pieces] + [b"data: [DONE]\n\n"]
        try:
            for event in events:
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                handler.wfile.flush()
                time.sleep(every_s)
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        except OSError:
            hung_up.set()

    return fault


def drip(every_s: float, hung_up: threading.Event, content: str = "late") -> Fault:
    """A whole reply (a completion, or its events for stream=True) sent one byte every ``every_s``
    seconds: every read gets a byte before any read timeout; sets ``hung_up`` when the client
    closes the connection before the end."""

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        stream = bool(request.get("stream"))
        body = _sse(request, [content]) if stream else json.dumps(_completion(request, content)).encode()
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream" if stream else "application/json")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.flush()
            for i in range(len(body)):
                handler.wfile.write(body[i:i + 1])
                handler.wfile.flush()
                time.sleep(every_s)
        except OSError:
            hung_up.set()

    return fault


def gzip_bomb(inflated_bytes: int, seen: list[str]) -> Fault:
    """A gzip body (whatever the client asked for) that inflates to ``inflated_bytes``; the
    request's Accept-Encoding is kept in ``seen``."""
    import gzip

    body = gzip.compress(b" " * inflated_bytes, compresslevel=9)

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        seen.append(handler.headers.get("Accept-Encoding", ""))
        with contextlib.suppress(OSError):
            _send(handler, 200, body, headers={"Content-Encoding": "gzip"})

    return fault


def huge(size_bytes: int) -> Fault:
    """A plain (uncompressed) body of ``size_bytes`` spaces: valid JSON padding, too much of it."""

    def fault(handler: BaseHTTPRequestHandler, request: dict) -> None:
        with contextlib.suppress(OSError):
            _send(handler, 200, b" " * size_bytes)

    return fault


@dataclass
class FaultServer:
    """The server. ``script``: faults for the next requests, in order; ``default``: after them."""

    script: list[Fault] = field(default_factory=list)
    default: Fault = field(default_factory=ok)
    requests: list[tuple[float, dict]] = field(default_factory=list)
    #: What ``GET /v1/models`` lists; the Authorization header of every request, in order.
    models: list[str] = field(default_factory=lambda: ["fault"])
    auth: list[str] = field(default_factory=list)
    #: When set, a request without ``Authorization: Bearer <key>`` gets a 401 (as OpenAI's API answers).
    key: str | None = None
    #: When set (``"/v1"``), a request outside this path gets a 404 (as vLLM answers a base URL without /v1).
    root: str = ""
    stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def play(self, *faults: Fault, default: Fault | None = None) -> FaultServer:
        """Answer the next requests with ``faults``, then with ``default`` (or the current one)."""
        with self._lock:
            self.script = list(faults)
            if default is not None:
                self.default = default
        return self

    def _next(self) -> Fault:
        with self._lock:
            return self.script.pop(0) if self.script else self.default

    def start(self) -> FaultServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    request: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    request = {}
                server.requests.append((time.monotonic(), request))
                server.auth.append(self.headers.get("Authorization", ""))
                if server.outside(self) or server.refuses(self):
                    return
                if not self.path.endswith("/chat/completions"):
                    _send(self, 404, b'{"error": {"message": "not found"}}')
                    return
                server._next()(self, request)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.auth.append(self.headers.get("Authorization", ""))
                if server.outside(self) or server.refuses(self):
                    return
                if not self.path.endswith("/models"):
                    _send(self, 404, b'{"error": {"message": "not found"}}')
                    return
                listing = {"object": "list", "data": [{"id": m, "object": "model", "created": 0, "owned_by": "test"}
                                                      for m in server.models]}
                _send(self, 200, json.dumps(listing).encode())

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True, name="fault-server").start()
        return self

    def outside(self, handler: BaseHTTPRequestHandler) -> bool:
        """Answer 404 and return True when :attr:`root` is set and the request's path is not under it."""
        if not self.root or handler.path.startswith(self.root + "/"):
            return False
        _send(handler, 404, b'{"detail": "Not Found"}')
        return True

    def refuses(self, handler: BaseHTTPRequestHandler) -> bool:
        """Answer 401 and return True when :attr:`key` is set and the request does not carry it."""
        if self.key is None or handler.headers.get("Authorization", "") == f"Bearer {self.key}":
            return False
        _send(handler, 401, json.dumps({"error": {"message": "Incorrect API key provided", "type":
                                                  "invalid_request_error", "code": "invalid_api_key"}}).encode())
        return True

    def close(self) -> None:
        self.stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
