"""Names the specifications import from ``codur.constants``.

:class:`TaskType` is :class:`codur.tools.registry.TaskType` (one enum: the planner's
classification and the tools' scenarios), re-exported here.
"""

from codur.tools.registry import TaskType

__all__ = ["TaskType"]
