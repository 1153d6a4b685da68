"""What a tool raises: :class:`ToolError`, a failure the model reads and acts on."""

from __future__ import annotations


class ToolError(Exception):
    """A tool failure the model can read and act on (bad path, no match, timeout...)."""
