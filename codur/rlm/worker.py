"""The sandbox worker: a persistent Python REPL in its own process (runs INSIDE the sandbox).

Started by :class:`codur.rlm.sandbox.Sandbox` as ``python -I worker.py``; it
imports nothing from codur but its siblings ``helpers.py``, ``notes.py``, ``records.py`` and ``table.py``
(:func:`_rlm_modules`),
so it starts fast and never pulls codur's dependencies into the sandbox.

Protocol: one JSON object per line. The parent's stdin/stdout pipes carry it on
private copies of fds 0 and 1; the worker then points fd 0 at /dev/null and fd
1 at fd 2 (the log), so nothing the model's code prints can corrupt it.

Requests → replies:
  {"op": "init", "context_path", "context_format": "text"|"json", "max_output_chars",
   "memory_mb", "cpu_s", "fsize_mb", "max_processes"} → {"op": "ready", "context_type", "context_len"}
  {"op": "exec", "code"}                         → {"op": "result", "stdout", "stderr", "error", "duration_s",
                                                    "notes", "submitted"}
  {"op": "get_var", "name"}                      → {"op": "var", "found", "value"}
  {"op": "shutdown"}                             → (exit)
``notes`` say what a small model would miss: a helper search (grep, count, lines_with,
search_context, count_matches) that found nothing in a large text, and the string literals
the block searched for whose count changes with case (and, when it printed only empty
values, those that match nothing at all): :func:`codur.rlm.notes.search_literal_notes`.
``submitted`` is "FINAL" or "FINAL_VAR" when the code called one of them (the block ends
there, its value kept in the variable ``helpers.FINAL_NAME``), else None.
During an exec the worker may send {"bridge": name, "args": {...}} and waits for
{"bridge_result": value} or {"bridge_error": message, "type": name} before going on.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import json
import linecache
import os
import sys
import time
import traceback
import types
from pathlib import Path

# Do not let this directory's modules (trace.py, parser.py...) shadow the standard library.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)


def _rlm_modules():
    """codur.rlm's ``helpers``, ``notes``, ``records`` and ``table`` without codur's package (its
    ``__init__`` pulls LangChain): stub packages ``codur`` and ``codur.rlm`` point at this file's
    directories, so the import runs those modules alone."""
    here = Path(__file__).resolve().parent
    for name, path in (("codur", here.parent), ("codur.rlm", here)):
        if name not in sys.modules:
            stub = types.ModuleType(name)
            stub.__path__ = [str(path)]
            sys.modules[name] = stub
    return (importlib.import_module("codur.rlm.helpers"), importlib.import_module("codur.rlm.notes"),
            importlib.import_module("codur.rlm.records"), importlib.import_module("codur.rlm.table"))


helpers, search_notes, read_records, table = _rlm_modules()


def _user_tasks() -> int:
    """Processes and threads of this user now (RLIMIT_NPROC counts them all); 0 without /proc."""
    uid, count = os.getuid(), 0
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return 0
    for entry in entries:
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


class BudgetExceeded(RuntimeError):
    """The parent refused a model call: the budget is spent."""


class Submitted(BaseException):  # noqa: N818 - not an error: the code handed in its answer
    """FINAL / FINAL_VAR was called in code: ends the block (a BaseException, so the model's own
    ``except Exception`` cannot swallow it). ``kind``: "FINAL" or "FINAL_VAR"."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class BridgeError(RuntimeError):
    """A bridge call (llm_query, rlm_query, batch_rlm_query) failed in the parent."""


DISPLAY = "__rlm_display__"  # the REPL's function printing an expression statement's value


_PURE = ("len", "sorted", "set", "list", "tuple", "dict", "sum", "min", "max", "str", "int", "repr", "type")


def _shown(stmt: ast.stmt, last: bool) -> bool:
    """Whether a top-level statement's value is printed: the last one if an expression (as in any
    REPL), and earlier ones that are a name, an index, a computation, a helper's search
    (``grep("u-7502")`` alone on a line) or a builtin's value (``len(hits)``); not a call of
    anything else (``f.write(...)``), not a bare string (a comment)."""
    if not isinstance(stmt, ast.Expr) or isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
        return False
    value = stmt.value
    return last or not isinstance(value, ast.Call) or isinstance(value.func, ast.Name) \
        and value.func.id in helpers.HELPER_NAMES + _PURE


def _displayed(tree: ast.Module) -> ast.Module:
    """``tree`` with each top-level expression statement :func:`_shown` wrapped in
    ``__rlm_display__(...)``, which prints its value's repr unless it is None."""
    for i, stmt in enumerate(tree.body):
        if _shown(stmt, i == len(tree.body) - 1):
            call = ast.Call(ast.Name(DISPLAY, ast.Load()), [stmt.value], [])
            tree.body[i] = ast.copy_location(ast.Expr(ast.copy_location(call, stmt.value)), stmt)
    return ast.fix_missing_locations(tree)


def _format_error(exc: BaseException) -> str:
    """The exception as a traceback of the model's own code only (no worker frames)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<repl block")]
    head = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) if frames else ""
    return (head + "".join(traceback.format_exception_only(type(exc), exc))).strip()


def _noted(note, shown: str, searched, result, alike: str | None = None):
    """``result`` of the search ``shown`` (``grep('x')``), after noting (``note(text)``) a zero
    result in a large text and, with ``alike`` (the pattern), lines naming only look-alikes."""
    if not result and isinstance(searched, str) and len(searched) >= search_notes.ZERO_MATCH_CHARS:
        note(search_notes.zero_match_note(shown, len(searched)))
    if isinstance(result, list) and isinstance(alike, str):
        note(search_notes.look_alike_note(shown, alike, result))
    return result


def _with_notes(recs, note):
    """``recs`` whose ``where`` notes a filter that kept nothing while each constraint alone keeps some."""
    recs.on_empty = note
    return recs


def _searches(context, note) -> dict:
    """The REPL's search helpers over ``context`` (or the ``text`` given), noting misses (:func:`_noted`)."""
    def text_or_context(text):
        return context if text is None else text

    def flagged(name, search):
        """``search(text, pattern, *rest)`` as ``name(pattern, text=context, *rest)``; ``grep`` notes look-alikes."""
        def call(pattern, text=None, *rest, **kwargs):
            if name == "count" and text is None and isinstance(pattern, list | tuple):
                return len(pattern)  # count(grep(...)): the lines found, what a small model means
            helpers.need_text(name, pattern)
            searched = text_or_context(text)
            return _noted(note, f"{name}({pattern!r})", searched, search(searched, pattern, *rest, **kwargs),
                          pattern if name == "grep" else None)
        call.__name__ = name
        return call

    def lines_with(*words, text=None):
        for word in words:
            helpers.need_text("lines_with", word)
        searched = text_or_context(text)
        return _noted(note, f"lines_with({', '.join(map(repr, words))})", searched,
                      helpers.lines_with(searched, *words), max(map(str, words), key=len, default=""))

    return {
        "grep": flagged("grep", helpers.grep), "count": flagged("count", helpers.count), "lines_with": lines_with,
        "between": lambda start, end, text=None: helpers.between(text_or_context(text), start, end),
        "chunks": lambda n=4, text=None: helpers.chunks(text_or_context(text), n),
        "chunk_text": lambda text=None, size=20_000, overlap=200: helpers.chunk_text(
            text_or_context(text), size, overlap),
        "search_context": flagged("search_context", helpers.search_context),
        "count_matches": flagged("count_matches", helpers.count_matches),
        "extract_json": helpers.extract_json,
        "records": lambda text=None: _with_notes(read_records.records(text_or_context(text)), note),
        "recs": read_records.LazyRecords(lambda: _with_notes(read_records.records(context), note)),
        **{name: getattr(table, name) for name in ("startswith", "contains", "one_of", "above", "below")},
        "extract_sections": lambda text=None, pattern=helpers.DEFAULT_SECTION_PATTERN: helpers.extract_sections(
            text_or_context(text), pattern),
    }


class Worker:
    """The REPL state: the namespace and the protocol channel."""

    def __init__(self, proto_in, proto_out) -> None:
        self.proto_in, self.proto_out = proto_in, proto_out
        self.max_output_chars = 20_000
        self.ns: dict = {}
        self.blocks = 0
        self.notes: list[str] = []

    def send(self, message: dict) -> None:
        self.proto_out.write(json.dumps(message) + "\n")
        self.proto_out.flush()

    def receive(self) -> dict | None:
        line = self.proto_in.readline()
        return json.loads(line) if line else None

    def bridge(self, name: str, **args):
        self.send({"bridge": name, "args": args})
        reply = self.receive()
        if reply is None:
            raise SystemExit(0)
        if "bridge_error" in reply:
            kind = BudgetExceeded if reply.get("type") == "BudgetExceeded" else BridgeError
            raise kind(reply["bridge_error"])
        return reply.get("bridge_result")

    def _set_limits(self, request: dict) -> None:
        import resource

        for name, value in (("RLIMIT_AS", request.get("memory_mb")), ("RLIMIT_CPU", request.get("cpu_s")),
                            ("RLIMIT_FSIZE", request.get("fsize_mb"))):
            if value and hasattr(resource, name):
                soft = int(value) if name == "RLIMIT_CPU" else int(value) << 20
                hard = soft + 1 if name == "RLIMIT_CPU" else soft  # SIGXCPU first, SIGKILL a second later
                resource.setrlimit(getattr(resource, name), (soft, hard))
        extra = request.get("max_processes")
        if extra and hasattr(resource, "RLIMIT_NPROC"):  # counted per user: now + the code's share
            limit = _user_tasks() + int(extra)
            hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
            limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
            resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))

    def init(self, request: dict) -> dict:
        self._set_limits(request)
        self.max_output_chars = int(request.get("max_output_chars") or self.max_output_chars)
        path = request["context_path"]
        if request.get("context_format") == "json":
            with open(path, encoding="utf-8") as f:
                context = json.load(f)
        else:
            with open(path, encoding="utf-8", errors="replace", newline="") as f:
                context = f.read()
        self.ns = self._namespace(context)
        return {"op": "ready", "context_type": type(context).__name__, "context_len": len(context)}

    def _note(self, note: str) -> None:
        """Add ``note`` to this block's notes, once."""
        if note and note not in self.notes:
            self.notes.append(note)

    def _final(self, kind: str):
        """FINAL(value) / FINAL_VAR(variable or its name) called in code: the value is kept in
        ``helpers.FINAL_NAME`` and the block ends there (the engine judges it as a FINAL_VAR)."""
        def final(value=None, *_rest, **_kwargs):
            if kind == "FINAL_VAR" and isinstance(value, str) and value.isidentifier() and value in self.ns:
                value = self.ns[value]  # FINAL_VAR("name"), as written outside code
            self.ns[helpers.FINAL_NAME] = value
            raise Submitted(kind)
        final.__name__ = kind
        return final

    def _namespace(self, context) -> dict:
        return {
            "__name__": "__rlm__", "__builtins__": builtins, "context": context, DISPLAY: helpers.display,
            "BudgetExceeded": BudgetExceeded, "BridgeError": BridgeError,
            "llm_query": lambda prompt: self.bridge("llm_query", prompt=str(prompt)),
            "rlm_query": lambda task, context=None: self.bridge(
                "rlm_query", task=str(task), context=None if context is None else str(context)),
            "batch_rlm_query": lambda tasks, contexts=None: self.bridge(
                "batch_rlm_query", tasks=[str(t) for t in tasks],
                contexts=None if contexts is None else [None if c is None else str(c) for c in contexts]),
            **_searches(context, self._note),
            "FINAL": self._final("FINAL"), "FINAL_VAR": self._final("FINAL_VAR"),
        }

    def execute(self, code: str) -> dict:
        """Run one block; a trailing expression's value is printed, as in an interactive REPL, and so
        is an earlier one's that is a search or a value (:func:`_shown`): a small model often writes
        ``grep("u-7502")`` without print."""
        self.blocks += 1
        self.notes = []
        name = f"<repl block {self.blocks}>"
        out, err = helpers.Capture(self.max_output_chars), helpers.Capture(self.max_output_chars)
        error = submitted = None
        t0 = time.perf_counter()
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        try:
            exec(compile(_displayed(ast.parse(code, name, "exec")), name, "exec"), self.ns)  # noqa: S102 - the sandbox
        except Submitted as done:  # FINAL / FINAL_VAR called in code: the block ends without error
            submitted = done.kind
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            error = _format_error(exc)
        finally:
            sys.stdout, sys.stderr = saved
        stdout, notes = out.value(), self.notes
        context = self.ns.get("context")
        if error and (note := search_notes.line_as_record_note(code, error, self.ns.get("recs"))):
            notes.append(note)
        large = isinstance(context, str) and len(context) >= search_notes.ZERO_MATCH_CHARS
        if error is None and not notes and large:
            try:
                notes = search_notes.search_literal_notes(code, context, empty=helpers.looks_empty(stdout))
            except Exception:  # noqa: BLE001 - a note is a hint; never fail the block for it
                notes = []
        return {"op": "result", "stdout": stdout, "stderr": err.value(), "error": error,
                "duration_s": time.perf_counter() - t0, "notes": notes, "submitted": submitted}

    def get_var(self, name: str) -> dict:
        if name not in self.ns or name.startswith("__"):
            return {"op": "var", "found": False, "value": None}
        value = self.ns[name]
        return {"op": "var", "found": True, "value": value if isinstance(value, str) else str(value)}

    def serve(self) -> None:
        ops = {"init": self.init, "exec": lambda request: self.execute(request["code"]),
               "get_var": lambda request: self.get_var(request["name"])}
        while (request := self.receive()) is not None:
            op = request.get("op")
            if op == "shutdown":
                return
            handler = ops.get(op) if isinstance(op, str) else None
            self.send(handler(request) if handler else {"op": "error", "error": f"unknown op {op!r}"})


def main() -> None:
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the worker
    sys.stdout = os.fdopen(1, "w", encoding="utf-8", closefd=False)
    Worker(proto_in, proto_out).serve()


if __name__ == "__main__":
    main()
