"""Where each setting's value came from (a flag, a ``CODUR_*`` variable, a file, the default),
for ``codur config`` and for error messages, and which ``CODUR_*`` variables are no setting."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, SecretStr

from codur.config.sources import FLAGS, ConfigFile, field_names, file_setting, has_path, is_model, source_values

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings


def env_variable(path: tuple[str, ...]) -> str:
    """The environment variable that set ``path``: the most specific one present, e.g.
    ``CODUR_LOCAL__N_CTX`` or ``CODUR_LOCAL``; ``OPENAI_*`` for the aliased endpoint and key."""
    present = {k.upper() for k in os.environ}
    if path[0] in ("base_url", "api_key"):
        candidates = [f"CODUR_{path[0].upper()}", f"OPENAI_{path[0].upper()}"]
    else:
        candidates = ["CODUR_" + "__".join(p.upper() for p in path[:n]) for n in range(len(path), 0, -1)]
    return next((c for c in candidates if c in present), candidates[0])


@dataclass(frozen=True)
class Origin:
    """One setting: dotted key, value as shown (secrets masked), where it came from, and the
    trust level of that source: ``user`` (a flag, a variable, the user's file), ``repo``,
    ``repo (trusted)``, ``default``, or ``ignored (untrusted repo)`` for a repo file's user-only
    value that was dropped."""

    key: str
    value: str
    origin: str
    level: str = ""


def origins(config: Any, flags: dict[str, Any], files: tuple[ConfigFile, ...]) -> list[Origin]:
    """Every leaf of ``config`` (a CodurConfig) with its origin: ``flag --x``, ``env CODUR_X``,
    the label of the file that set it, or ``default``. Secrets (SecretStr values) are masked."""
    env, from_files = source_values(type(config), files)
    out = []
    for path, value in _leaves(config.model_dump()):
        level = "user"
        if path[0] in flags:
            origin = f"flag {FLAGS.get(path[0], path[0])}"
        elif has_path(env, path):
            origin = f"env {env_variable(path)}"
        elif (file := file_setting(from_files, path)) is not None:
            origin, level = file.label, file.level
        else:
            origin = level = "default"
        shown = "********" if isinstance(value, SecretStr) else str(value)
        out.append(Origin(".".join(path), shown, origin, level))
    for file in files:
        raw = field_names(type(config), file.raw_source(type(config))())
        for key in file.ignored(type(config)):
            value = _get(raw, tuple(key.split(".")))
            shown = "********" if key.split(".")[0] in ("api_key", "database_url", "storage") else str(value)
            out.append(Origin(key, shown, file.label, "ignored (untrusted repo)"))
    return out


def ignored_settings(settings_cls: type[BaseSettings], files: tuple[ConfigFile, ...]) -> list[str]:
    """One warning per repo file whose user-only keys were dropped (:func:`codur.config.trust.refusal`)."""
    from codur.config.trust import refusal

    return [refusal(file.label, keys, file.path.parent) for file in files
            if (keys := file.ignored(settings_cls))]


def _get(values: dict, path: tuple[str, ...]) -> Any:
    node: Any = values
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def where(settings_cls: type[BaseSettings], loc: tuple, flags: dict[str, Any], files: tuple[ConfigFile, ...]) -> str:
    """Who gave the value at ``loc`` (a pydantic error location), for an error message:
    ``--flag``, ``CODUR_X`` or ``<file>: dotted.key``."""
    path = tuple(str(p) for p in loc if not isinstance(p, int))
    if not path:
        return "CODUR_*"
    if path[0] in flags:
        return FLAGS.get(path[0], path[0])
    env, from_files = source_values(settings_cls, files)
    file = file_setting(from_files, path)
    if file is not None and not has_path(env, path):
        return f"{file.label}: {file.key(path)}"
    return env_variable(path)


#: ``CODUR_*`` variables codur reads that are not settings: the sandbox switch, and those the
#: repair engine sets for its own child processes.
OTHER_VARIABLES = frozenset({
    "CODUR_SANDBOX", "CODUR_REPAIR_TEST_TIMEOUT", "CODUR_REPAIR_TEST_LIMITS", "CODUR_REPAIR_SELECT", "CODUR_REPAIR_OUT",
    "CODUR_REPAIR_COLLECT", "CODUR_REPAIR_PROGRESS",
    "CODUR_REPAIR_NO_COVERAGE", "CODUR_REPAIR_TIMEOUT_EXIT", "CODUR_REPAIR_SOURCE", "CODUR_REPAIR_JOB",
    "CODUR_REPAIR_MEMORY_MB", "CODUR_REPAIR_IDLE",
})


def setting_variables(settings_cls: type[BaseSettings]) -> dict[str, type[BaseModel] | None]:
    """``CODUR_<FIELD>`` of every setting, mapped to the model of its nested fields (``CODUR_LOCAL``
    -> LocalModelSettings, read as ``CODUR_LOCAL__N_CTX``), or None."""
    out: dict[str, type[BaseModel] | None] = {}
    for name, field in settings_cls.model_fields.items():
        out[f"CODUR_{name.upper()}"] = field.annotation if is_model(field.annotation) else None
        if isinstance(field.validation_alias, AliasChoices):
            out.update({c.upper(): None for c in field.validation_alias.choices
                        if isinstance(c, str) and c.upper().startswith("CODUR_")})
    return out


def unknown_variables(settings_cls: type[BaseSettings], environ: dict[str, str] | None = None) -> list[str]:
    """One message per ``CODUR_*`` variable in ``environ`` (default: os.environ) that codur does not
    read, e.g. ``CODUR_MAX_TURN is not a codur setting (did you mean CODUR_MAX_TURNS?)``; a variable
    inside a table (``CODUR_LOCAL__N_CTXX``) is checked against the table's fields."""
    known = setting_variables(settings_cls)
    out = []
    for name in sorted(environ if environ is not None else os.environ):
        upper = name.upper()
        if not upper.startswith("CODUR_") or upper in known or upper in OTHER_VARIABLES:
            continue
        head, _, rest = upper.partition("__")
        model = known.get(head)
        if rest and head in known and (model is None or rest.split("__")[0].lower() in model.model_fields):
            continue  # a dict setting (profiles, roles, agents) or a field of a table
        if model is not None and rest:
            close = difflib.get_close_matches(rest.lower(), sorted(model.model_fields), n=1)
            hint = f"{head}__{close[0].upper()}" if close else None
        else:
            close = difflib.get_close_matches(upper, sorted([*known, *OTHER_VARIABLES]), n=1, cutoff=0.75)
            hint = close[0] if close else None
        out.append(f"{name} is not a codur setting" + (f" (did you mean {hint}?)" if hint else ""))
    return out


def _leaves(values: dict, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in values.items():
        path = (*prefix, str(key))
        if isinstance(value, dict) and value:
            yield from _leaves(value, path)
        else:
            yield path, value


