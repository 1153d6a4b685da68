"""The event record: one frozen dataclass per event type, one serializer to the wire.

An event type is declared once, as a subclass of :class:`Event` naming its type::

    @dataclass(frozen=True, kw_only=True)
    class ModelCall(Event, kind="model.call"):
        model: str
        input_tokens: int
        ...

Building one with a field it does not declare is a ``TypeError`` where it is built; reading
one that is not there is an ``AttributeError`` where it is read. A field whose default is
:data:`OMIT` is left out of the wire when it is not given (``model.call``'s ``error`` is
there only when the call failed), so the wire stays what it was when events were dicts.

:func:`wire` is the one serializer: ``{"event_type", "run_id", "ts", **fields}`` in the
declared order, the line ``--json`` prints and the trace keeps. :func:`parse` reads a wire
record back into its event (the progress view and the run's report take typed events).
The pattern is OpenHands' action and observation classes (``openhands/events/``): an
event is a typed record, its stream one list of them.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, ClassVar

#: the envelope's keys: the wire's first three, kept by the stream, not by the event
ENVELOPE = ("event_type", "run_id", "ts")


class _Omit:
    """The default of a field that is left out of the wire when it is not given."""

    _instance: _Omit | None = None

    def __new__(cls) -> _Omit:
        cls._instance = cls._instance or super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "OMIT"

    def __bool__(self) -> bool:
        return False


#: A field's default meaning "not on the wire unless given".
OMIT: Any = _Omit()

#: Every event type by its wire name (``"model.call"`` -> :class:`codur.core.events.model.ModelCall`).
EVENT_TYPES: dict[str, type[Event]] = {}


class Event:
    """Base of every event: a frozen dataclass whose class names its wire type (``kind=``).

    Its fields also read as a mapping of the wire record without the envelope's ``run_id``
    and ``ts`` (``event["tool"]``, ``event.get("ok")``, ``event["event_type"]``), as the
    trace's readers and the tests read records.
    """

    event_type: ClassVar[str] = ""
    __test__: ClassVar[bool] = False  # pytest: ``TestsRun`` and its kin are not test classes

    def __init_subclass__(cls, *, kind: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not kind:
            raise TypeError(f"{cls.__name__}: an event type names its wire type (class X(Event, kind=...))")
        if kind in EVENT_TYPES:
            raise TypeError(f"{cls.__name__}: the event type {kind!r} is {EVENT_TYPES[kind].__name__} already")
        cls.event_type = kind
        EVENT_TYPES[kind] = cls

    def fields(self) -> dict[str, Any]:
        """The fields given (not :data:`OMIT`), in declared order; values are not copied."""
        return {f.name: value for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if (value := getattr(self, f.name)) is not OMIT}

    def keys(self) -> list[str]:
        return ["event_type", *self.fields()]

    def __getitem__(self, key: str) -> Any:
        """A key of the wire record (``event_type`` or a given field). Raises KeyError else."""
        if key == "event_type":
            return self.event_type
        given = self.fields()
        if key not in given:
            raise KeyError(key)
        return given[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return key in self.keys()


def wire(event: Event, run_id: str = "", ts: float | None = None) -> dict[str, Any]:
    """The one serializer: ``{"event_type", "run_id", "ts", **fields}`` (``ts``: Unix time,
    seconds, rounded to ms; default now), the record ``--json`` prints and the trace keeps."""
    if not isinstance(event, Event):
        raise TypeError(f"an event is a codur.core.events.Event, not {type(event).__name__}: {event!r:.200}")
    return {"event_type": event.event_type, "run_id": run_id,
            "ts": round(time.time(), 3) if ts is None else ts, **event.fields()}


def parse(record: dict[str, Any]) -> Event | None:
    """The event a wire record (:func:`wire`) says; None when its type is not one of
    :data:`EVENT_TYPES` (the CLI's ``run.result``, an older trace's types).

    Raises:
        TypeError: a known type with a field it does not declare or without one it requires
            (an emit site and its type disagree: a bug, said loudly).
    """
    cls = EVENT_TYPES.get(str(record.get("event_type") or record.get("event") or ""))
    if cls is None:
        return None
    return cls(**{k: v for k, v in record.items() if k not in ENVELOPE and k != "event"})
