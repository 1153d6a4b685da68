"""Reading the repo's files safely: bounded, regular files only, in their declared coding."""

from __future__ import annotations

import io
import os
import stat
import tokenize
from pathlib import Path

from codur.tools.errors import ToolError

#: The largest file a tool reads whole, bytes.
MAX_READ_BYTES = 1_000_000
#: The largest file a tool reads a line range of, bytes.
MAX_RANGE_READ_BYTES = 20_000_000


def read_bytes_bounded(path: Path, max_bytes: int, rel: str = "") -> bytes:
    """The bytes of a regular file, at most ``max_bytes`` of them.

    The file is opened without blocking and checked with fstat, so a FIFO, a socket
    or a device is refused instead of blocking (or streaming) forever.

    Raises:
        ToolError: not a regular file, larger than ``max_bytes``, or unreadable.
    """
    rel = rel or path.name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ToolError(f"{rel} cannot be read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) \
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file"
            raise ToolError(f"{rel} is {kind}, not a regular file; it is not read")
        if info.st_size > max_bytes:
            raise ToolError(f"{rel} is {info.st_size} bytes, over the {max_bytes}-byte limit; "
                            "grep it or read a line range (start_line/end_line)")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ToolError(f"{rel} grew past the {max_bytes}-byte limit while read")
    return data


def decode_source(data: bytes, rel: str = "") -> str:
    """Text of a file's bytes: UTF-8, else the coding its first two lines declare
    (PEP 263, :func:`tokenize.detect_encoding`).

    Raises:
        ToolError: neither UTF-8 nor valid in a declared coding.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = exc.reason
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if encoding not in ("utf-8", "utf-8-sig"):
            return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        pass
    raise ToolError(f"{rel or 'the file'} is not UTF-8 text ({reason}) and declares no coding that reads it")


def encode_source(text: str, rel: str = "") -> bytes:
    """Bytes of ``text`` in the coding its first two lines declare (PEP 263), else UTF-8.

    Raises:
        ToolError: a character has no encoding in the declared coding.
    """
    head = "".join(text.splitlines(keepends=True)[:2]).encode("utf-8", "replace")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
    except SyntaxError:
        encoding = "utf-8"
    encoding = "utf-8" if encoding == "utf-8-sig" else encoding  # a BOM is in the text already
    try:
        return text.encode(encoding)
    except (LookupError, UnicodeEncodeError) as exc:
        raise ToolError(f"{rel or 'the text'} declares the coding {encoding}, which cannot hold it: {exc}") from None
