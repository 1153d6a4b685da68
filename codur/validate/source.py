"""Source files: which ones may be mutated, how they are read and written, their AST
positions as character offsets, edits.

A mutant replaces exact source spans (taken from ``lineno``/``col_offset``/
``end_lineno``/``end_col_offset``), so a patch is minimal and keeps the formatting.
Files are read and written in their declared coding, as the tools do
(:func:`codur.tools.reading.decode_source`, PEP 263).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from codur.core.files import IGNORED_DIRS
from codur.core.pyast import BOM, parse_ast
from codur.testing.ids import is_test_file
from codur.tools.errors import ToolError
from codur.tools.reading import decode_source, encode_source

#: Directory names never scored nor mutated.
EXCLUDED_DIRS = IGNORED_DIRS | {"tests", "test", "build", "dist"}
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_COMMENT_RE = re.compile(r"#[^\r\n]*")
#: Expression nodes whose source can stand anywhere an operand can.
_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.Dict,
          ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr)


def is_source_file(rel: str) -> bool:
    """True for the repo's own Python source (``rel`` is a posix path relative to it).

    Test files (``tests/``, ``test_*.py``, ``*_test.py``, ``conftest.py``) and vendored
    or tool directories (.venv, site-packages, .git, .codur, ...) are excluded.
    """
    parts = rel.split("/")
    name = parts[-1]
    if not name.endswith(".py") or rel.startswith("../") or any(p in EXCLUDED_DIRS for p in parts[:-1]):
        return False
    return not is_test_file(rel)


def read_source(path: Path, rel: str = "") -> str:
    """The text of a source file as the tools read it: UTF-8, else the coding its first two
    lines declare (PEP 263, ``tokenize`` rules).

    Raises:
        OSError: unreadable. ValueError: neither UTF-8 nor valid in a declared coding.
    """
    try:
        return decode_source(Path(path).read_bytes(), rel or Path(path).name)
    except ToolError as exc:
        raise ValueError(str(exc)) from None


def source_bytes(text: str, rel: str = "") -> bytes:
    """``text`` encoded as the tools write it: in the coding it declares, else UTF-8.

    Raises:
        ValueError: a character the declared coding cannot hold.
    """
    try:
        return encode_source(text, rel)
    except ToolError as exc:
        raise ValueError(str(exc)) from None


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (character offsets) with ``new``."""

    start: int
    end: int
    new: str


def apply_edits(text: str, edits: tuple[Edit, ...]) -> str:
    """Apply non-overlapping ``edits`` to ``text``. Raises ValueError if they overlap."""
    out, pos = [], 0
    for edit in sorted(edits, key=lambda e: e.start):
        if edit.start < pos:
            raise ValueError("overlapping edits")
        out += [text[pos:edit.start], edit.new]
        pos = edit.end
    out.append(text[pos:])
    return "".join(out)


def overlaps(a: tuple[Edit, ...], b: tuple[Edit, ...]) -> bool:
    """True if any edit of ``a`` touches a span of ``b``."""
    return any(x.start <= y.end and y.start <= x.end for x in a for y in b)


class Source:
    """``text`` of one module, its AST and offset helpers (AST columns are UTF-8 bytes)."""

    def __init__(self, text: str):
        self.text = text
        self.tree = parse_ast(text)
        self.lines = _LINE_RE.findall(text)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        """Character offset of (1-based line, UTF-8 byte column). Line 1 of a text with a byte
        order mark counts its columns from after the mark (:func:`codur.core.pyast.parse_ast`)."""
        line = self.lines[lineno - 1] if lineno <= len(self.lines) else ""
        bom = lineno == 1 and line.startswith(BOM)
        line = line[1:] if bom else line
        if not line.isascii():
            col = len(line.encode()[:col].decode(errors="ignore"))
        return self.starts[lineno - 1] + col + bom

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def seg(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def operand(self, node: ast.AST) -> str:
        """Source of ``node``, parenthesized unless it is an atom."""
        text = self.seg(node)
        return text if isinstance(node, _ATOMS) else f"({text})"

    def token(self, left: ast.AST, right: ast.AST, pattern: str) -> tuple[int, int] | None:
        """Span of the operator matching regex ``pattern`` between ``left`` and ``right``."""
        start, end = self.span(left)[1], self.span(right)[0]
        gap = _COMMENT_RE.sub(lambda m: " " * len(m.group()), self.text[start:end])
        match = re.search(pattern, gap)
        return (start + match.start(), start + match.end()) if match else None

    def line_span(self, node: ast.stmt) -> tuple[int, int] | None:
        """Span of the whole lines of ``node`` if nothing else shares them, else None."""
        start, end = self.span(node)
        line_start = self.starts[node.lineno - 1]
        line_end = self.starts[min(node.end_lineno, len(self.lines))]
        before, after = self.text[line_start:start], self.text[end:line_end]
        if before.strip() or after.strip() and not after.strip().startswith("#"):
            return None
        return line_start, line_end

    def indent(self, node: ast.stmt) -> str:
        line = self.lines[node.lineno - 1]
        return line[: len(line) - len(line.lstrip())]
