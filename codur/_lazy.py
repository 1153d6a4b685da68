"""PEP 562 lazy exports: a package's public names imported on first use (``import codur`` stays instant)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, table: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from ``table[name]`` on first use
    and caches it in ``namespace`` (the package's globals()).

    Raises:
        AttributeError: (from the returned function) a name not in ``table``.
    """

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(table[name]), name)
        namespace[name] = value
        return value

    return __getattr__
