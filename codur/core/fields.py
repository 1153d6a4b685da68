"""Read-only mapping access to a record's fields: ``record["status"]``, ``record.get("x")``.

The specifications read node outputs and tool specs as dicts (``outcome["status"]``,
``tool.get("scenarios")``); codur keeps them as frozen pydantic models and dataclasses.
:class:`FieldAccess` gives those records the read side of a mapping over their declared
fields, so both spellings work and there is still one record type.
"""

from __future__ import annotations

import dataclasses
from typing import Any


class FieldAccess:
    """Mixin for a pydantic model or a dataclass: ``[name]``, ``get``, ``keys``, ``in`` over its
    declared fields (attributes and properties that are not fields are not keys)."""

    __slots__ = ()

    def keys(self) -> list[str]:
        """The declared field names, in declaration order."""
        fields = getattr(type(self), "model_fields", None)
        if fields is not None:
            return list(fields)
        return [f.name for f in dataclasses.fields(self)]  # type: ignore[arg-type]

    def __getitem__(self, key: str) -> Any:
        """The field's value. Raises KeyError when ``key`` is not a declared field."""
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """The field's value, or ``default`` when ``key`` is not a declared field."""
        return getattr(self, key) if key in self.keys() else default

    def __contains__(self, key: object) -> bool:
        return key in self.keys()
