"""The prompts of model patch samples: the suspicious function(s), the failures, one variant.

Every prompt starts the same way (the task, the most suspicious function(s) under
their file's name with the module's imports and constants, the failing tests' short
tracebacks), so the server's prompt cache is reused from one sample to the next; the
variant's extra comes after it. Variants (:meth:`PromptParts.messages`):

- ``plain``: nothing more; ``tests``: the failing tests' source; ``marked``: the most
  suspicious lines listed;
- ``missing``: the first function's lines numbered, and the question which statement is
  missing and where (a loop's update, a base case, a guard, a return, a final append, a
  back link): mutants cannot invent a statement, and a small model asked to fix the code
  mostly rewrites the lines it sees;
- ``file``: the whole file (under :data:`FILE_MAX_LINES` lines), asked for whole;
- ``pair``: the next most suspicious function, often of another file, shown under its
  file's name right after the first: the reply rewrites both, each in its own block
  (spliced by name and file, :func:`codur.patch.splice.splice_files`).

A function longer than :data:`codur.patch.window.WINDOW_MIN_LINES` is shown as an excerpt
around its most suspicious lines, and every variant asks for those lines rewritten (the
``lines`` format, :mod:`codur.patch.window`), not the function: its reply is a tenth as
long. The prompt then shows that function alone (a second function of the same file is
left out), and there is no ``file`` nor ``pair`` variant (both rewrite it whole).

A conversation (:meth:`PromptParts.conversation`) continues a prompt with earlier
samples as the model's answers, each followed by what the tests said about it, and asks
for a different fix (ChatRepair, Xia & Zhang 2023: "Keep the conversation going").
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from codur.core.pyast import parse_ast
from codur.patch import formats
from codur.patch import window as windows
from codur.patch.splice import FunctionSpan, functions, source_of
from codur.patch.window import Window
from codur.validate.evaluate import CandidateVerdict

SYSTEM = formats.SYSTEM["function"]
#: Longest file (lines) the "file" variant shows and asks for whole.
FILE_MAX_LINES = 150
#: Added to every prompt after a sample came back unchanged (ChatRepair's lesson: tell the
#: model its answer still fails). A small model otherwise echoes the code again and again.
UNCHANGED_NOTE = ("The code above is wrong: it fails these tests, so returning {names} unchanged is not an "
                  "answer. Find the line that causes the failure and change it.")
MAX_CONTEXT_LINES = 12
MAX_TEST_LINES = 60
FILE_SYSTEM = ("You fix bugs in Python modules. Reply with the corrected module in one ```python block: the whole "
               "file, every function kept, no explanation.")
FILE_ASK = "Write the corrected {file} in full."
PAIR_ASK = "Write the corrected {names} in full, each in its own ```python block under its file name."
MISSING_ASK = ("A statement may be missing from {name}: an update inside a loop, a base case, a guard, a "
               "return, a final append after a loop, a link back in a linked structure. Its lines:\n{lines}\n"
               "Say in one sentence which statement is missing and after which line, then write the corrected "
               "{name} in full.")
#: After a sample the tests rejected: what to do next (ChatRepair's "alternative patch" prompt).
RETRY_ASK = "This fix is wrong. Write a different fix: the corrected {names} in full."
#: After a near miss (some failing tests pass with it): fix on fix.
REST_ASK = "Keep the change that made those tests pass and fix what still fails: the corrected {names} in full."
#: The same two asks for a window (:mod:`codur.patch.window`): its lines, not the function.
WINDOW_RETRY_ASK = "This fix is wrong. Write a different fix of the same lines of {names}."
WINDOW_REST_ASK = "Keep the change that made those tests pass and fix what still fails, in the same lines of {names}."
WINDOW_MISSING_ASK = ("A statement may be missing from these lines of {name}: an update inside a loop, a base case, a "
                      "guard, a return, a final append after a loop. The lines:\n{lines}\nSay in one sentence which "
                      "statement is missing and after which line, then write the corrected lines (without their "
                      "numbers) in one ```python block.")
#: Lines of one exception shown in feedback.
FEEDBACK_LINES = 4


def module_context(text: str, spans: list[FunctionSpan]) -> str:
    """Top-level imports and constant assignments of the module (names the function may
    use), at most :data:`MAX_CONTEXT_LINES` lines."""
    tree = parse_ast(text)
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign):
            if stmt.end_lineno - stmt.lineno > 2:
                continue
            out += lines[stmt.lineno - 1: stmt.end_lineno]
    return "\n".join(out[:MAX_CONTEXT_LINES])


def test_source(read: Callable[[str], str], failing: list[str]) -> str:
    """Source of the failing test functions (``path::name`` or ``path::Class::name``),
    at most :data:`MAX_TEST_LINES` lines."""
    out: list[str] = []
    for nodeid in failing:
        parts = nodeid.split("::")
        if len(parts) < 2:
            continue
        name = parts[-1].split("[")[0]
        try:
            text = read(parts[0])
            tree = parse_ast(text)
        except (OSError, ValueError, SyntaxError):  # ValueError: not decodable (UnicodeDecodeError too)
            continue
        lines = text.replace("\r\n", "\n").split("\n")
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                out += lines[start - 1: node.end_lineno] + [""]
                break
        if len(out) >= MAX_TEST_LINES:
            break
    return "\n".join(out[:MAX_TEST_LINES]).strip()


def _block(file: str, text: str, spans: list[FunctionSpan], context: bool = True,
           window: Window | None = None) -> str:
    """``file:`` then a python block: the module's imports and constants, ``...``, the functions
    (the first as an excerpt around ``window`` when given)."""
    code = "\n\n".join(windows.excerpt(text, window) if window is not None and s == window.span
                       else source_of(text, s) for s in spans)
    head = module_context(text, spans) if context else ""
    return f"{file}:\n```python\n" + (f"{head}\n...\n\n" if head else "") + code + "\n```"


@dataclass
class PromptParts:
    """What every sample's prompt is built from (the common prefix first).

    ``texts``: file -> original text of every file a variant shows (``text``'s file is
    added); ``pair``: the functions of the ``pair`` variant (``spans`` and one more),
    [] for none; ``pair_first``: the pair is asked for from the start (the second
    function sits in another file, :func:`codur.patch.ranking.pair`).
    """

    spans: list[FunctionSpan]
    text: str  # the file holding the spans
    failures: str  # the failing tests' report (ids and short tracebacks)
    tests: str = ""  # source of the failing tests
    suspicious: list[int] = field(default_factory=list)  # lines, most suspicious first
    fmt: str = "function"  # the edit format asked for (codur.patch.formats.FORMATS)
    task: str = ""  # the user's request: often the only description of the symptom
    whole: list[FunctionSpan] = field(default_factory=list)  # the file's functions, for the "file" variant
    texts: dict[str, str] = field(default_factory=dict)
    pair: list[FunctionSpan] = field(default_factory=list)
    pair_first: bool = False
    verdict: tuple[tuple[str, str], ...] = ()  # (test id, exception) of the failing tests on the original
    window_min_lines: int | None = None  # a longer first function is shown as a window (None: WINDOW_MIN_LINES)
    window: Window | None = field(init=False, default=None)  # the first function's window, when it is long

    def __post_init__(self) -> None:
        self.texts = {self.spans[0].file: self.text, **self.texts}
        if self.window_min_lines is None:
            self.window_min_lines = windows.WINDOW_MIN_LINES
        if self.fmt in ("function", "search_replace") and self.spans[0].lines > self.window_min_lines:
            self.window = windows.window_of(self.text, self.spans[0], self.suspicious)
        if self.window is None and not self.whole and self.fmt == "function" \
                and self.text.count("\n") < FILE_MAX_LINES:
            self.whole = whole_file_spans(self.text, self.spans[0].file)
        if self.window is not None:
            self.spans = self.spans[:1]  # the window's lines are what a reply changes
            self.whole = []  # the whole file is longer still than the function
        if self.fmt != "function" or any(s.file not in self.texts for s in self.pair) or self.window is not None:
            self.pair = []  # a pair reply rewrites its functions whole, the long one too

    @property
    def answer_format(self) -> str:
        """The format a reply to a one-function variant is read in: ``lines`` for a window
        asked in the ``function`` format, else :attr:`fmt`."""
        return "lines" if self.window is not None and self.fmt == "function" else self.fmt

    def variant_spans(self, variant: str) -> list[FunctionSpan]:
        """The functions a reply to ``variant`` may rewrite."""
        return self.whole if variant == "file" else self.pair if variant == "pair" else self.spans

    def messages(self, variant: str, retry: bool = False) -> list[BaseMessage]:
        """System and user messages of one sample; ``variant`` is plain, tests, marked,
        missing, file or pair; ``retry`` adds :data:`UNCHANGED_NOTE` (an earlier sample returned the code unchanged)."""
        names = " and ".join(f"`{s.name}`" for s in self.spans)
        if variant == "file":
            return self._file_messages(retry)
        parts = ([f"Task: {self.task.strip()}"] if self.task.strip() else [])
        parts.append(_block(self.spans[0].file, self.text, self.spans, window=self.window))
        if variant == "pair":
            others = [s for s in self.pair if s not in self.spans]
            for file in dict.fromkeys(s.file for s in others):
                parts.append(_block(file, self.texts[file], [s for s in others if s.file == file],
                                    context=file != self.spans[0].file))
        parts.append("Failing tests:\n" + self.failures.strip())
        if variant == "tests" and self.tests:
            parts.append("The failing tests:\n```python\n" + self.tests + "\n```")
        system = SystemMessage(formats.SYSTEM[self.answer_format])
        if variant == "missing":
            window = self.window is not None
            source = (windows.source(self.text, self.window) if window
                      else source_of(self.text, self.spans[0])).split("\n")
            numbered = "\n".join(f"{i:>3}: {line}" for i, line in enumerate(source, 1))
            if retry:
                parts.append(UNCHANGED_NOTE.format(names=names))
            ask = WINDOW_MISSING_ASK if window else MISSING_ASK
            parts.append(ask.format(name=f"`{self.spans[0].name}`", lines=numbered))
            return [system, HumanMessage("\n\n".join(parts))]
        if variant == "marked" and self.suspicious:
            lines = self.text.replace("\r\n", "\n").split("\n")
            shown = [n for n in self.suspicious if self.window is None or self.window.start <= n <= self.window.end]
            marked = [f"line {n}: `{lines[n - 1].strip()}`" for n in shown[:4] if 0 < n <= len(lines)]
            parts.append("The most suspicious lines (fault localization):\n" + "\n".join(marked))
        if retry:
            parts.append(UNCHANGED_NOTE.format(names=names))
        if variant == "pair":
            parts.append(PAIR_ASK.format(names=" and ".join(f"`{s.name}` ({s.file})" for s in self.pair)))
        else:
            parts.append(self.ask(names))
        return [system, HumanMessage("\n\n".join(parts))]

    def ask(self, names: str) -> str:
        """The last line of a one-function prompt: the format's ask; for a window in the
        ``lines`` format, with the window's lines to rewrite."""
        ask = formats.ASK[self.answer_format].format(names=names, file=self.spans[0].file)
        if self.answer_format == "lines" and self.window is not None:
            ask += f"\n```python\n{windows.source(self.text, self.window)}\n```"
        return ask

    def conversation(self, variant: str, turns: list[tuple[str, str]], near: bool) -> list[BaseMessage]:
        """The messages of ``variant`` continued by ``turns``, (earlier answer, what the
        tests said about it) oldest first, then the ask: a different fix, or with ``near``
        (the last answer made some failing tests pass) the rest of the fix.

        The prompt of ``variant`` comes first unchanged, so the server's prompt cache
        holds it from the earlier samples."""
        out = self.messages(variant)
        names = " and ".join(f"`{s.name}`" for s in self.spans)
        rest, retry = (WINDOW_REST_ASK, WINDOW_RETRY_ASK) if self.window is not None else (REST_ASK, RETRY_ASK)
        for i, (answer, said) in enumerate(turns):
            out.append(AIMessage(answer))
            ask = (rest if near else retry).format(names=names) if i == len(turns) - 1 else ""
            out.append(HumanMessage(f"{said}\n\n{ask}".strip()))
        return out

    def _file_messages(self, retry: bool) -> list[BaseMessage]:
        file = self.spans[0].file
        parts = ([f"Task: {self.task.strip()}"] if self.task.strip() else [])
        parts.append(f"{file}:\n```python\n{self.text.replace(chr(13), '').rstrip()}\n```")
        parts.append("Failing tests:\n" + self.failures.strip())
        if self.tests:
            parts.append("The failing tests:\n```python\n" + self.tests + "\n```")
        if retry:
            parts.append(UNCHANGED_NOTE.format(names=f"`{file}`"))
        parts.append(FILE_ASK.format(file=file))
        return [SystemMessage(FILE_SYSTEM), HumanMessage("\n\n".join(parts))]


def feedback(status: CandidateVerdict, fixed: int, failing: int, failures: tuple[tuple[str, str], ...],
             broke: tuple[tuple[str, str], ...] = ()) -> str:
    """What the tests said about a sample, in words a small model reads: ``status`` of its
    evaluation ("failed", "near_miss", "timeout"), ``fixed`` of the ``failing`` failing
    tests pass with it; ``failures`` / ``broke``: (test id, exception) of failing tests it
    leaves failing and of passing tests it breaks."""
    def listed(pairs: tuple[tuple[str, str], ...]) -> str:
        out = []
        for test, message in pairs:
            name = test.split("::", 1)[-1]
            text = "\n    ".join(message.strip().split("\n")[:FEEDBACK_LINES])
            out.append(f"- {name}: {text}" if text else f"- {name}")
        return "\n".join(out)

    if status == CandidateVerdict.TIMEOUT:
        head = "With this version the tests never finish: a loop does not end."
    elif not failures and broke:
        head = "With this version the failing tests pass, but it breaks tests that passed before:"
    elif fixed:
        head = f"With this version {fixed} of the {failing} failing tests pass, but these still fail:"
    else:
        head = "With this version the tests still fail:"
    parts = [head, listed(failures)]
    if failures and broke:
        parts.append("It also breaks tests that passed before:")
    parts.append(listed(broke))
    return "\n".join(p for p in parts if p)


def whole_file_spans(text: str, file: str) -> list[FunctionSpan]:
    """The functions a whole-file reply is spliced back by: every function and method
    that is not nested in another function and whose name is unique in the file (a
    reply's ``def total`` cannot be matched to one of two methods named ``total``)."""
    try:
        spans = [s for s in functions(text, file) if ".<locals>." not in s.qualname]
    except SyntaxError:
        return []
    counts: dict[str, int] = {}
    for s in spans:
        counts[s.name] = counts.get(s.name, 0) + 1
    return [s for s in spans if counts[s.name] == 1]
