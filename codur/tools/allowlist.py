"""What a patch may call and import: the allowlist the risky-patch gate (:mod:`codur.tools.risk`) judges by.

A list of what is forbidden is bypassed by the first name it lacks (``platform.os.system``,
``logging.handlers.socket``, ``_socket``, ``pickle.loads``), so the gate allows what it knows:

- the module's own names: what it defines or assigns, its parameters, and what those objects
  offer (``self.items.append``, ``text.split``), except the attributes that reach the
  interpreter's internals (:data:`ESCAPES`: ``__dict__``, ``__globals__``, ``__subclasses__``...);
- the repo's own modules (a relative import, or a top-level name the repo itself holds), but not
  a standard-library module reached through one (``mypkg.util.os``);
- builtins without I/O: every builtin but :data:`DENIED_BUILTINS` (``open`` only on a literal path
  inside the repo; ``getattr``/``setattr``/``delattr`` only with a literal, non-escaping name);
- pure standard-library modules (:data:`PURE`) and what they hold, walked on the real module: a
  private name, a module that is not pure itself (``typing.sys``, ``re.copyreg``) and
  :data:`PURE_EXCEPT` (``typing.get_type_hints`` evaluates strings) are not allowed; of ``json``
  only ``loads``, ``dumps`` and ``JSONDecodeError``; of ``logging`` only the loggers, the
  module-level log calls and the level names (:data:`LOGGING_ALLOWED`: a warning the task asks
  for goes to the handlers the program already has), never a handler that writes a file or
  opens a socket (``logging.FileHandler``, ``logging.handlers``, ``logging.config``).

Everything else is flagged, with the kind of risk when its name says it (:func:`kind`:
``network``, ``process``, ``dynamic code``), else ``not on the allowlist``.
"""

from __future__ import annotations

import builtins
import importlib
import re
import sys
import types
from pathlib import Path

PURE = frozenset({"math", "cmath", "re", "datetime", "itertools", "functools", "collections", "collections.abc",
                  "decimal", "fractions", "statistics", "string", "operator", "typing", "dataclasses", "enum",
                  "bisect", "heapq", "numbers", "abc", "copy", "textwrap", "unicodedata", "calendar", "random",
                  "__future__", "json", "logging"})
#: The names of a pure module that are not: they evaluate strings or reach other modules.
PURE_EXCEPT = frozenset({"typing.get_type_hints", "typing.ForwardRef", "typing.evaluate_forward_ref",
                         "operator.attrgetter", "operator.methodcaller"})
#: Of json, only these.
JSON_ALLOWED = frozenset({"loads", "dumps", "JSONDecodeError"})
#: Of logging, only these: loggers, the log calls and the levels (no handler, no config).
LOGGING_ALLOWED = frozenset({"getLogger", "Logger", "LoggerAdapter", "NullHandler", "debug", "info", "warning",
                             "warn", "error", "exception", "critical", "log", "DEBUG", "INFO", "WARNING", "WARN",
                             "ERROR", "CRITICAL", "NOTSET"})
#: The pure modules of which only some names are allowed.
ONLY = {"json": JSON_ALLOWED, "logging": LOGGING_ALLOWED}
#: Builtins with I/O or that reach code and namespaces by name.
DENIED_BUILTINS = frozenset({"open", "input", "eval", "exec", "compile", "__import__", "globals", "locals", "vars",
                             "breakpoint", "exit", "quit", "help", "copyright", "credits", "license",
                             "__build_class__", "__loader__", "__spec__"})
BUILTIN_NAMES = frozenset(dir(builtins))
#: Attributes that reach the interpreter's internals (the classic sandbox escapes) or a namespace by name.
ESCAPES = frozenset({"__subclasses__", "__globals__", "__builtins__", "__code__", "__closure__", "__dict__",
                     "__bases__", "__base__", "__mro__", "__getattribute__", "__import__", "__loader__", "__spec__",
                     "__self__", "__reduce__", "__reduce_ex__", "f_globals", "f_locals", "f_builtins", "f_back",
                     "gi_frame", "gi_code", "cr_frame", "ag_frame", "tb_frame", "co_code"})

NETWORK = frozenset({"socket", "_socket", "ssl", "_ssl", "urllib", "urllib2", "urllib3", "requests", "http", "httpx",
                     "aiohttp", "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc", "websocket",
                     "websockets", "paramiko", "asyncio.open_connection"})
PROCESS = frozenset({"subprocess", "_posixsubprocess", "pty", "ctypes", "_ctypes", "cffi", "multiprocessing",
                     "asyncio.create_subprocess_shell", "asyncio.create_subprocess_exec"})
#: Loading these runs code: a pickle names any callable.
DESERIALIZE = frozenset({"pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle", "copyreg"})
OS_PROCESS = re.compile(r"os\.(system|popen|exec\w*|spawn\w*|posix_spawn\w*|fork\w*)$")
DYNAMIC = frozenset({"eval", "exec", "compile", "runpy"})
#: Other names of a module: the OS layer os re-exports, and the builtins as a name.
SYNONYMS = {"posix": "os", "nt": "os", "__builtins__": "builtins", "_io": "io"}
NOT_ALLOWED = "not on the allowlist"
#: The prefix :mod:`codur.tools.risk` gives a name the module binds itself (``@self.items``).
OWN = "@"


def canonical(name: str) -> str:
    """``name`` with a module's other name replaced (``posix.system`` -> ``os.system``) and
    ``builtins.`` dropped (``builtins.eval`` -> ``eval``)."""
    head, dot, rest = name.partition(".")
    head = SYNONYMS.get(head, head)
    name = head + dot + rest
    return name.removeprefix("builtins.") if name != "builtins" else name


def kind(qualified: str) -> str | None:
    """The risk a dotted name says (``os.system`` -> ``process``; ``platform.os.system`` and
    ``logging.handlers.socket.create_connection`` too: a known module anywhere in the chain), or None."""
    parts = canonical(qualified).split(".")
    for start in range(len(parts)):
        for end in range(start + 1, len(parts) + 1):
            name = canonical(".".join(parts[start:end]))
            if name in NETWORK:
                return "network"
            if name in PROCESS or OS_PROCESS.match(name):
                return "process"
            if name in DESERIALIZE or (start == 0 and name in DYNAMIC):
                return "dynamic code"
    return "dynamic code" if any(p in ESCAPES for p in parts) else None


def judge(qualified: str, own: frozenset[str] = frozenset()) -> str | None:
    """The risk of what ``qualified`` names, or None when the allowlist (module doc) has it.

    Args:
        qualified: a resolved dotted name: ``os.system``, ``len``, ``json.loads``, ``.util.parse``
            (a relative import), ``@self.items.append`` (the module's own object), ``<globals>``.
        own: the top-level module names the repo itself holds (:func:`own_modules`).
    """
    if qualified.startswith(OWN):
        return "dynamic code" if any(p in ESCAPES for p in qualified.split(".")[1:]) else None
    if qualified == "<globals>":
        return "dynamic code"
    qualified = canonical(qualified)
    found = kind(qualified)
    if found is not None:
        return found
    head, *rest = qualified.split(".")
    if qualified.startswith(".") or (head in own and head not in sys.stdlib_module_names):
        inner = [p for p in rest if p in sys.stdlib_module_names and p not in PURE]
        return NOT_ALLOWED if inner else None
    if head in BUILTIN_NAMES and head not in sys.stdlib_module_names:
        return NOT_ALLOWED if head in DENIED_BUILTINS else None
    if head in PURE:
        return _pure(head, rest)
    return NOT_ALLOWED


def _pure(head: str, rest: list[str]) -> str | None:
    """Walk ``head.rest...`` on the real module: a private name, a module that is not pure, or a
    name of :data:`PURE_EXCEPT` is not allowed."""
    if head in ONLY:
        return None if not rest or rest[0] in ONLY[head] else NOT_ALLOWED
    obj: object = importlib.import_module(head)
    path = head
    for part in rest:
        path = f"{path}.{part}"
        if part.startswith("_") or path in PURE_EXCEPT:
            return NOT_ALLOWED
        nxt = getattr(obj, part, None)
        if nxt is None and isinstance(obj, types.ModuleType) and path in PURE:
            nxt = importlib.import_module(path)
        if isinstance(nxt, types.ModuleType) and nxt.__name__ not in PURE:
            return NOT_ALLOWED
        if nxt is None:
            return None  # a name the module lacks: it fails when run, it reaches nothing
        obj = nxt
    return None


def own_modules(repo: Path, file: Path | None = None) -> frozenset[str]:
    """The top-level module names the repo holds: ``*.py`` files and packages (folders with an
    ``__init__.py``) at its top, in ``src/`` and beside ``file``; standard-library names excluded
    (a repo's ``os.py`` does not make ``os`` its own)."""
    names: set[str] = set()
    for folder in {repo, repo / "src", *([file.parent] if file is not None else [])}:
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.suffix == ".py" and entry.is_file():
                names.add(entry.stem)
            elif entry.is_dir() and (entry / "__init__.py").is_file():
                names.add(entry.name)
    return frozenset(n for n in names if n.isidentifier() and n not in sys.stdlib_module_names)
