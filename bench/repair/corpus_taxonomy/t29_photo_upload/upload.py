"""Checks a photo upload before it is stored: file type, size, and a safe file name."""

import re

ALLOWED_EXTENSIONS = (".jpg", ".png", ".gif", ".webp")
MAX_BYTES = 8 * 1024 * 1024


def extension(filename):
    dot = filename.rfind(".")
    return filename[dot:].lower() if dot > 0 else ""


def safe_name(filename):
    """Letters, digits, '-' and '_' plus the extension; other runs of characters become '-'."""
    stem = filename[: len(filename) - len(extension(filename))]
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", stem.strip()).strip("-") or "photo"
    return stem + extension(filename)


def check_upload(filename, size):
    """The problems with an upload of ``size`` bytes; empty when it is fine."""
    problems = []
    if extension(filename) not in ALLOWED_EXTENSIONS:
        problems.append(f"{extension(filename) or 'no extension'} files are not accepted")
    if size > MAX_BYTES:
        problems.append(f"file is {size / 1024 / 1024:.1f} MB, the limit is 8 MB")
    if size == 0:
        problems.append("file is empty")
    return problems
