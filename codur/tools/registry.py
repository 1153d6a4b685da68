"""The tool registry: plain typed functions annotated with TaskType scenarios and side effects.

Every agent's tool list comes from :func:`list_tools_for_tasks`; the same selection
is turned into LangChain tools for ``bind_tools`` (:func:`to_langchain_tools`) and
into the tool block of the system prompt (:func:`render_tool_block`). No prompt
lists tools by hand.

A tool is a function whose first parameter is ``ctx: ToolContext`` (injected by
the :class:`codur.tools.executor.ToolExecutor`, never shown to the model); the
other parameters are typed and become the tool's argument schema. Its docstring's
first line is the summary the model reads.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from codur.core.fields import FieldAccess


class TaskType(StrEnum):
    """Scenarios a tool serves; the planner classifies each task into one."""

    CODE_FIX = "code_fix"
    CODE_GENERATION = "code_generation"
    CODE_VALIDATION = "code_validation"
    CODE_ANALYSIS = "code_analysis"
    FILE_OPERATION = "file_operation"
    EXPLANATION = "explanation"
    REFACTOR = "refactor"
    DOCUMENTATION = "documentation"
    RESULT_VERIFICATION = "result_verification"


class SideEffect(StrEnum):
    """What a tool can change outside its return value."""

    FILE_MUTATION = "file_mutation"
    CODE_EXECUTION = "code_execution"
    STATE_CHANGE = "state_change"
    NETWORK = "network"


@dataclass(frozen=True)
class ToolSpec(FieldAccess):
    """A registered tool; its fields also read as a mapping (``tool["name"]``,
    ``tool.get("scenarios")``: :class:`codur.core.fields.FieldAccess`).

    Attributes:
        name: the name the model calls.
        func: the Python function; first parameter ``ctx``.
        summary: first docstring line.
        description: the whole docstring.
        scenarios: TaskTypes it serves (empty: unannotated).
        side_effects: what it may change.
        signature: ``name(arg: type = default, ...)`` as shown to the model.
        args_model: pydantic model validating the model's arguments.
    """

    name: str
    func: Callable[..., str]
    summary: str
    description: str
    scenarios: frozenset[TaskType]
    side_effects: frozenset[SideEffect]
    signature: str
    args_model: type[BaseModel]

    @property
    def annotated(self) -> bool:
        return bool(self.scenarios)

    def parse_args(self, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments validated and completed with defaults.

        Raises:
            ValueError: a readable list of the problems and the expected signature.
        """
        try:
            return self.args_model.model_validate(args).model_dump()
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            raise ValueError(f"bad arguments for {self.name}: {problems}. Expected {self.signature}") from None


def _type_name(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return "any"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _build_spec(func: Callable[..., str], name: str, scenarios: Iterable[TaskType],
                side_effects: Iterable[SideEffect]) -> ToolSpec:
    sig = inspect.signature(func, eval_str=True)
    params = list(sig.parameters.values())
    if not params or params[0].name != "ctx":
        raise TypeError(f"tool {name}: first parameter must be 'ctx: ToolContext'")
    fields: dict[str, Any] = {}
    shown = []
    for p in params[1:]:
        if p.annotation is inspect.Parameter.empty:
            raise TypeError(f"tool {name}: parameter {p.name!r} needs a type annotation")
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (p.annotation, default)
        text = f"{p.name}: {_type_name(p.annotation)}"
        shown.append(text if default is ... else f"{text} = {default!r}")
    model = create_model(  # type: ignore[call-overload]
        f"{name}_args", __config__=ConfigDict(extra="forbid"), **fields
    )
    doc = inspect.cleandoc(func.__doc__ or "").strip()
    if not doc:
        raise TypeError(f"tool {name}: a docstring is required (the model reads it)")
    return ToolSpec(
        name=name, func=func, summary=doc.splitlines()[0], description=doc,
        scenarios=frozenset(scenarios), side_effects=frozenset(side_effects),
        signature=f"{name}({', '.join(shown)})", args_model=model,
    )


class ToolRegistry:
    """Name → ToolSpec. The module-level :data:`REGISTRY` holds codur's tools."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self._tools and self._tools[spec.name].func is not spec.func:
            raise ValueError(f"tool {spec.name!r} is already registered")
        self._tools[spec.name] = spec

    def remove(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def all(self) -> list[ToolSpec]:
        return [self._tools[n] for n in self.names()]


REGISTRY = ToolRegistry()


def tool(*, scenarios: Iterable[TaskType] = (), side_effects: Iterable[SideEffect] = (),
         name: str | None = None, registry: ToolRegistry | None = None):
    """Register a typed function as a tool.

    Args:
        scenarios: the TaskTypes it serves; empty leaves it unannotated.
        side_effects: what it may change (FILE_MUTATION, CODE_EXECUTION, ...).
        name: tool name; default the function name.
        registry: default :data:`REGISTRY`.

    Raises:
        TypeError: no ``ctx`` first parameter, an unannotated parameter, or no docstring.
    """

    def decorate(func: Callable[..., str]) -> Callable[..., str]:
        spec = _build_spec(func, name or func.__name__, scenarios, side_effects)
        (registry or REGISTRY).add(spec)
        func.__codur_tool__ = spec  # type: ignore[attr-defined]
        return func

    return decorate


def list_tools_for_tasks(
    task_types: Iterable[TaskType | str],
    *,
    exclude_task_types: Iterable[TaskType | str] = (),
    exclude_side_effects: Iterable[SideEffect | str] = (),
    include_unannotated: bool = False,
    registry: ToolRegistry | None = None,
) -> list[ToolSpec]:
    """Select the tools for a set of TaskTypes, sorted by name.

    A tool is selected when it serves one of ``task_types``, serves none of
    ``exclude_task_types`` and has none of ``exclude_side_effects``. Unannotated
    tools are selected only with ``include_unannotated=True``.
    """
    wanted = {TaskType(t) for t in task_types}
    excluded = {TaskType(t) for t in exclude_task_types}
    no_effects = {SideEffect(s) for s in exclude_side_effects}
    selected = []
    for spec in (registry or REGISTRY).all():
        if spec.side_effects & no_effects or spec.scenarios & excluded:
            continue
        if spec.scenarios & wanted or (include_unannotated and not spec.annotated):
            selected.append(spec)
    return selected


def _not_called_directly(**_: Any) -> str:
    raise RuntimeError("codur tools run through ToolExecutor, not LangChain")


def to_langchain_tools(specs: Iterable[ToolSpec]) -> list[StructuredTool]:
    """The selection as LangChain tools, for ``model.bind_tools``."""
    return [
        StructuredTool.from_function(
            func=_not_called_directly, name=s.name, description=s.description, args_schema=s.args_model
        )
        for s in specs
    ]


def render_tool_block(specs: Iterable[ToolSpec]) -> str:
    """The selection as the tool block of a system prompt: one line per tool."""
    return "\n".join(f"- {s.signature}: {s.summary}" for s in specs)
