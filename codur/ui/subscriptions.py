"""The progress view's subscriptions: which method draws which event type.

A method subscribes with ``@on(EventType, ...)``; the view looks the method up by the event's
class (:data:`HANDLERS`), so a renamed event type is an ImportError where the view names it,
and a renamed field an AttributeError where it reads it: never a line silently not drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codur.core.events import Event

#: A method of the view drawing one event type: ``(view, event) -> line of Rich markup, or None``.
Draw = Callable[[Any, Any], "str | None"]
#: event type -> the method that draws it
HANDLERS: dict[type[Event], Draw] = {}


def on(*types: type[Event]) -> Callable[[Draw], Draw]:
    """Subscribe the decorated method to ``types``: it gets each event of them, typed.

    Raises:
        ValueError: a type is already drawn by another method (one method per type).
    """
    def register(method: Draw) -> Draw:
        for event_type in types:
            if event_type in HANDLERS and HANDLERS[event_type] is not method:
                raise ValueError(f"{event_type.__name__} is drawn by {HANDLERS[event_type].__qualname__} already")
            HANDLERS[event_type] = method
        return method
    return register
